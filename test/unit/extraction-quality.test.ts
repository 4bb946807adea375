// Issue 11 rules, each on a small page or value (the simulator pages in
// test/integration/extract-engine-quality.test.ts pin them end to end).
import { describe, expect, it } from 'vitest';
import { langCountry, pageRegionCountry, withoutSiteName } from '../../lambdas/domain/extraction/analyse';
import { mergeCandidates, selectedVariant } from '../../lambdas/domain/extraction/merge';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { identifierFromUrl } from '../../lambdas/domain/extraction/product-url';
import { parsePrice } from '../../lambdas/domain/extraction/price';
import { readShopifyProduct } from '../../lambdas/domain/extraction/readers/platform-json';
import { cleanSku, isSkuPlaceholder } from '../../lambdas/domain/extraction/values';

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

describe('SKU classes: where the product reference is stated', () => {
  const ldScript = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

  it('microdata productID is the SKU when no sku is stated; a prefixed id ("isbn:") is not', () => {
    const body = (id: string) => `<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Sport bra</h1>
<p class="desc">Ref : <span itemprop="productID">${id}</span></p>
<span itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="20.00"><meta itemprop="priceCurrency" content="EUR"></span>
<button>Ajouter au panier</button></div>`;
    const { merged } = readProductPage(page(body('VE900')), 'https://shop.example/p/bra');
    expect([merged.sku, merged.provenance.sku]).toEqual(['VE900', 'microdata']);
    expect(readProductPage(page(body('isbn:9780000000001')), 'https://shop.example/p/bra').merged.sku).toBeNull();
  });

  it('markup listing each size as its own Product gives variant SKUs: the shown product reference wins', () => {
    const sizes = ['38', '39', '40', '41'].map((size) => ({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'FLAT BOOTS',
      sku: `84518927-040-${size}`,
      offers: { '@type': 'Offer', price: '69.95', priceCurrency: 'EUR' },
    }));
    const body = `<div class="product"><h1>FLAT BOOTS</h1><span class="main-price">69.95 EUR</span>
<p class="product-color"><span>Black</span> - <span data-qa-qualifier="product-reference">1002/710</span></p>
<button>Add to bag</button></div>`;
    const { merged, analysis, classification } = readProductPage(
      page(body, ldScript(sizes)),
      'https://shop.example/en/flat-boots-p1002710.html',
    );
    // One product in four sizes, not a list of four products.
    expect([analysis.facts.productEntityCount, classification.isProduct]).toEqual([1, true]);
    expect(merged.sku).toBe('1002/710');
    expect(merged.provenance.sku).toBe('dom');
    // One Product only: its SKU stands, whatever the page shows.
    const single = readProductPage(page(body, ldScript(sizes[0])), 'https://shop.example/en/flat-boots-p1002710.html');
    expect(single.merged.sku).toBe('84518927-040-38');
    // Variants but nothing shown: the variant SKU is still better than none.
    const bare = body.replace(/<p class="product-color">.*<\/p>/, '');
    expect(readProductPage(page(bare, ldScript(sizes)), 'https://shop.example/en/x.html').merged.sku).toBe(
      '84518927-040-38',
    );
  });

  it.each([
    ['"Item #" in minified markup', '<div>Item # BL-100</div>'],
    ['a dt/dd pair', '<dl><dt>SKU</dt><dd>BL-100</dd></dl>'],
    ['a th/td row', '<table><tr><th>Art.-Nr.</th><td>BL-100</td></tr></table>'],
    ['a label and a value span', '<div><label>SKU:</label><span>BL-100</span></div>'],
    [
      'an empty data-product-sku on the value (BigCommerce)',
      '<dd class="productView-info-value" data-product-sku>BL-100</dd>',
    ],
  ])('labelled SKU: %s', (_, inner) => {
    // No whitespace between tags, as minified pages are.
    const body = `<div class="product"><h1>Blue Lamp</h1><span class="price">$40.00</span>${inner}<button>Add to cart</button></div>`;
    expect(readProductPage(page(body), 'https://x.example/products/lamp').merged.sku).toBe('BL-100');
  });

  it("several offers' SKUs and none of the product's: the style number the page shows is the product's", () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Tee',
      offers: ['S', 'M'].map((size) => ({
        '@type': 'Offer',
        sku: `TEE-${size}`,
        price: '10.00',
        priceCurrency: 'EUR',
      })),
    };
    const body =
      '<div><h1>Tee</h1><p>Style #: ST-100</p><span class="price">10,00 €</span><button>Add to cart</button></div>';
    const { merged } = readProductPage(page(body, ldScript(ld)), 'https://t.example/p/tee');
    expect(merged.sku).toBe('ST-100');
    expect(merged.variants.map((v) => v.sku)).toEqual(['TEE-S', 'TEE-M']);
    // Nothing shown: the first offer's SKU still.
    expect(
      readProductPage(page(body.replace('<p>Style #: ST-100</p>', ''), ldScript(ld)), 'https://t.example/p/tee').merged
        .sku,
    ).toBe('TEE-S');
  });

  it('a ProductGroup without sku is referenced by its productGroupID; a loose <meta itemprop=sku> by content', () => {
    const group = {
      '@context': 'https://schema.org',
      '@type': 'ProductGroup',
      name: 'Tee',
      productGroupID: 'TEE-100',
      variesBy: 'https://schema.org/size',
      hasVariant: ['S', 'M'].map((size) => ({
        '@type': 'Product',
        name: `Tee ${size}`,
        size,
        sku: `TEE-100-${size}`,
        offers: { '@type': 'Offer', price: '10.00', priceCurrency: 'EUR' },
      })),
    };
    const { merged } = readProductPage(
      page('<h1>Tee</h1><button>Add to cart</button>', ldScript(group)),
      'https://t.example/p/tee',
    );
    expect(merged.sku).toBe('TEE-100');
    expect(merged.variants.map((v) => v.sku)).toEqual(['TEE-100-S', 'TEE-100-M']);
    const loose = `<div><h1>Lamp</h1><meta itemprop="sku" content="LMP-77"><span class="price">$40.00</span><button>Add to cart</button></div>`;
    expect(readProductPage(page(loose), 'https://l.example/p/lamp').merged.sku).toBe('LMP-77');
  });

  it('data-product-sku on the buy form (Magento) or a product-reference class (PrestaShop); a price is no SKU', () => {
    const form = `<div class="product-info-main"><h1>Joust Duffle Bag</h1><span class="price">$34.00</span>
<form data-product-sku="24-MB01" action="/checkout/cart/add"><button>Add to Cart</button></form></div>
<div class="related"><form data-product-sku="24-MB99"><button>Add to Cart</button></form></div>`;
    expect(readProductPage(page(form), 'https://m2.example/joust-duffle-bag.html').merged.sku).toBe('24-MB01');
    const presta = `<div><h1>Hummingbird T-shirt</h1><span class="current-price">€23.90</span>
<div class="product-reference"><label>Reference </label><span>demo_1</span></div><button>Add to cart</button></div>`;
    expect(readProductPage(page(presta), 'https://ps.example/men/1-hummingbird.html').merged.sku).toBe('demo_1');
    const price = `<div><h1>Mug</h1><div class="product-ref-price">59.99</div><button>Add to cart</button></div>`;
    expect(readProductPage(page(price), 'https://mugs.example/p/mug').merged.sku).toBeNull();
  });
});

