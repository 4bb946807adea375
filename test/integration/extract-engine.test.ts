// The extraction engine end to end: createExtractor with the real got-based fetcher against the
// store simulator over loopback, every store kind and every outcome, compared with the
// simulator's ground truth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpFetcher } from '../../lambdas/adapters/http-fetch';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { createExtractor } from '../../lambdas/domain/extraction/engine';
import type { ExtractOptions, ExtractUrl, UrlResult } from '../../lambdas/domain/extraction/types';
import { startStoreSimulator, type StoreSimulator } from '../stores';

const FLAGS_OFF: ExtractOptions = {
  enableEnrichment: false,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};
const FLAGS_ON: ExtractOptions = {
  enableEnrichment: true,
  enableReviews: true,
  enableImageTags: true,
  enableSimilarProducts: true,
  countryCode: 'us',
};

const PRODUCT_STORES = [
  'shopify-apparel.test',
  'woo-home.test',
  'bigcommerce-gear.test',
  'magento-outfitters.test',
  'sfcc-fashion.test',
  'wix-crafts.test',
  'squarespace-studio.test',
  'prestashop-boutique.test',
  'jsonld-shop.test',
  'productgroup-shop.test',
  'microdata-shop.test',
  'opengraph-shop.test',
  'dom-shop.test',
  'euro-shop.test',
  'swiss-shop.test',
  'stale-price.test',
  'malformed-shop.test',
];

let sim: StoreSimulator;
let extract: ExtractUrl;

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 12, slowDelayMs: 4000 });
  const fetcher = createHttpFetcher({
    resolve: sim.resolve,
    crawlDelayMs: 0,
    totalTimeoutMs: 1500,
    readTimeoutMs: 1200,
    retries: 2,
    retryBaseDelayMs: 20,
  });
  extract = createExtractor({
    fetcher,
    enricher: createOfflineEnricher(),
    now: () => new Date('2025-01-02T03:04:05.000Z'),
  });
});

afterAll(async () => {
  await sim?.close();
});

function expectFailure(result: UrlResult, outcome: UrlResult['outcome'], retry: boolean) {
  expect(result.outcome).toBe(outcome);
  expect(result.success).toBe(false);
  expect(result.product).toBeNull();
  expect(result.retry).toBe(retry);
  expect(result.message.length).toBeGreaterThan(10);
}

describe('product pages of every store kind match the ground truth', () => {
  for (const host of PRODUCT_STORES) {
    it(host, async () => {
      const store = sim.store(host);
      for (const index of [0, 1, 2]) {
        const truth = store.product(index);
        const result = await extract(store.productUrl(index), FLAGS_OFF);
        expect(result.outcome, `${host} #${index}: ${result.message}`).toBe('success');
        expect(result.message).toBe('');
        expect(result.retry).toBe(false);
        expect(result.final_url).toBeUndefined();
        const p = result.product!;
        expect(p.title).toBe(truth.title);
        expect(p.brand).toBe(truth.brand);
        expect(p.price.current_value).toBe(truth.price);
        expect(p.price.currency).toBe(truth.currency);
        expect(p.price.compare_at_value).toBe(truth.compareAt);
        expect(p.is_available).toBe(truth.available);
        expect(p.store_domain).toBe(host);
        expect(p.platform).toBe(store.platform);
        expect(p.images.length).toBeGreaterThan(0);
        expect(p.variants.length).toBe(truth.variants.length);
        expect(new Set(p.variants.map((v) => v.sku))).toEqual(new Set(truth.variants.map((v) => v.sku)));
        expect(p.updated_at).toBe('2025-01-02T03:04:05.000Z');
        // Flags off: the governed fields are null.
        expect(p.attributes).toBeNull();
        expect(p.product_type).toBeNull();
        expect(p.reviews).toBeNull();
        expect(p.similar_products).toBeNull();
        expect(p.images.every((i) => i.attributes === null)).toBe(true);
        if (truth.variants.length > 1) {
          expect(p.options.map((o) => o.name)).toEqual(truth.options.map((o) => o.name));
          for (const v of truth.variants) {
            const got = p.variants.find((x) => x.sku === v.sku)!;
            expect([got.option1, got.option2, got.option3].filter((x) => x != null)).toEqual(v.optionValues);
            // Variant prices only where the source states them (the WooCommerce Store API does not).
            if (got.price.current_value != null) expect(got.price.current_value).toBe(v.price);
            if (got.is_available != null) expect(got.is_available).toBe(v.available);
          }
        }
        // Same URL, same id.
        const again = await extract(store.productUrl(index), FLAGS_OFF);
        expect(again.product!.id).toBe(p.id);
      }
    });
  }
});

