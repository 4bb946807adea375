// Issue 11 rules, each on a small page or value (the simulator pages in
// test/integration/extract-engine-quality.test.ts pin them end to end).
import { describe, expect, it } from 'vitest';
import { langCountry, withoutSiteName } from '../../lambdas/domain/extraction/analyse';
import { mergeCandidates } from '../../lambdas/domain/extraction/merge';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { parsePrice } from '../../lambdas/domain/extraction/price';
import { readShopifyProduct } from '../../lambdas/domain/extraction/readers/platform-json';

const page = (body: string, head = '', lang = 'en') =>
  `<!DOCTYPE html><html lang="${lang}"><head><title>t</title>${head}</head><body>${body}</body></html>`;

describe('Shopify .json: a value the source does not carry is unknown', () => {
  const json = {
    product: {
      id: 1,
      title: 'Tee',
      handle: 'tee',
      vendor: 'Acme',
      options: [{ name: 'Size', position: 1, values: ['S', 'M'] }],
      variants: [
        { id: 11, sku: 'T-S', price: '10.00', option1: 'S' },
        { id: 12, sku: 'T-M', price: '12.00', option1: 'M' },
      ],
      images: [],
    },
  };

  it('variants and product without `available` read as null, not out of stock', () => {
    const c = readShopifyProduct(json, 'https://shop.example/products/tee', 'EUR')!;
    expect(c.availability).toBeNull();
    expect(c.variants!.map((v) => v.availability)).toEqual([null, null]);
    expect(c.variants!.map((v) => v.currency)).toEqual(['EUR', 'EUR']);
  });

  it('the JSON-LD offers of the same SKUs fill availability; the product follows its variants', () => {
    const platform = readShopifyProduct(json, 'https://shop.example/products/tee', 'EUR')!;
    const offers = [
      {
        '@type': 'Offer',
        sku: 'T-S',
        price: '10.00',
        priceCurrency: 'EUR',
        availability: 'https://schema.org/OutOfStock',
      },
      {
        '@type': 'Offer',
        sku: 'T-M',
        price: '12.00',
        priceCurrency: 'EUR',
        availability: 'https://schema.org/InStock',
      },
    ];
    const html = page(
      '<h1>Tee</h1>',
      `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Tee', offers })}</script>`,
    );
    const { analysis } = readProductPage(html, 'https://shop.example/products/tee');
    const merged = mergeCandidates([platform, ...analysis.candidates], analysis.dom);
    expect(merged.variants.map((v) => [v.sku, v.availability])).toEqual([
      ['T-S', 'OutOfStock'],
      ['T-M', 'InStock'],
    ]);
    expect(merged.availability).toBe('InStock');
  });
});

describe('WooCommerce variation data', () => {
  it('data-product_variations gives each variation its SKU, price, stock and shown option values', () => {
    const variations = [
      {
        variation_id: 501,
        sku: 'MUG-RED',
        display_price: 9.5,
        display_regular_price: 12,
        is_in_stock: true,
        attributes: { attribute_pa_color: 'red' },
      },
      {
        variation_id: 502,
        sku: 'MUG-BLU',
        display_price: 9.5,
        display_regular_price: 9.5,
        is_in_stock: false,
        attributes: { attribute_pa_color: 'blue' },
      },
    ];
    const body = `<h1>Mug</h1><p class="price">£9.50</p><form class="variations_form cart" data-product_variations="${JSON.stringify(variations).replace(/"/g, '&quot;')}">
<label for="pa_color">Colour</label><select id="pa_color" name="attribute_pa_color" data-attribute_name="attribute_pa_color"><option value="">Choose an option</option><option value="red">Red</option><option value="blue">Blue</option></select>
<button class="single_add_to_cart_button">Add to basket</button></form>`;
    const { merged } = readProductPage(page(body), 'https://woo.example/product/mug/', { countryCode: 'gb' });
    expect(merged.variants.map((v) => [v.id, v.sku, v.price, v.compareAt, v.availability, v.options])).toEqual([
      ['501', 'MUG-RED', 9.5, 12, 'InStock', [['Colour', 'Red']]],
      ['502', 'MUG-BLU', 9.5, null, 'OutOfStock', [['Colour', 'Blue']]],
    ]);
  });

  it('Store API variations (ids only) take SKUs from ProductGroup/hasVariant by option values', () => {
    const platform = {
      source: 'platform_json' as const,
      title: 'Mug',
      price: 9.5,
      currency: 'GBP',
      options: [{ name: 'Color', values: ['Red', 'Blue'] }],
      variants: [
        { id: '501', options: [['Color', 'Red']] as Array<[string, string]> },
        { id: '502', options: [['Color', 'Blue']] as Array<[string, string]> },
      ],
    };
    const group = {
      '@context': 'https://schema.org',
      '@type': 'ProductGroup',
      name: 'Mug',
      variesBy: ['https://schema.org/color'],
      hasVariant: [
        {
          '@type': 'Product',
          sku: 'MUG-BLU',
          color: 'blue',
          offers: {
            '@type': 'Offer',
            price: '9.50',
            priceCurrency: 'GBP',
            availability: 'https://schema.org/OutOfStock',
          },
        },
        {
          '@type': 'Product',
          sku: 'MUG-RED',
          color: 'red',
          offers: { '@type': 'Offer', price: '9.50', priceCurrency: 'GBP', availability: 'https://schema.org/InStock' },
        },
      ],
    };
    const { analysis } = readProductPage(
      page('<h1>Mug</h1>', `<script type="application/ld+json">${JSON.stringify(group)}</script>`),
      'https://woo.example/product/mug/',
    );
    const merged = mergeCandidates([platform, ...analysis.candidates], analysis.dom);
    expect(merged.variants.map((v) => [v.id, v.sku, v.price, v.currency, v.availability])).toEqual([
      ['501', 'MUG-RED', 9.5, 'GBP', 'InStock'],
      ['502', 'MUG-BLU', 9.5, 'GBP', 'OutOfStock'],
    ]);
  });
});