describe('brand classes', () => {
  it('a microdata Brand scope on a <meta> names the brand in content', () => {
    const body = `<div itemscope itemtype="http://schema.org/Product"><meta itemprop="sku" content="545642356">
<meta itemtype="http://schema.org/Brand" itemscope itemprop="brand" content="CALVIN KLEIN">
<h1 itemprop="name">Zeķes CALVIN KLEIN Brooklyn</h1><button>Pievienot grozam</button></div>`;
    expect(readProductPage(page(body, '', 'lv'), 'https://shop.example/lat/ck-brooklyn.html').merged.brand).toBe(
      'CALVIN KLEIN',
    );
  });

  it('a byline brand with digits in a words-long name counts; counts and placeholders do not', () => {
    const byline = (text: string) =>
      `<div><h1>Potato Chips</h1><a id="bylineInfo" href="/b/365">${text}</a><span class="price">$2.99</span><button>Add to Cart</button></div>`;
    expect(
      readProductPage(page(byline('Brand: 365 by Whole Foods Market')), 'https://a.example/dp/1').merged.brand,
    ).toBe('365 by Whole Foods Market');
    expect(readProductPage(page(byline('4,512 ratings')), 'https://a.example/dp/1').merged.brand).toBeNull();
    // A placeholder in a brand-classed element yields to the "Manufacturer:" row.
    const row = `<div><h1>The Movement Revisited</h1><span class="brand">Your name here</span><span class="price">$9.49</span>
<button>Add to Cart</button><ul><li><span class="a-text-bold">Manufacturer
:
</span> <span>Mack Avenue Records</span></li></ul></div>`;
    expect(readProductPage(page(row), 'https://a.example/dp/2').merged.brand).toBe('Mack Avenue Records');
  });

  it("a link to the brand's page beside the heading names the brand; one in the menu does not", () => {
    const body = (link: string) => `<nav><a href="/brand/GUESS/">GUESS</a></nav>
<div class="product"><h1>Soma Rosso</h1>${link}<span class="price">110,00 €</span><button>Add to cart</button></div>`;
    expect(
      readProductPage(
        page(body('<a href="/lat/brand/MONNALISA/" title="MONNALISA"><img src="/b.png" alt="MONNALISA"></a>')),
        'https://shop.example/p/1',
      ).merged.brand,
    ).toBe('MONNALISA');
    expect(readProductPage(page(body('')), 'https://shop.example/p/1').merged.brand).toBeNull();
  });
});

describe('currency of an ambiguous mark, from the page itself', () => {
  const shown = (lang: string | null, price: string, head = '') =>
    `<!DOCTYPE html><html${lang ? ` lang="${lang}"` : ''}><head><title>t</title>${head}</head><body><div class="product"><h1>Blue Lamp</h1><span class="price">${price}</span><button>Add to cart</button></div></body></html>`;
  it.each([
    ['en-CA', '$25.00', '', 'CAD'],
    ['es-MX', '$250.00', '', 'MXN'],
    ['zh-TW', '$250', '', 'TWD'],
    ['zh-HK', '$250', '', 'HKD'],
    ['es-CL', '$2.500', '', 'CLP'],
    [null, '$25.00 CAD', '', 'CAD'],
    [null, '$25.00', '<meta property="og:price:currency" content="CAD">', 'CAD'],
    ['sv', '250 kr', '', 'SEK'],
    ['da', '250 kr.', '', 'DKK'],
    ['en-ZA', 'R 250.00', '', 'ZAR'],
    ['en-PK', 'Rs 2,500', '', 'PKR'],
  ])('lang %s, "%s" %s -> %s (caller default: us)', (lang, price, head, currency) => {
    const { merged } = readProductPage(shown(lang, price, head), 'https://x.example/products/lamp', {
      countryCode: 'us',
    });
    expect(merged.currency).toBe(currency);
  });
});

describe('the price as shown to pay inside one price element', () => {
  const shown = (inner: string) =>
    `<!DOCTYPE html><html lang="en-US"><head><title>t</title></head><body><div class="product"><h1>Blue Lamp</h1>${inner}<button>Add to cart</button></div></body></html>`;
  it.each([
    ['superscript cents', '<span class="price"><sup>$</sup>25<sup>99</sup></span>', 25.99],
    ['a struck-through part in the same box', '<div class="price"><s>$50.00</s> $40.00</div>', 40],
    [
      'a Shopify "money" span beside a unit price',
      '<span class="money">$40.00</span> <span class="unit-price">$8.00/oz</span>',
      40,
    ],
    [
      'a box whose only amount is struck through',
      '<div class="price"><del>$50.00</del></div><div class="now">$40.00</div>',
      40,
    ],
  ])('%s', (_, inner, price) => {
    expect(readProductPage(shown(inner), 'https://x.example/products/lamp', { countryCode: 'us' }).merged.price).toBe(
      price,
    );
  });
});

