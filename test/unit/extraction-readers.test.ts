// Readers over real corpus pages with known answers: JSON-LD (ProductGroup, isVariantOf,
// comments), microdata, OpenGraph, DOM heuristics, platform JSON, tolerant JSON, platform signals.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHtml } from '../../lambdas/domain/extraction/analyse';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { detectPlatform } from '../../lambdas/domain/extraction/platform';
import { readJsonLd } from '../../lambdas/domain/extraction/readers/jsonld';
import { readMicrodata } from '../../lambdas/domain/extraction/readers/microdata';
import { readShopifyProduct, readWooProduct } from '../../lambdas/domain/extraction/readers/platform-json';
import { parseTolerantJson } from '../../lambdas/domain/extraction/tolerant-json';
import { buildStore, STORE_SPECS, wooProduct } from '../stores';
import { CORPORA } from '../corpora';

const read = (rel: string) => {
  const raw = readFileSync(path.join(CORPORA, rel));
  return rel.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
};
const benchPage = (prefix: string) => {
  const truth = JSON.parse(read('product-extraction-benchmark/ground-truth.json')) as Record<string, { url: string }>;
  const id = Object.keys(truth).find((k) => k.startsWith(prefix))!;
  return { url: truth[id].url, html: read(`product-extraction-benchmark/html/${id}.html.gz`) };
};

describe('tolerant JSON', () => {
  it('repairs comments, trailing commas, raw newlines and HTML comment wrappers', () => {
    expect(parseTolerantJson('{\n // note\n "a": 1, /* b */ "b": [1,2,],\n}')).toEqual({ a: 1, b: [1, 2] });
    expect(parseTolerantJson('<!-- {"name": "line\none"} -->')).toEqual({ name: 'line\none' });
    expect(parseTolerantJson('{&quot;x&quot;: 2}')).toEqual({ x: 2 });
    expect(parseTolerantJson('{"a": 1} trailing junk')).toEqual({ a: 1 });
    expect(parseTolerantJson('not json at all')).toBeNull();
  });

  it('recovers the extruct samples with JS comments and control characters', () => {
    for (const name of [
      'JSONLD_with_JS_comment',
      'JSONLD_with_control_characters',
      'JSONLD_with_control_characters_comment',
    ]) {
      const $ = loadHtml(read(`extruct-samples/custom.invalid/${name}.html`));
      const expected = JSON.parse(read(`extruct-samples/custom.invalid/${name}.jsonld`));
      const blocks = $('script[type="application/ld+json"]')
        .toArray()
        .map((el) => parseTolerantJson($(el).text()));
      expect(blocks.filter(Boolean).length).toBe(Array.isArray(expected) ? expected.length : 1);
    }
  });
});

describe('JSON-LD', () => {
  it('reads a ProductGroup with hasVariant and variesBy (Google sample)', () => {
    const $ = loadHtml(read('google-product-variants/single-page-nested.html'));
    const { product } = readJsonLd($, 'https://www.example.com/coat');
    expect(product!.title).toBe('Wool winter coat');
    expect(product!.brand).toBe('Good brand');
    expect(product!.options).toEqual([
      { name: 'size', values: ['small', 'large'] },
      { name: 'color', values: ['Green', 'light blue'] },
    ]);
    expect(product!.variants!.map((v) => [v.sku, v.price, v.availability])).toEqual([
      ['44E01-M11000', 39.99, 'InStock'],
      ['44E01-K11000', 39.99, 'InStock'],
      ['44E01-X1100000', 49.99, 'BackOrder'],
    ]);
    expect(product!.price).toBe(39.99);
    expect(product!.currency).toBe('USD');
  });

  it('reads isVariantOf products from JSON-LD with // comments and skips URL-only stubs', () => {
    const separate = readJsonLd(
      loadHtml(read('google-product-variants/single-page-separate-with-js-comments.html')),
      'https://www.example.com/coat',
    );
    expect(separate.product!.variants!.length).toBe(3);
    expect(separate.product!.variants!.map((v) => v.options)).toContainEqual([
      ['size', 'large'],
      ['color', 'light blue'],
    ]);
    const green = readJsonLd(
      loadHtml(read('google-product-variants/multi-page-separate-green.html')),
      'https://www.example.com/coat/green?size=small',
    );
    expect(green.product!.variants!.map((v) => v.sku)).toEqual(['44E01-M11000']);
  });

  it('does not treat an event ticket offer as a product', () => {
    const page = readProductPage(
      read('extruct-samples/songkick/elysianfields.html'),
      'https://www.songkick.com/concerts/elysian-fields',
    );
    expect(page.analysis.jsonLd.product).toBeNull();
    expect(page.classification.isProduct).toBe(false);
  });
});

describe('microdata', () => {
  it('reads the schema.org Executive Anvil example', () => {
    const { product } = readMicrodata(
      loadHtml(read('extruct-samples/misc/product_microdata.html')),
      'http://example.com/anvil',
    );
    expect(product!.title).toBe('Executive Anvil');
    expect(product!.price).toBe(119.99);
    expect(product!.currency).toBe('USD');
    expect(product!.availability).toBe('InStock');
  });

  it('reads several offers of a real page (3-pack and 6-pack)', () => {
    const { product } = readMicrodata(
      loadHtml(read('extruct-samples/websites/microdata-with-description.html')),
      'https://www.monsterpetsupplies.co.uk/',
    );
    expect(product!.offerPrices).toEqual(expect.arrayContaining([5.29, 9.56]));
    expect(product!.currency).toBe('GBP');
  });
});