describe('flags fill the optional parts', () => {
  it('reviews, FAQs, enrichment, image tags and similar products', async () => {
    const store = sim.store('jsonld-shop.test');
    const index = [0, 1, 2, 3, 4, 5].find((i) => store.product(i).reviews.length && store.product(i).faqs.length) ?? 0;
    const truth = store.product(index);
    const result = await extract(store.productUrl(index), FLAGS_ON);
    const p = result.product!;
    expect(p.reviews!.map((r) => r.body)).toEqual(truth.reviews.map((r) => r.body));
    expect(p.review_count).toBe(truth.reviews.length || null);
    expect(p.faqs!.map((f) => f.question)).toEqual(truth.faqs.map((f) => f.question));
    expect(p.attributes).not.toBeNull();
    expect(p.images.every((i) => i.attributes && typeof i.attributes === 'object')).toBe(true);
    expect(p.images[0].attributes!.role).toBe('primary');
    const related = [1, 2].map((k) => store.productUrl((index + k) % store.productCount));
    expect((p.similar_products as Array<{ url: string }>).map((s) => s.url).sort()).toEqual(related.sort());
  });
});

describe('non-product pages', () => {
  for (const host of [
    'shopify-apparel.test',
    'woo-home.test',
    'magento-outfitters.test',
    'jsonld-shop.test',
    'dom-shop.test',
    'prestashop-boutique.test',
  ]) {
    it(host, async () => {
      const store = sim.store(host);
      for (const kind of ['home', 'category', 'blog', 'search'] as const) {
        const result = await extract(store.nonProductUrls[kind], FLAGS_OFF);
        expect(result.outcome, `${kind}: ${result.message}`).toBe('non_product_url');
        expectFailure(result, 'non_product_url', false);
      }
      // Carts are disallowed by the stores' robots.txt, which wins before the page is read.
      const cart = await extract(store.nonProductUrls.cart, FLAGS_OFF);
      expect(['non_product_url', 'automated_access_not_permitted']).toContain(cart.outcome);
      expect(cart.product).toBeNull();
    });
  }

  it('a missing page (404) must be corrected', async () => {
    expectFailure(
      await extract('https://jsonld-shop.test/products/no-such-thing-99999', FLAGS_OFF),
      'non_product_url',
      false,
    );
  });
});

describe('failures map to the spec outcomes with the right retry flag', () => {
  it('malformed URLs', async () => {
    for (const url of ['not a url', 'ftp://files.example/x', 'https://', 'javascript:alert(1)', '']) {
      expectFailure(await extract(url, FLAGS_OFF), 'malformed_url', false);
    }
  });

  it('redirects to private addresses are refused', async () => {
    expectFailure(await extract('https://redirect-private.test/to-metadata', FLAGS_OFF), 'malformed_url', false);
  });

  it('robots.txt disallow and bot walls', async () => {
    expectFailure(
      await extract(sim.store('robots-blocked.test').productUrl(0), FLAGS_OFF),
      'automated_access_not_permitted',
      true,
    );
    expectFailure(
      await extract(sim.store('bot-wall.test').productUrl(0), FLAGS_OFF),
      'automated_access_not_permitted',
      true,
    );
    expectFailure(
      await extract('https://bot-wall.test/challenge-200', FLAGS_OFF),
      'automated_access_not_permitted',
      true,
    );
  });

  it('timeouts, server errors, non-HTML and oversized pages', async () => {
    expectFailure(await extract(sim.store('slow.test').productUrl(0), FLAGS_OFF), 'other', true);
    expectFailure(await extract('https://flaky.test/always-down', FLAGS_OFF), 'other', true);
    expectFailure(await extract(sim.store('non-html.test').productUrl(0), FLAGS_OFF), 'other', true);
    expectFailure(await extract(sim.store('huge-page.test').productUrl(0), FLAGS_OFF), 'other', true);
    expectFailure(await extract('https://redirect-chain.test/loop', FLAGS_OFF), 'other', true);
  });

  it('transient failures recover through the fetcher retries', async () => {
    const flaky = sim.store('flaky.test');
    const rate = sim.store('rate-limited.test');
    expect((await extract(rate.productUrl(3), FLAGS_OFF)).outcome).toBe('success');
    const results = await Promise.all([4, 5, 6].map((i) => extract(flaky.productUrl(i), FLAGS_OFF)));
    for (const r of results) expect(r.outcome === 'success' || (r.outcome === 'other' && r.retry)).toBe(true);
  });

  it('redirect chains land on the product and report final_url', async () => {
    const store = sim.store('redirect-chain.test');
    const result = await extract('https://redirect-chain.test/start/2', FLAGS_OFF);
    expect(result.outcome).toBe('success');
    expect(result.final_url).toBe(store.productUrl(2));
    expect(result.product!.title).toBe(store.product(2).title);
  });
});