describe('brand as pages state it', () => {
  const ldScript = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
  const product = (extra: Record<string, unknown>) => ({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: 'Blue Lamp',
    offers: { '@type': 'Offer', price: '40', priceCurrency: 'USD' },
    ...extra,
  });
  const shown = (inner: string, head = '') =>
    page(
      `<div class="product"><h1>Blue Lamp</h1><span class="price">$40.00</span>${inner}<button>Add to cart</button></div>`,
      head,
    );
  it.each([
    ['a loose <meta itemprop=brand>', shown(''), '<meta itemprop="brand" content="Acme">'],
    ['a loose itemprop=brand span', shown('<span itemprop="brand">Acme</span>'), ''],
    ['"Brand:" with the value inside the same element', shown('<p>Brand: <a href="/b/acme">Acme</a></p>'), ''],
    [
      'JSON-LD manufacturer when no brand',
      shown(''),
      ldScript(product({ manufacturer: { '@type': 'Organization', name: 'Acme' } })),
    ],
    [
      'JSON-LD brand by @id reference to a Brand node',
      shown(''),
      ldScript(product({ brand: { '@type': 'Brand', '@id': '#b' } })) +
        ldScript({ '@context': 'https://schema.org', '@type': 'Brand', '@id': '#b', name: 'Acme' }),
    ],
  ])('%s', (_, html, head) => {
    const doc = head ? html.replace('</head>', `${head}</head>`) : html;
    expect(readProductPage(doc, 'https://shop.example/products/lamp').merged.brand).toBe('Acme');
  });
});

describe('brand sources that disagree', () => {
  it("the one the product's title writes wins over trust order; otherwise trust order", () => {
    const ld = `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Acme Terrex slides', brand: { '@type': 'Brand', name: 'Acme Outdoor Performance' }, offers: { '@type': 'Offer', price: '30', priceCurrency: 'EUR' } })}</script>`;
    const og = (brand: string) => `<meta property="og:brand" content="${brand}">`;
    const body = '<h1>ACME Terrex slides</h1><button>Add to cart</button>';
    expect(readProductPage(page(body, ld + og('Acme')), 'https://z.example/p/1').merged.brand).toBe('Acme');
    // Neither in the title: the most trusted source.
    expect(readProductPage(page(body, ld + og('Zeta')), 'https://z.example/p/1').merged.brand).toBe(
      'Acme Outdoor Performance',
    );
  });
});

describe('markup that disagrees with the price the page shows', () => {
  const ld = (price: string) =>
    `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Blue Lamp', offers: { '@type': 'Offer', price, priceCurrency: 'USD' } })}</script>`;
  const og = (amount: string) =>
    `<meta property="product:price:amount" content="${amount}"><meta property="product:price:currency" content="USD">`;
  const shown = (inner: string) =>
    `<div class="product">\n<h1>Blue Lamp</h1>\n${inner}\n<button>Add to cart</button></div>`;
  it.each([
    ['JSON-LD price the page never shows', '<span class="price">$40.00</span>', ld('50.00'), 40, null],
    ['JSON-LD in minor units', '<span class="price">$40.00</span>', ld('4000'), 40, null],
    ['JSON-LD with a dot for thousands', '<span class="price">$1,299.00</span>', ld('1.299'), 1299, null],
    ['og:price the page never shows', '<span class="price">$40.00</span>', og('50.00'), 40, null],
    [
      'a bare <s> beside the price names the markup price as regular',
      '<span class="price">$40.00</span> <s>$50.00</s>',
      ld('50.00'),
      40,
      50,
    ],
    [
      'a "price-old" part inside the price box',
      '<div class="price"><span class="price-old">$50.00</span></div><div class="price-new">$40.00</div>',
      ld('50.00'),
      40,
      50,
    ],
    ['markup the page shows stays', '<span class="price">$40.00</span>', ld('40.00'), 40, null],
  ])('%s', (_, inner, head, price, compareAt) => {
    const { merged } = readProductPage(page(shown(inner), head), 'https://x.example/products/lamp', {
      countryCode: 'us',
    });
    expect([merged.price, merged.compareAt]).toEqual([price, compareAt]);
  });
});

describe("every supported country's currency, from a typical shown price", () => {
  // country -> [page language tag, a price as shops there write it, currency]
  const COUNTRY_PRICES: Record<string, [string, string, string]> = {
    nl: ['nl-NL', '€ 25,00', 'EUR'],
    ca: ['en-CA', '$25.00', 'CAD'],
    si: ['sl-SI', '25,00 €', 'EUR'],
    co: ['es-CO', '$ 25.000', 'COP'],
    by: ['ru-BY', '25,00 р.', 'BYN'],
    ee: ['et-EE', '25,00 €', 'EUR'],
    no: ['nb-NO', '250,00 kr', 'NOK'],
    br: ['pt-BR', 'R$ 25,00', 'BRL'],
    us: ['en-US', '$25.00', 'USD'],
    de: ['de-DE', '25,00 €', 'EUR'],
    es: ['es-ES', '25,00 €', 'EUR'],
    vn: ['vi-VN', '250.000 ₫', 'VND'],
    il: ['he-IL', '₪25.00', 'ILS'],
    th: ['th-TH', '฿250', 'THB'],
    gb: ['en-GB', '£25.00', 'GBP'],
    ph: ['en-PH', '₱250.00', 'PHP'],
    kg: ['ky-KG', '250 сом', 'KGS'],
    in: ['en-IN', '₹2,500', 'INR'],
    ru: ['ru-RU', '2 500 ₽', 'RUB'],
    fr: ['fr-FR', '25,00 €', 'EUR'],
    hk: ['zh-HK', 'HK$250', 'HKD'],
    ua: ['uk-UA', '250 грн', 'UAH'],
    jp: ['ja-JP', '¥2,500', 'JPY'],
    at: ['de-AT', '€ 25,00', 'EUR'],
    mm: ['my-MM', '25,000 Ks', 'MMK'],
    my: ['ms-MY', 'RM25.00', 'MYR'],
    pl: ['pl-PL', '25,00 zł', 'PLN'],
    au: ['en-AU', '$25.00', 'AUD'],
    nz: ['en-NZ', '$25.00', 'NZD'],
    ro: ['ro-RO', '25,00 lei', 'RON'],
    tw: ['zh-TW', 'NT$250', 'TWD'],
    mx: ['es-MX', '$250.00', 'MXN'],
    id: ['id-ID', 'Rp 250.000', 'IDR'],
    dk: ['da-DK', '250,00 kr.', 'DKK'],
    ng: ['en-NG', '₦2,500', 'NGN'],
    ch: ['de-CH', 'CHF 25.00', 'CHF'],
    hu: ['hu-HU', '2 500 Ft', 'HUF'],
    sg: ['en-SG', '$25.00', 'SGD'],
    sa: ['ar-SA', '25 ر.س', 'SAR'],
    ae: ['ar-AE', '25 د.إ', 'AED'],
    cn: ['zh-CN', '¥250', 'CNY'],
    ar: ['es-AR', '$ 2.500', 'ARS'],
    cl: ['es-CL', '$2.500', 'CLP'],
    it: ['it-IT', '25,00 €', 'EUR'],
    tr: ['tr-TR', '25,00 TL', 'TRY'],
    lv: ['lv-LV', '25,00 €', 'EUR'],
    gh: ['en-GH', 'GH₵25.00', 'GHS'],
    sk: ['sk-SK', '25,00 €', 'EUR'],
    gr: ['el-GR', '25,00 €', 'EUR'],
    eg: ['ar-EG', '250 ج.م', 'EGP'],
    lu: ['fr-LU', '25,00 €', 'EUR'],
    bg: ['bg-BG', '25,00 лв.', 'BGN'],
    se: ['sv-SE', '250 kr', 'SEK'],
    lt: ['lt-LT', '25,00 €', 'EUR'],
    lk: ['si-LK', 'Rs. 2,500', 'LKR'],
    kz: ['kk-KZ', '2 500 ₸', 'KZT'],
    hr: ['hr-HR', '25,00 €', 'EUR'],
    bd: ['bn-BD', '৳2,500', 'BDT'],
    kr: ['ko-KR', '25,000원', 'KRW'],
    cz: ['cs-CZ', '250 Kč', 'CZK'],
    fi: ['fi-FI', '25,00 €', 'EUR'],
    ie: ['en-IE', '€25.00', 'EUR'],
    be: ['nl-BE', '€ 25,00', 'EUR'],
    pt: ['pt-PT', '25,00 €', 'EUR'],
    za: ['en-ZA', 'R25.00', 'ZAR'],
  };
  it.each(Object.entries(COUNTRY_PRICES))(
    '%s: from the page language, and from the request country',
    (cc, [lang, price, currency]) => {
      const shown = (withLang: boolean) =>
        `<!DOCTYPE html><html${withLang ? ` lang="${lang}"` : ''}><head><title>t</title></head><body><div class="product"><h1>Blue Lamp</h1><span class="price">${price}</span><button>Add to cart</button></div></body></html>`;
      const byLang = readProductPage(shown(true), 'https://x.example/products/lamp', { countryCode: 'us' }).merged;
      const byCountry = readProductPage(shown(false), 'https://x.example/products/lamp', { countryCode: cc }).merged;
      expect([byLang.currency, byCountry.currency]).toEqual([currency, currency]);
      expect(byLang.price).toBeGreaterThan(0);
    },
  );
});

