// From merged readings to the spec's full product record: every field present, flags, ids,
// image de-duplication, sanitised description, variants and options; and the page classifier.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { dedupeImages, mergeCandidates } from '../../lambdas/domain/extraction/merge';
import { normaliseProduct, sanitizeDescriptionHtml } from '../../lambdas/domain/extraction/normalise';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { identifierFromUrl, urlKind } from '../../lambdas/domain/extraction/product-url';
import { readShopifyProduct } from '../../lambdas/domain/extraction/readers/platform-json';
import type { ExtractOptions } from '../../lambdas/domain/extraction/types';
import { CORPORA } from '../corpora';

const read = (rel: string) => {
  const raw = readFileSync(path.join(CORPORA, rel));
  return rel.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
};

const SPEC_FIELDS =
  'id title description description_html vendor brand url handle is_available attributes price images options variants store_canonical_url store_domain platform platform_id product_type taxonomy_product_category_id taxonomy_product_category_path tags video_url review_count average_rating rating_scale faqs reviews updated_at similar_products affiliate_link'.split(
    ' ',
  );
const OFF: ExtractOptions = {
  enableEnrichment: false,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};
const ON: ExtractOptions = {
  enableEnrichment: true,
  enableReviews: true,
  enableImageTags: true,
  enableSimilarProducts: true,
  countryCode: 'us',
};
const PAGE = 'https://www.shop.example/products/ratio-eight?utm_source=x';

async function ratioEight(options: ExtractOptions) {
  const candidate = readShopifyProduct(
    JSON.parse(read('platform-json/shopify/product-js_ratio-eight.json')),
    PAGE,
    'USD',
  )!;
  const merged = mergeCandidates([candidate], null);
  return normaliseProduct(merged, {
    pageUrl: PAGE,
    canonicalUrl: null,
    platform: 'shopify',
    options,
    enricher: createOfflineEnricher(),
    breadcrumbs: ['Home', 'Coffee', 'Brewers'],
    faqs: [{ question: 'Warranty?', answer: '10 years' }],
    relatedUrls: ['https://www.shop.example/products/kettle'],
    pageDescriptionHtml: null,
    now: new Date('2025-01-01T00:00:00.000Z'),
  });
}