describe('titles and headings', () => {
  it('the shop name comes off a document title, before or after', () => {
    expect(withoutSiteName('Linen Shirt | Acme Goods', 'Acme Goods', 'https://acmegoods.com/p/1', null)).toBe(
      'Linen Shirt',
    );
    expect(withoutSiteName('Acme Goods – Linen Shirt', null, 'https://www.acme-goods.com/p/1', null)).toBe(
      'Linen Shirt',
    );
    expect(withoutSiteName('Air Max 90 - Nike', null, 'https://www.nike.com/t/1', null)).toBe('Air Max 90');
    expect(withoutSiteName('Linen Shirt - Summer Sale', null, 'https://shop.example/p/1', 'Linen Shirt')).toBe(
      'Linen Shirt',
    );
    // Nothing names the shop: the title stays whole.
    expect(withoutSiteName('Linen Shirt - Blue', null, 'https://shop.example/p/1', null)).toBe('Linen Shirt - Blue');
  });

  it('a logo h1 (image, or the shop name linking home) is not the product heading', () => {
    const body = `<div class="top"><h1><a href="/"><img src="/logo.png" alt="Acme"></a></h1></div><h1><a href="/">Acme</a></h1>
<div><h1>Walnut Desk Lamp</h1><span class="price">$89.00</span><button>Add to cart</button></div>`;
    const { merged } = readProductPage(page(body), 'https://acme.example/products/lamp');
    expect(merged.title).toBe('Walnut Desk Lamp');
  });

  it("a page's language names its country, only when it is one country's", () => {
    expect(langCountry('zh-CN')).toBe('cn');
    expect(langCountry('ja')).toBe('jp');
    expect(langCountry('en-GB')).toBe('gb');
    expect(langCountry('en')).toBeNull();
    expect(langCountry('de')).toBeNull();
  });
});

describe('plain-text prices and several prices near one another', () => {
  it('full-width digits and separators, and "¥" as yuan on a zh-CN page', () => {
    expect(parsePrice('￥１２，８００')).toEqual({ amount: 12800, currency: 'JPY' });
    const body = '<div><h1>茶杯</h1><p>¥209.93</p><button>加入购物车</button></div>';
    const { merged, classification } = readProductPage(page(body, '', 'zh-CN'), 'https://cha.example/item/9');
    expect(classification.isProduct).toBe(true);
    expect([merged.price, merged.currency]).toEqual([209.93, 'CNY']);
  });

  it('everyday words are not currency codes, measures and sentences are not prices', () => {
    expect(parsePrice('See all 2 formats and editions').currency).toBeNull();
    const body =
      '<div><h1>Lamp</h1><ul><li>Weight: 3.5 pounds</li><li>Final sale items (with prices ending in $.97)</li></ul><button>Add to cart</button></div>';
    expect(readProductPage(page(body), 'https://lamp.example/products/lamp').merged.price).toBeNull();
  });

  it('the price paid beats was, unit, instalment, coupon and "also bought" prices, and stale markup', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Hoodie',
      offers: { '@type': 'Offer', price: '55.99', priceCurrency: 'USD' },
    };
    const body = `<div class="summary"><h1>Hoodie</h1>
<div class="prices"><span>Was</span> <span class="amount">$55.99</span> <span class="amount">$43.99</span></div>
<div><span class="amount">$11.00</span> / 100 g</div>
<div>or 4 interest-free payments of <span class="amount">$11.00</span></div>
<div>Extra 10% off with code SAVE10: <span class="amount">$39.59</span></div>
<button>Add to cart</button></div>
<section class="more"><h2>Customers also bought</h2><div><a href="/p/2">Cap</a> <span class="amount">$5.00</span></div></section>`;
    const { merged } = readProductPage(
      page(body, `<script type="application/ld+json">${JSON.stringify(ld)}</script>`),
      'https://crowd.example/products/hoodie',
    );
    expect([merged.price, merged.compareAt, merged.currency]).toEqual([43.99, 55.99, 'USD']);
  });

  it('a "Brand:" row names the brand when nothing else does; a size is no SKU', () => {
    const body = `<div><h1>Crew Tee</h1><span class="price">$12.00</span><button>Add to cart</button>
<table><tr><td class="attrLabels">Material: </td><td>Cotton</td></tr><tr><td class="attrLabels">${'\n\t\t\t\t\t\t\t\t\t\t\t\t\t\t'.repeat(4)}Brand: </td><td><span>Fruit of the Loom</span></td></tr></table>
<div class="sku">7-8</div></div>`;
    const { merged } = readProductPage(page(body), 'https://tees.example/products/crew');
    expect(merged.brand).toBe('Fruit of the Loom');
    expect(merged.sku).toBeNull();
  });

  it('brand placeholders are skipped and a "brand:" label prefix is cut', () => {
    const ld = (brand: string) =>
      `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Oven', brand: { '@type': 'Brand', name: brand }, offers: { '@type': 'Offer', price: '109', priceCurrency: 'EUR' } })}</script>`;
    expect(readProductPage(page('<h1>Oven</h1>', ld('$metabrand')), 'https://a.example/p/1').merged.brand).toBeNull();
    expect(
      readProductPage(page('<h1>Oven</h1>', ld('Ver mais artigos da Marca: Panasonic')), 'https://a.example/p/1').merged
        .brand,
    ).toBe('Panasonic');
  });
});