describe('a SKU stated in the details below the buy box', () => {
  const doc = (body: string) =>
    `<!DOCTYPE html><html lang="en-US"><head><title>t</title></head><body>${body}</body></html>`;
  it.each([
    [
      'a "SKU:" line in a details tab',
      `<div class="top"><div class="buy"><h1>Blue Lamp</h1><span class="price">$40.00</span><button>Add to cart</button></div></div><div class="tabs"><div class="tab-details"><ul><li>Material: steel</li><li>SKU: BL-100</li></ul></div></div>`,
      'BL-100',
    ],
    [
      'an "Item number" row in a specifications table',
      `<div class="gallery"><h1>Blue Lamp</h1></div><div class="buy"><span class="price">$40.00</span><button>Add to cart</button></div><section id="details"><table><tr><td>Item number</td><td>BL-100</td></tr></table></section>`,
      'BL-100',
    ],
    [
      'not a related card nor the footer',
      `<div class="buy"><h1>Blue Lamp</h1><span class="price">$40.00</span><button>Add to cart</button></div><div class="related-products"><div class="card">SKU: XX-999</div></div><footer>Ref. 2024-01</footer>`,
      null,
    ],
    [
      'not a coupon code',
      `<div class="buy"><h1>Lampada blu</h1><span class="price">40,00 €</span><button>Aggiungi al carrello</button></div><div class="promo-box"><span>Inserisci il codice EE5BKKRB al momento del pagamento.</span></div>`,
      null,
    ],
  ])('%s', (_, body, sku) => {
    expect(readProductPage(doc(body), 'https://x.example/products/lamp').merged.sku).toBe(sku);
  });

  it('an identifier in the URL comes first', () => {
    const body = `<div class="buy"><h1>Blue Lamp</h1><span class="price">$40.00</span><button>Add to cart</button></div><div class="details">SKU: BL-100</div>`;
    const { merged } = readProductPage(doc(body), 'https://www.amazon.com/dp/B07FW264WL');
    expect([merged.sku, merged.provenance.sku]).toEqual(['B07FW264WL', 'url']);
  });
});

describe('several Products in the markup', () => {
  it("related products marked up before the page's own: the one the heading names is the product", () => {
    const prod = (name: string, sku: string, price: string) => ({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name,
      sku,
      brand: { '@type': 'Brand', name: name.split(' ')[0] },
      offers: { '@type': 'Offer', price, priceCurrency: 'USD' },
    });
    const html = page(
      '<div class="product"><h1>Blue Lamp</h1><span class="price">$40.00</span><button>Add to cart</button></div>',
      `<script type="application/ld+json">${JSON.stringify([prod('Red Chair', 'RC-1', '99.00'), prod('Blue Lamp', 'BL-100', '40.00')])}</script>`,
    );
    const { merged } = readProductPage(html, 'https://x.example/products/lamp');
    expect([merged.title, merged.sku, merged.brand, merged.price]).toEqual(['Blue Lamp', 'BL-100', 'Blue', 40]);
  });
});

describe('product SKU from its variants', () => {
  it('the variant the canonical URL selects, or the only variant; several and none selected: unknown', () => {
    const variants = [
      { id: '11', sku: 'T-S', options: [['Size', 'S']] as Array<[string, string]> },
      { id: '12', sku: 'T-M', options: [['Size', 'M']] as Array<[string, string]> },
    ];
    const merge = (url: string | null, vs = variants) =>
      mergeCandidates([{ source: 'json_ld', title: 'Tee', url, variants: vs }], null).sku;
    expect(merge('https://s.example/products/tee?variant=12')).toBe('T-M');
    expect(merge(null, variants.slice(0, 1))).toBe('T-S');
    expect(merge('https://s.example/products/tee')).toBeNull();
  });
});