describe('merged page readings on real retail pages', () => {
  const shopping = (name: string, url: string) =>
    readProductPage(read(`metascraper-shopping/html/${name}.html.gz`), url, { countryCode: 'us' });

  it('prefers the displayed sale price over stale JSON-LD and keeps the regular one as compare-at (rejuvenation)', () => {
    const { merged } = shopping(
      'rejuvenation',
      'https://www.rejuvenation.com/catalog/products/keystick-wall-sconce-aged-brass',
    );
    expect(merged.price).toBe(120);
    expect(merged.compareAt).toBe(150);
    expect(merged.currency).toBe('USD');
  });

  it('gives no price for a discontinued item with an empty price object (potterybarn)', () => {
    const { merged } = shopping('potterybarn', 'https://www.potterybarn.com/products/tully-sconce/');
    expect(merged.price).toBeNull();
    expect(merged.availability).toBe('OutOfStock');
  });

  it('reads OpenGraph product prices (costco) and DOM-only prices (amazon)', () => {
    expect(
      shopping(
        'costco',
        'https://www.costco.com/afa-stainless-33-inch-sink-and-semi-pro-faucet-combo.product.100432602.html',
      ).merged.price,
    ).toBe(329.99);
    expect(shopping('amazon', 'https://www.amazon.com/dp/B07G2L3JMM').merged.price).toBe(29.99);
    expect(shopping('amazon-gorilla', 'https://www.amazon.com/dp/B00N150YS4').merged.price).toBe(12.48);
  });

  it('takes the offer shown on the page when markup has several (lafeltrinelli 17.10, not 18.00)', () => {
    const page = benchPage('75cde739');
    const { merged } = readProductPage(page.html, page.url, { countryCode: 'it' });
    expect(merged.price).toBe(17.1);
    expect(merged.currency).toBe('EUR');
    expect(merged.sku).toBe('2000000043333');
  });

  it('finds the buy-box price among related-product prices (amazon.com, benchmark)', () => {
    const page = benchPage('01efbb74');
    const { merged } = readProductPage(page.html, page.url, { countryCode: 'us' });
    expect(merged.price).toBe(87.11);
    expect(merged.currency).toBe('USD');
    expect(merged.sku).toBe('B01GOH7PKA');
  });

  it('detects out of stock (amazon.com, benchmark)', () => {
    const page = benchPage('0094967f');
    expect(readProductPage(page.html, page.url, { countryCode: 'us' }).merged.availability).toBe('OutOfStock');
  });
});

describe('platform JSON', () => {
  it('reads a real Shopify /products/<handle>.js object (cents)', () => {
    const payload = JSON.parse(read('platform-json/shopify/product-js_ratio-eight.json'));
    const p = readShopifyProduct(payload, 'https://shop.example/products/ratio-eight', 'USD')!;
    expect(p.title).toBe('Ratio Eight');
    expect(p.vendor).toBe('tk-narrative');
    expect(p.price).toBe(520);
    expect(p.compareAt).toBe(600);
    expect(p.priceRange).toEqual({ min: 520, max: 600 });
    expect(p.options!.map((o) => o.name)).toEqual(['Color', 'Voltage', 'Size']);
    expect(p.variants!.length).toBe(8);
    const nickel = p.variants!.find((v) => v.sku === 'nickel110')!;
    expect(nickel.options).toEqual([
      ['Color', 'Nickel'],
      ['Voltage', '110 Volts'],
      ['Size', 'Large'],
    ]);
    expect(nickel.price).toBe(600);
    // compare_at equal to the price is not a compare-at price.
    expect(nickel.compareAt).toBeNull();
    expect(nickel.image!.url).toContain('HERO-M_ChampagneNickel.jpg');
  });

  it('reads the Shopify .json form (decimal strings)', () => {
    const payload = JSON.parse(read('platform-json/shopify/product-js_ratio-eight.json'));
    const asJson = {
      product: {
        ...payload,
        body_html: payload.description,
        variants: payload.variants.map((v: { price: number; compare_at_price: number }) => ({
          ...v,
          price: (v.price / 100).toFixed(2),
          compare_at_price: (v.compare_at_price / 100).toFixed(2),
        })),
      },
    };
    const p = readShopifyProduct(asJson, 'https://shop.example/products/ratio-eight', 'USD')!;
    expect(p.price).toBe(520);
    expect(p.variants!.find((v) => v.sku === 'white220')!.price).toBe(580);
  });

  it('reads the WooCommerce Store API product (minor-unit strings)', () => {
    const store = buildStore(STORE_SPECS.find((s) => s.flavor === 'woocommerce')!, 5, 1);
    const product = store.product(2);
    const p = readWooProduct(wooProduct(store, product), store.productUrl(2))!;
    expect(p.title).toBe(product.title);
    expect(p.price).toBe(product.price);
    expect(p.currency).toBe(product.currency);
    expect(p.availability).toBe(product.available ? 'InStock' : 'OutOfStock');
  });
});

describe('platform detection', () => {
  it('weighs signals: Shopify by header and markers, none on non-platform retail pages', () => {
    expect(
      detectPlatform('<script>Shopify.shop = "x.myshopify.com"</script><link href="https://cdn.shopify.com/s/x.css">')
        .platform,
    ).toBe('shopify');
    expect(
      detectPlatform('<html></html>', { 'x-shopid': '123', 'set-cookie': ['_shopify_y=abc; path=/'] }).platform,
    ).toBe('shopify');
    expect(
      detectPlatform('<script src="/static/version1/frontend/Magento/luma/x.js"></script><div data-mage-init="{}">')
        .platform,
    ).toBe('magento');
    expect(detectPlatform('<link href="/on/demandware.static/Sites-x/css.css">').platform).toBe(
      'salesforce_commerce_cloud',
    );
    for (const name of ['overstock', 'costco', 'etsy', 'wayfair']) {
      expect(detectPlatform(read(`metascraper-shopping/html/${name}.html.gz`)).platform, name).toBeNull();
    }
  });
});