describe('full product record', () => {
  it('has every spec field, deterministic ids and the Shopify values', async () => {
    const record = await ratioEight(OFF);
    expect(Object.keys(record).sort()).toEqual([...SPEC_FIELDS].sort());
    expect(record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await ratioEight(OFF)).id).toBe(record.id);
    // Tracking parameters do not change the product's URL or id.
    expect(record.url).toBe('https://www.shop.example/products/ratio-eight');
    expect(record.store_domain).toBe('shop.example');
    expect(record.store_canonical_url).toBe('https://www.shop.example');
    expect(record.handle).toBe('ratio-eight');
    expect(record.platform_id).toBe('6438462785');
    expect(record.price).toEqual({ currency: 'USD', current_value: 520, compare_at_value: 600 });
    expect(record.is_available).toBe(true);
    expect(record.options).toEqual([
      { name: 'Color', values: ['Silver', 'Nickel', 'Cobalt', 'White'], position: 1 },
      { name: 'Voltage', values: ['220 Volts', '110 Volts'], position: 2 },
      { name: 'Size', values: ['Small', 'Large'], position: 3 },
    ]);
    const nickel = record.variants.find((v) => v.sku === 'nickel110')!;
    expect([nickel.option1, nickel.option2, nickel.option3]).toEqual(['Nickel', '110 Volts', 'Large']);
    expect(nickel.price).toEqual({ currency: 'USD', current_value: 600, compare_at_value: null });
    expect(nickel.image!.variant_ids).toContain(nickel.id);
    expect(record.images.length).toBe(4);
    expect(record.images.map((i) => i.position)).toEqual([1, 2, 3, 4]);
    expect(record.description).toContain('Each machine is hand assembled');
    expect(record.description_html).toContain('<h4>Technically speaking.</h4>');
  });

  it('nulls the flag-governed fields when flags are off and fills them when on', async () => {
    const off = await ratioEight(OFF);
    expect(off.attributes).toBeNull();
    expect(off.product_type).toBeNull();
    expect(off.taxonomy_product_category_id).toBeNull();
    expect(off.taxonomy_product_category_path).toBeNull();
    expect(off.reviews).toBeNull();
    expect(off.faqs).toBeNull();
    expect(off.similar_products).toBeNull();
    expect(off.images.every((i) => i.attributes === null)).toBe(true);

    const on = await ratioEight(ON);
    expect(on.attributes).not.toBeNull();
    expect(on.reviews).toEqual([]);
    expect(on.faqs).toEqual([{ question: 'Warranty?', answer: '10 years' }]);
    expect(on.similar_products).toEqual([{ url: 'https://www.shop.example/products/kettle' }]);
    const nickelImage = on.images.find((i) => i.url.includes('ChampagneNickel'))!;
    expect(nickelImage.attributes).toMatchObject({ role: 'gallery', is_variant_image: true });
    expect((nickelImage.attributes!.variant_option_values as Record<string, string[]>).Color).toContain('Nickel');
  });

  it('de-duplicates images across size suffixes, query strings and protocol-relative URLs', () => {
    const images = dedupeImages([
      { url: 'https://cdn.shopify.com/s/files/a/shirt_800x800.jpg?v=1', width: 800 },
      { url: '//cdn.shopify.com/s/files/a/shirt.jpg' },
      { url: 'https://cdn.shopify.com/s/files/a/shirt_grande.jpg', alt: 'Front' },
      { url: 'https://cdn.shopify.com/s/files/a/back.jpg' },
    ]);
    expect(images.length).toBe(2);
    expect(images[0]).toMatchObject({ width: 800, alt: 'Front' });
  });

  it('sanitises description HTML', () => {
    const html = sanitizeDescriptionHtml(
      '<p onclick="x()">Soft <b>cotton</b><script>alert(1)</script><img src=x onerror=y></p><a href="javascript:evil()">x</a>',
    );
    expect(html).toBe('<p>Soft <b>cotton</b></p><a rel="nofollow noopener">x</a>');
  });
});

describe('page classification', () => {
  it('reads URL shapes', () => {
    expect(urlKind('https://shop.example/')).toBe('home');
    expect(urlKind('https://shop.example/collections/summer')).toBe('collection');
    expect(urlKind('https://shop.example/collections/summer/products/tee')).toBe('product');
    expect(urlKind('https://shop.example/search?q=tee')).toBe('search');
    expect(urlKind('https://shop.example/blogs/news/post')).toBe('blog');
    expect(urlKind('https://shop.example/cart')).toBe('cart');
    expect(identifierFromUrl('https://www.amazon.de/dp/B00CYG4J5U')).toBe('B00CYG4J5U');
    expect(identifierFromUrl('https://www.elkor.lv/lat/x.html?childSku=545642356')).toBe('545642356');
    expect(identifierFromUrl('https://shop.example/about-us')).toBeNull();
  });

  it('labels the corpus non-product pages (blogs, news, repositories) as non-product', () => {
    const labels = JSON.parse(read('page-type-labels/labels.json')) as {
      pages: Array<{ file: string; url: string; label: string }>;
    };
    const nonProduct = labels.pages.filter((p) => p.label === 'non_product');
    expect(nonProduct.length).toBeGreaterThan(10);
    for (const page of nonProduct) {
      const { classification } = readProductPage(read(page.file), page.url);
      expect(classification.isProduct, page.file).toBe(false);
      expect(classification.reason).toMatch(/^Not a product page/);
    }
  });

  it('labels real product pages as products', () => {
    for (const name of ['overstock', 'costco', 'wayfair', 'rejuvenation']) {
      const expected = JSON.parse(read('metascraper-shopping/expected.json')) as {
        cases: Array<{ file: string; url: string }>;
      };
      const c = expected.cases.find((x) => x.file.includes(name))!;
      expect(readProductPage(read(`metascraper-shopping/${c.file}`), c.url).classification.isProduct, name).toBe(true);
    }
  });
});