describe('event pages', () => {
  const event = `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'MusicEvent', name: 'Lina de Lima (streaming)', startDate: '2021-03-20T21:00' })}</script>`;
  it('an event sold on the page (a price and a buy control) is a product page; one only announced is not', () => {
    const sold = page(
      '<div class="evento"><h1>Lina de Lima (streaming)</h1><p class="precio">$3.340</p><button>Comprar</button></div>',
      event,
      'es-CL',
    );
    const r = readProductPage(sold, 'https://tickets.example/evento/lina-de-lima', { countryCode: 'cl' });
    expect([r.classification.isProduct, r.merged.price, r.merged.currency]).toEqual([true, 3340, 'CLP']);
    const announced = page(
      '<div class="evento"><h1>Lina de Lima (streaming)</h1><p>20 de marzo, 21:00</p></div>',
      event,
      'es-CL',
    );
    expect(readProductPage(announced, 'https://tickets.example/evento/lina-de-lima').classification.isProduct).toBe(
      false,
    );
  });
});

describe('SKU labels and values beyond English markup', () => {
  const shop = (summary: string, lang: string, head = '') =>
    page(
      `<header><a class="logo" href="/">Shop</a></header><main><h1>Electric Kettle</h1>${summary}<button class="add-to-cart">Buy</button></main>`,
      head,
      lang,
    );
  const skuOf = (html: string) => readProductPage(html, 'https://shop.example/p/kettle').merged.sku;

  it.each([
    ['ru', '<p>3 999 ₽</p><div><span>Артикул:</span> <span>48213-K</span></div>', '48213-K'],
    ['ja', '<p>¥3,999</p><p>品番：AK-1700</p>', 'AK-1700'],
    ['zh-CN', '<p>¥399.00</p><p>商品编号：100012345678</p>', '100012345678'],
    ['pl', '<p>39,99 zł</p><p>Kod produktu: AK1700</p>', 'AK1700'],
    ['tr', '<p>399,99 TL</p><p>Ürün Kodu: AK1700</p>', 'AK1700'],
    ['cs', '<p>399 Kč</p><p>Kód produktu: AK1700</p>', 'AK1700'],
    ['hu', '<p>3 999 Ft</p><p>Cikkszám: AK1700</p>', 'AK1700'],
    ['el', '<p>39,99 €</p><p>Κωδικός: AK1700</p>', 'AK1700'],
    ['vi', '<p>399.000₫</p><p>Mã sản phẩm: AK1700</p>', 'AK1700'],
  ])('a %s label names the SKU', (lang, summary, sku) => {
    expect(skuOf(shop(summary, lang))).toBe(sku);
  });

  it('a coupon code after a word is no label ("Промокод: SAVE10")', () => {
    expect(skuOf(shop('<p>3 999 ₽</p><p>Промокод: SAVE10</p>', 'ru'))).toBeNull();
  });

  it('itemprop=sku content on any element, <meta name=sku>, og:product:sku', () => {
    expect(skuOf(shop('<p>$39.99</p><span itemprop="sku" content="AK-1700"></span>', 'en'))).toBe('AK-1700');
    expect(skuOf(shop('<p>$39.99</p>', 'en', '<meta name="sku" content="AK-1701">'))).toBe('AK-1701');
    expect(
      skuOf(
        shop(
          '<p>$39.99</p>',
          'en',
          '<meta property="og:type" content="product"><meta property="og:product:sku" content="AK-1702">',
        ),
      ),
    ).toBe('AK-1702');
  });

  it("a buy form's hidden sku field; a related card's is not the product's", () => {
    expect(
      skuOf(
        shop(
          '<p>$39.99</p><form action="/cart/add"><input type="hidden" name="product_sku" value="AK-1703"></form>',
          'en',
        ),
      ),
    ).toBe('AK-1703');
    expect(
      skuOf(
        page(
          '<main><h1>Electric Kettle</h1><p>$39.99</p><button class="add-to-cart">Buy</button></main><section class="related-products"><h2>You may also like</h2><form><input type="hidden" name="sku" value="OTHER-1"></form></section>',
        ),
      ),
    ).toBeNull();
  });

  it('a label written into the value is cut; a value that is only a label is none', () => {
    expect(cleanSku('SKU: AK-1700')).toBe('AK-1700');
    expect(cleanSku('  Item # 48213 ')).toBe('48213');
    expect(cleanSku('Артикул: 5521-b')).toBe('5521-b');
    expect(cleanSku('SKU 12345')).toBe('12345');
    expect(cleanSku('SKUX-100')).toBe('SKUX-100');
    expect(cleanSku('REF-2231')).toBe('REF-2231');
    expect(cleanSku('-')).toBeNull();
    const ld = `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Electric Kettle', sku: 'SKU: AK-1700', offers: { '@type': 'Offer', price: '39.99', priceCurrency: 'USD' } })}</script>`;
    expect(skuOf(shop('<p>$39.99</p>', 'en', ld))).toBe('AK-1700');
  });
});

describe('a volume is no price', () => {
  it('"1.7 L" in the heading is no lempira amount; a one-letter mark is money where it is the country\'s currency', () => {
    const html = (h1: string, lang = 'en') =>
      page(`<main><h1>${h1}</h1><p>$39.99</p><button class="add-to-cart">Add to cart</button></main>`, '', lang);
    const read = (h: string, country?: string) =>
      readProductPage(h, 'https://shop.example/p/kettle', { countryCode: country }).merged;
    expect([read(html('Electric Kettle 1.7 L')).price, read(html('Electric Kettle 1.7 L')).currency]).toEqual([
      39.99,
      'USD',
    ]);
    const volumeOnly = page(
      '<main><h1>Electric Kettle</h1><p>Capacity 2 L</p><p>R 450.00</p><button class="add-to-cart">Add to cart</button></main>',
      '',
      'en-ZA',
    );
    // A rand price on a South African page is one.
    expect([read(volumeOnly).price, read(volumeOnly).currency]).toEqual([450, 'ZAR']);
  });
});

describe('currency of "$" from where the page says it is written for', () => {
  const shop = (head: string, lang = 'en') =>
    page(
      '<main><h1>Electric Kettle</h1><p>$39.99</p><button class="add-to-cart">Add to cart</button></main>',
      head,
      lang,
    );
  const currency = (html: string, country = 'us') =>
    readProductPage(html, 'https://shop.example/p/kettle', { countryCode: country }).merged.currency;

  it("og:locale's region, or the region of the hreflang alternate that is the page itself", () => {
    expect(currency(shop('<meta property="og:locale" content="en_AU">'))).toBe('AUD');
    expect(
      currency(
        shop(
          '<link rel="alternate" hreflang="en-au" href="https://shop.example/au/p/kettle"><link rel="alternate" hreflang="en-nz" href="https://shop.example/p/kettle">',
        ),
      ),
    ).toBe('NZD');
    // The html lang's region comes first.
    expect(currency(shop('<meta property="og:locale" content="en_AU">', 'en-CA'))).toBe('CAD');
  });

  it('"en_US", many platforms\' default, says nothing: the caller\'s country decides', () => {
    expect(pageRegionCountry('en_US', null)).toBeNull();
    expect(pageRegionCountry('es_US', null)).toBe('us');
    expect(pageRegionCountry(null, 'en-nz')).toBe('nz');
    expect(currency(shop('<meta property="og:locale" content="en_US">'), 'ca')).toBe('CAD');
  });

  it("the currency selector's selected option, and a data-currency attribute on the price element", () => {
    const body = (price: string, extra = '') =>
      page(`<main><h1>Electric Kettle</h1>${price}<button class="add-to-cart">Add to cart</button>${extra}</main>`);
    expect(
      currency(
        body(
          '<div class="price"><span class="amount">$39.99</span></div>',
          '<select name="currency"><option value="USD">USD</option><option value="CAD" selected>CAD</option></select>',
        ),
      ),
    ).toBe('CAD');
    expect(currency(body('<div class="price" data-currency="NZD"><span class="amount">$39.99</span></div>'))).toBe(
      'NZD',
    );
    expect(currency(body('<div class="price"><span class="amount">$39.99</span></div>'))).toBe('USD');
  });

  it("a store's settings object with a nested currency code (WooCommerce wcSettings)", () => {
    expect(
      currency(shop('<script>var wcSettings = {"currency":{"code":"NZD","precision":2,"symbol":"$"}};</script>')),
    ).toBe('NZD');
  });
});

describe('the variant the address selects', () => {
  const v = (id: string, sku: string, url?: string) => ({
    id,
    sku,
    url: url ?? null,
    options: [['Size', sku.slice(-1)]] as Array<[string, string]>,
  });
  const variants = [
    v('11', 'T-S', 'https://s.example/coat?size=small&color=green'),
    v('12', 'T-L', 'https://s.example/coat?color=green&size=large'),
  ];

  it("by ?variant=, by a query value that is one variant's SKU or id, or by the variant's own URL", () => {
    expect(selectedVariant(variants, ['https://s.example/coat?variant=12'])?.sku).toBe('T-L');
    expect(selectedVariant(variants, ['https://s.example/coat?childSku=t-s'])?.sku).toBe('T-S');
    expect(selectedVariant(variants, ['https://s.example/coat?size=large&color=green'])?.sku).toBe('T-L');
    expect(selectedVariant(variants, ['https://s.example/coat'])).toBeNull();
    expect(selectedVariant(variants, ['https://s.example/coat?utm_source=x'])).toBeNull();
  });

  it('by query values that name every option value of one variant (WooCommerce attribute_pa_*)', () => {
    const woo = [
      {
        id: '7',
        sku: 'W-RED-M',
        options: [
          ['Colour', 'Dark Red'],
          ['Size', 'M'],
        ] as Array<[string, string]>,
      },
      {
        id: '8',
        sku: 'W-RED-L',
        options: [
          ['Colour', 'Dark Red'],
          ['Size', 'L'],
        ] as Array<[string, string]>,
      },
    ];
    const at = (q: string) => selectedVariant(woo, [`https://w.example/product/tee/?${q}`])?.sku ?? null;
    expect(at('attribute_pa_colour=dark-red&attribute_pa_size=l')).toBe('W-RED-L');
    expect(at('attribute_pa_colour=dark-red')).toBeNull();
  });

  it('gives the page its price when the page shows it; a price the page does not show is not taken', () => {
    const vs = [
      { id: '1', sku: 'C-S', price: 20, currency: 'USD', options: [['Size', 'S']] as Array<[string, string]> },
      { id: '2', sku: 'C-L', price: 25, currency: 'USD', options: [['Size', 'L']] as Array<[string, string]> },
    ];
    const html = (shown: string) =>
      page(
        `<main><h1>Coat</h1><span class="price">${shown}</span><button class="add-to-cart">Add to cart</button></main>`,
      );
    const r = (shown: string) => {
      const url = 'https://s.example/coat?size=l';
      const analysis = readProductPage(html(shown), url).analysis;
      return mergeCandidates(
        [{ source: 'json_ld', title: 'Coat', price: 20, currency: 'USD', variants: vs }, ...analysis.candidates],
        analysis.dom,
        null,
        url,
      );
    };
    expect([r('$25.00').sku, r('$25.00').price]).toEqual(['C-L', 25]);
    expect(r('$20.00').price).toBe(20);
  });

  it("Shopify's analytics object: the ?variant= one's SKU among several", () => {
    const html = page(
      '<main><h1>Tee</h1><span class="price">$20.00</span><button class="add-to-cart">Add to cart</button></main><script>var meta = {"product":{"id":9,"vendor":"Acme","variants":[{"id":41,"sku":"TEE-S"},{"id":42,"sku":"TEE-M"}]}};</script>',
    );
    const sku = (url: string) => readProductPage(html, url).merged.sku;
    expect(sku('https://s.example/products/tee?variant=42')).toBe('TEE-M');
    expect(sku('https://s.example/products/tee')).toBeNull();
  });

  it("overrides a product-level SKU (a group's id) when the URL selects a variant", () => {
    const merged = mergeCandidates(
      [{ source: 'json_ld', title: 'Coat', sku: '44E01', variants }],
      null,
      null,
      'https://s.example/coat?color=green&size=large',
    );
    expect(merged.sku).toBe('T-L');
    expect(
      mergeCandidates(
        [{ source: 'json_ld', title: 'Coat', sku: '44E01', variants }],
        null,
        null,
        'https://s.example/coat',
      ).sku,
    ).toBe('44E01');
  });
});

describe('identifiers in addresses of other carts', () => {
  it('osCommerce products_id (query or path pair), goods_id, a long id leading the last segment; a year or short number is none', () => {
    expect(identifierFromUrl('https://shop.example/product_info.php?products_id=66868')).toBe('66868');
    expect(identifierFromUrl('https://shop.example/product_info.php/products_id/103066')).toBe('103066');
    expect(identifierFromUrl('https://shop.example/goods.php?goods_id=20931')).toBe('20931');
    expect(identifierFromUrl('https://auction.example/item/93133869_vintage-pillows')).toBe('93133869');
    expect(identifierFromUrl('https://shop.example/products/2021-summer-tee')).toBeNull();
    expect(identifierFromUrl('https://shop.example/products/tee/size/42')).toBeNull();
  });
});

describe('was and instalment labels in other languages', () => {
  const shop = (body: string, lang: string) =>
    page(`<main><h1>Electric Kettle</h1>${body}<button class="add-to-cart">Add to cart</button></main>`, '', lang);
  it.each([
    [
      'de-DE',
      '<div class="box"><span>Vorher</span> <span class="price">99,00 €</span> <span class="price">79,00 €</span></div>',
      79,
      99,
    ],
    [
      'pl',
      '<div class="box"><span>Poprzednia cena:</span> <span class="price">199,00 zł</span> <span class="price">149,00 zł</span></div>',
      149,
      199,
    ],
    [
      'es-MX',
      '<div class="box"><span>12 meses sin intereses de</span> <span class="price">$83.25</span> <span class="price">$999.00</span></div>',
      999,
      null,
    ],
    [
      'tr',
      '<div class="box"><span>Taksit seçenekleri: 3 taksit</span> <span class="price">33,33 TL</span></div><div><span class="price">99,99 TL</span></div>',
      99.99,
      null,
    ],
    [
      'pt-BR',
      '<div class="box"><span class="price">R$ 149,90</span> <span>ou 10x de</span> <span class="price">R$ 14,99</span></div>',
      149.9,
      null,
    ],
  ])('%s: the price paid, not the was or instalment amount', (lang, body, price, compareAt) => {
    const m = readProductPage(shop(body, lang), 'https://shop.example/p/kettle').merged;
    expect([m.price, m.compareAt]).toEqual([price, compareAt]);
  });
});

describe('markup of another product: a recommendation marked up while the page product is not', () => {
  const buy = '<form action="/cart/add" method="post"><button type="submit">Add to cart</button></form>';
  const card = (name: string, sku: string, price: string) =>
    `<div itemscope itemtype="https://schema.org/Product"><a href="/p/${sku}"><span itemprop="name">${name}</span></a><meta itemprop="sku" content="${sku}"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="${price}">$${price}</span><meta itemprop="priceCurrency" content="USD"></div></div>`;
  const ld = (v: unknown) => `<script type="application/ld+json">${JSON.stringify(v)}</script>`;
  const product = '<div class="product"><h1>Trail Runner Jacket</h1><p class="price">$89.00</p><p>SKU: TRJ-410</p>';

  it.each([
    [
      'a microdata card before the product, in a block headed "Customers also bought"',
      `<div class="recs"><h3>Customers also bought</h3>${card('Wool Beanie', 'WB-1', '19.00')}</div>${product}${buy}</div>`,
      '',
    ],
    [
      'microdata cards after the product in a carousel',
      `${product}${buy}</div><section class="carousel"><h2>Similar items</h2>${card('Wool Beanie', 'WB-1', '19.00')}${card('Rain Pants', 'RP-2', '49.00')}</section>`,
      '',
    ],
    [
      'JSON-LD naming only a recommended product',
      `${product}${buy}</div>`,
      ld({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: 'Wool Beanie',
        sku: 'WB-1',
        brand: 'Hatters',
        offers: { '@type': 'Offer', price: '19.00', priceCurrency: 'USD' },
      }),
    ],
  ])('%s: its SKU, title, brand and price are not the page product', (_, body, head) => {
    const m = readProductPage(page(body, head), 'https://shop.example/p/trail-runner-jacket').merged;
    expect([m.title, m.sku, m.price, m.brand]).toEqual(['Trail Runner Jacket', 'TRJ-410', 89, null]);
  });

  it('markup of the page product stays: a shared word, its own address, or its price shown', () => {
    const named = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Jacket Trail Runner (men)',
      sku: 'TRJ-9',
      offers: { '@type': 'Offer', price: '89.00', priceCurrency: 'USD' },
    });
    expect(readProductPage(page(`${product}${buy}</div>`, named), 'https://shop.example/p/x').merged.sku).toBe('TRJ-9');
    // Another language's name, but the price the page shows.
    const foreign = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Veste de course',
      sku: 'TRJ-9',
      offers: { '@type': 'Offer', price: '89.00', priceCurrency: 'USD' },
    });
    expect(readProductPage(page(`${product}${buy}</div>`, foreign), 'https://shop.example/p/x').merged.sku).toBe(
      'TRJ-9',
    );
    // Another name and price, but the page's own address.
    const own = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Veste',
      url: 'https://shop.example/p/x',
      sku: 'TRJ-9',
      offers: { '@type': 'Offer', price: '95.00', priceCurrency: 'USD' },
    });
    expect(readProductPage(page(`${product}${buy}</div>`, own), 'https://shop.example/p/x').merged.sku).toBe('TRJ-9');
  });
});

describe('net and gross prices: the one shoppers pay (tax included) wins', () => {
  const shop = (body: string, lang: string) =>
    page(`<main><h1>Office Chair</h1>${body}<button class="add-to-cart">Add to cart</button></main>`, '', lang);
  it.each([
    ['en-IE', '<p class="price">€100,00 excl. VAT</p><p class="price">€123,00 incl. VAT</p>', 123],
    [
      'de-DE',
      '<p class="price">84,03 € <small>zzgl. MwSt.</small></p><p class="price">100,00 € <small>inkl. MwSt.</small></p>',
      100,
    ],
    ['fr-FR', '<p class="price">83,33 € HT</p><p class="price">100,00 € TTC</p>', 100],
    ['en-GB', '<p class="price">£100.00 + VAT</p><p class="price">£120.00</p>', 120],
    ['ja-JP', '<p class="price">¥10,000 税抜</p><p class="price">¥11,000 税込</p>', 11000],
  ])('%s', (lang, body, price) => {
    expect(readProductPage(shop(body, lang), 'https://shop.example/p/chair').merged.price).toBe(price);
  });
  it('a page showing only a net price still has that price', () => {
    expect(
      readProductPage(shop('<p class="price">€100,00 excl. VAT</p>', 'en-IE'), 'https://shop.example/p/chair').merged
        .price,
    ).toBe(100);
  });
});

describe('SKU placeholders and non-identifiers in markup yield to the next source', () => {
  const ld = (sku: unknown) =>
    `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Desk Lamp', sku, offers: { '@type': 'Offer', price: '30.00', priceCurrency: 'USD' } })}</script>`;
  const body =
    '<main><h1>Desk Lamp</h1><p class="price">$30.00</p><p>SKU: DL-300</p><button class="add-to-cart">Add to cart</button></main>';
  it.each([
    '{{ product.sku }}',
    '${sku}',
    '%SKU%',
    'N/A',
    'n/a',
    'null',
    'undefined',
    'none',
    'sku',
    '0',
    'Desk Lamp',
    'https://shop.example/p/desk-lamp',
  ])('sku %j is none: the labelled DL-300 is the SKU', (sku) => {
    expect(readProductPage(page(body, ld(sku)), 'https://shop.example/p/desk-lamp').merged.sku).toBe('DL-300');
  });
  it.each([
    ['778899', '778899'],
    ['DL 300', 'DL 300'],
    ['SKU: DL-301', 'DL-301'],
    [4006381333931, '4006381333931'],
  ])('sku %j is an identifier', (sku, want) => {
    expect(readProductPage(page(body, ld(sku)), 'https://shop.example/p/desk-lamp').merged.sku).toBe(want);
  });
  it('cleanSku and isSkuPlaceholder', () => {
    expect(isSkuPlaceholder('{{sku}}')).toBe(true);
    expect(isSkuPlaceholder('Blue Shirt')).toBe(true);
    expect(isSkuPlaceholder('AB-12')).toBe(false);
    expect(cleanSku('N/A')).toBeNull();
  });
});

describe("a shop's SKU label over the maker's model number", () => {
  const shop = (details: string) =>
    page(
      `<main><h1>Acme WP2000 Widget</h1><p class="price">$14.00</p>${details}<button class="add-to-cart">Add to cart</button></main>`,
    );
  it.each([
    ['<ul><li>Model #: WP2000</li><li>SKU: 778899</li></ul>', '778899'],
    ['<p>Model: WP2000 | Item #: 778899</p>', '778899'],
    ['<p>Article no. 778899</p>', '778899'],
    ['<p>Catalog #: 778899</p>', '778899'],
    // Only a model number, and the heading writes it: the maker's part number, no SKU.
    ['<p>Model: WP2000</p>', null],
    // Only a model number the heading does not write: the best the page says.
    ['<p>Model: ZX-77</p>', 'ZX-77'],
  ])('%s -> %s', (details, sku) => {
    expect(readProductPage(shop(details), 'https://shop.example/p/widget').merged.sku).toBe(sku);
  });
});

describe('the SKU and the price describe one variant', () => {
  const offers = (list: Array<[string, string]>) =>
    `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Flea Tablets', offers: list.map(([sku, price]) => ({ '@type': 'Offer', sku, price, priceCurrency: 'GBP' })) })}</script>`;
  const body = (shown: string) =>
    `<main><h1>Flea Tablets</h1><p class="price">${shown}</p><button class="add-to-cart">Add to basket</button></main>`;
  it("offers' SKUs without a product SKU: the SKU of the offer whose price the page shows", () => {
    const html = page(
      body('£5.29'),
      offers([
        ['FT-6', '9.56'],
        ['FT-3', '5.29'],
      ]),
    );
    const m = readProductPage(html, 'https://shop.example/p/flea').merged;
    expect([m.price, m.sku]).toEqual([5.29, 'FT-3']);
  });
  it('two offers at the shown price: the first SKU stays', () => {
    const html = page(
      body('£5.29'),
      offers([
        ['FT-6', '9.56'],
        ['FT-3', '5.29'],
        ['FT-3B', '5.29'],
      ]),
    );
    expect(readProductPage(html, 'https://shop.example/p/flea').merged.sku).toBe('FT-6');
  });
});

describe('offer properties outside any itemscope', () => {
  const shop = (extra: string) =>
    page(`<main><h1>Garden Hose</h1>${extra}<button class="add-to-cart">Add to cart</button></main>`);
  it('one itemprop=price with its priceCurrency (meta tags, no scope) is the offer', () => {
    const m = readProductPage(
      shop(
        '<meta itemprop="price" content="24.50"><meta itemprop="priceCurrency" content="CAD"><link itemprop="availability" href="https://schema.org/InStock">',
      ),
      'https://shop.example/p/hose',
    ).merged;
    expect([m.price, m.currency, m.availability, m.provenance.price]).toEqual([24.5, 'CAD', 'InStock', 'microdata']);
  });
  it('several distinct loose prices (other products), or no currency: no offer from them', () => {
    const two = shop(
      '<meta itemprop="price" content="24.50"><meta itemprop="price" content="9.00"><meta itemprop="priceCurrency" content="CAD">',
    );
    expect(readProductPage(two, 'https://shop.example/p/hose').merged.price).toBeNull();
    const bare = shop('<meta itemprop="price" content="24.50">');
    expect(readProductPage(bare, 'https://shop.example/p/hose').merged.price).toBeNull();
  });
});

describe("widgets' headings are not the product's", () => {
  const product =
    '<div class="product"><h1>Walnut Desk</h1><p class="price">$420.00</p><button class="add-to-cart">Add to cart</button></div>';
  it.each([
    ['a cart status message', '<div class="atc-status-message"><h1>Adding to cart...</h1></div>'],
    ['a popover', '<div id="a-popover-delivery"><h1>Choose your delivery</h1></div>'],
    ['a dialog', '<div role="dialog" class="cookie-dialog"><h1>Your privacy settings</h1></div>'],
    ['a hidden template', '<div class="hidden"><h1>Not added</h1></div>'],
  ])('%s before the product', (_, widget) => {
    const m = readProductPage(page(`${widget}${product}`), 'https://shop.example/p/desk').merged;
    expect([m.title, m.price]).toEqual(['Walnut Desk', 420]);
  });
  it('an "overflow-hidden" container is no hidden template', () => {
    const m = readProductPage(
      page(`<div class="overflow-hidden">${product}</div>`),
      'https://shop.example/p/desk',
    ).merged;
    expect(m.title).toBe('Walnut Desk');
  });
});

describe('a price shown as a range', () => {
  const shop = (price: string, lang = 'en') =>
    page(
      `<main><h1>Linen Shirt</h1><p class="price">${price}</p><button class="add-to-cart">Add to cart</button></main>`,
      '',
      lang,
    );
  it.each([
    ['$10.00 – $20.00', 'en', 10, { min: 10, max: 20 }],
    ['$10 - $20', 'en', 10, { min: 10, max: 20 }],
    ['10,00 € bis 20,00 €', 'de-DE', 10, { min: 10, max: 20 }],
    ['$10.00', 'en', 10, null],
  ])('%s: the lower end, the range kept', (price, lang, amount, range) => {
    const m = readProductPage(shop(price, lang), 'https://shop.example/p/shirt').merged;
    expect([m.price, m.priceRange]).toEqual([amount, range]);
  });
});
