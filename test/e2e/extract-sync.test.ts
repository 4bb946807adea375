// Legacy synchronous extraction over real HTTP: POST /api/product and POST /api/products against
// the store simulator (PDS_RESOLVE), through the local runtime, every response checked against
// the served OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { validatedClient } from './helpers/validated-client';

const KEY = 'extract-sync-key-00000001';
const NO_EXTRACT_SCOPE_KEY = 'extract-sync-key-00000002';

let service: LocalService;
let sim: StoreSimulator;
let doc: Record<string, any>;

/** Every call goes through real HTTP and is checked against the served document. */
const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY);

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 50 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-extract-sync-')),
    env: { PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0', PDS_FAULT_RATE: '0', PDS_DUPLICATE_RATE: '0' },
    bootstrapKeys: `${KEY}:org-sync,${NO_EXTRACT_SCOPE_KEY}:org-sync:search+catalog`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
});

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
});

describe('the document', () => {
  it('documents the legacy extraction operations as built, with the rich record and the freshness window', () => {
    const products = doc.paths['/api/products'].post;
    const product = doc.paths['/api/product'].post;
    expect(products.responses['501']).toBeUndefined();
    expect(product.responses['501']).toBeUndefined();
    expect(products.description).toContain('24 hours');
    expect(product.description).toContain('24 hours');
    const rich = doc.components.schemas.LegacyRichProductRecord;
    for (const field of [
      'price_amount',
      'price_currency',
      'min_price',
      'max_price',
      'images',
      'variants',
      'options',
      'platform',
      'platform_id',
      'video_url',
      'taxonomy_product_category_id',
    ]) {
      expect(rich.required, field).toContain(field);
    }
    expect(doc.components.schemas.LegacyProductVariant.properties.price.type).toEqual(['string', 'null']);
    expect(doc.components.schemas.LegacyProductImage.required).toEqual(
      expect.arrayContaining(['altText', 'variantIDs']),
    );
  });
});

describe('POST /api/product', () => {
  it('extracts one product in the legacy rich shape, enrichment on by default, reviews and image tags off', async () => {
    const store = sim.store('shopify-apparel.test');
    const truth = store.product(3);
    const reply = await call('POST', '/api/product', { url: store.productUrl(3) });
    expect(reply.status).toBe(200);
    const { product, meta } = reply.body;
    expect(meta).toMatchObject({
      found: true,
      url: store.productUrl(3),
      outcome: 'success',
      retry: false,
      message: '',
      from_store: false,
      credits_used: 2,
    });
    expect(product.title).toBe(truth.title);
    expect(product.price_amount).toBe(truth.price);
    expect(product.price_currency).toBe(truth.currency);
    expect(product.platform).toBe('shopify');
    expect(product.min_price).toBe(Math.min(...truth.variants.map((v) => v.price)));
    expect(product.max_price).toBe(Math.max(...truth.variants.map((v) => v.price)));
    expect(product.variants.length).toBe(truth.variants.length);
    for (const variant of product.variants) {
      expect(typeof variant.price).toBe('string');
      expect(variant.price).toMatch(/^\d+\.\d{2}$/);
      expect(Object.keys(variant)).toEqual(expect.arrayContaining(['SKU', 'isAvailable', 'compareAtPrice', 'option1']));
    }
    const skus = product.variants.map((v: { SKU: string }) => v.SKU).sort();
    expect(skus).toEqual(truth.variants.map((v) => v.sku).sort());
    expect(product.images[0]).toMatchObject({
      url: expect.any(String),
      position: expect.any(Number),
      variantIDs: expect.any(Array),
    });
    expect(product.images.every((image: { attributes: unknown }) => image.attributes === null)).toBe(true);
    expect(product.attributes).not.toBeNull();
    expect(product.taxonomy_product_category_id).toMatch(/^gid:\/\/shopify\/TaxonomyCategory\//);
    expect(product.reviews).toBeNull();
    expect(product.faqs).toBeNull();
    expect(product.options.map((o: { name: string }) => o.name)).toEqual(truth.options.map((o) => o.name));
  });

  it('honours every flag: enrichment off nulls attributes and taxonomy; reviews and image tags on fill theirs', async () => {
    const store = sim.store('jsonld-shop.test');
    const reply = await call('POST', '/api/product', {
      url: store.productUrl(5),
      enable_enrichment: false,
      enable_reviews: true,
      enable_image_tags: true,
      country_code: 'GB',
    });
    expect(reply.status).toBe(200);
    const { product, meta } = reply.body;
    expect(meta.found).toBe(true);
    expect(meta.credits_used).toBe(3);
    expect(product.attributes).toBeNull();
    expect(product.product_type).toBeNull();
    expect(product.taxonomy_product_category_id).toBeNull();
    expect(product.taxonomy_product_category_path).toBeNull();
    expect(Array.isArray(product.reviews)).toBe(true);
    expect(product.reviews.length).toBe(store.product(5).reviews.length);
    expect(product.images.length).toBeGreaterThan(0);
    expect(
      product.images.every(
        (image: { attributes: unknown }) => image.attributes !== null && typeof image.attributes === 'object',
      ),
    ).toBe(true);
  });

  it('serves the stored record within the freshness window, and fetches anew with force_extraction', async () => {
    const store = sim.store('microdata-shop.test');
    const url = store.productUrl(7);
    const first = await call('POST', '/api/product', { url });
    expect(first.body.meta.from_store).toBe(false);
    const hitsAfterFirst = sim.hits('microdata-shop.test', store.productPath(7));
    const second = await call('POST', '/api/product', { url });
    expect(second.body.meta.from_store).toBe(true);
    expect(second.body.product.title).toBe(first.body.product.title);
    expect(sim.hits('microdata-shop.test', store.productPath(7))).toBe(hitsAfterFirst);
    const forced = await call('POST', '/api/product', { url, force_extraction: true });
    expect(forced.body.meta.from_store).toBe(false);
    expect(sim.hits('microdata-shop.test', store.productPath(7))).toBeGreaterThan(hitsAfterFirst);
  });

  it('a page that is not a product, a bot wall and a robots-blocked host: 200, product null, the reason in meta', async () => {
    const home = await call('POST', '/api/product', { url: sim.store('jsonld-shop.test').nonProductUrls.home });
    expect(home.body).toMatchObject({
      product: null,
      meta: { found: false, outcome: 'non_product_url', retry: false, credits_used: 0 },
    });
    const wall = await call('POST', '/api/product', { url: sim.store('bot-wall.test').productUrl(1) });
    expect(wall.body).toMatchObject({
      product: null,
      meta: { found: false, outcome: 'automated_access_not_permitted' },
    });
    expect(wall.body.meta.message).not.toBe('');
    const robots = await call('POST', '/api/product', { url: sim.store('robots-blocked.test').productUrl(1) });
    // The spec classes automated_access_not_permitted as a retriable failure.
    expect(robots.body).toMatchObject({
      product: null,
      meta: { found: false, outcome: 'automated_access_not_permitted', retry: true },
    });
    expect(robots.body.meta.message.toLowerCase()).toContain('robots');
  });

  it('rejects bad requests with 400 in the legacy shape', async () => {
    const malformed = await call('POST', '/api/product', { url: 'ftp://files.example/x' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'INVALID_PARAMETER', error: expect.stringContaining('url') });
    expect((await call('POST', '/api/product', { url: '' })).status).toBe(400);
    expect((await call('POST', '/api/product', {})).body.error).toBe('url is required');
    const country = await call('POST', '/api/product', {
      url: sim.store('jsonld-shop.test').productUrl(1),
      country_code: 'zz',
    });
    expect(country.status).toBe(400);
    expect(country.body.error).toContain('country_code');
    expect(
      (await call('POST', '/api/product', { url: sim.store('jsonld-shop.test').productUrl(1), enable_reviews: 'yes' }))
        .status,
    ).toBe(400);
  });

  it('needs the extract scope', async () => {
    const reply = await call(
      'POST',
      '/api/product',
      { url: sim.store('jsonld-shop.test').productUrl(1) },
      NO_EXTRACT_SCOPE_KEY,
    );
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('FORBIDDEN');
  });
});

describe('POST /api/products', () => {
  it('one element per input URL in order; failures never affect the others and say why', async () => {
    const shop = sim.store('woo-home.test');
    const urls = [
      shop.productUrl(1),
      'not a url at all',
      sim.store('robots-blocked.test').productUrl(2),
      shop.productUrl(2),
      sim.store('bot-wall.test').productUrl(2),
      '',
      sim.store('dom-shop.test').nonProductUrls.blog,
      `${shop.productUrl(1)}#reviews`,
      sim.store('flaky.test').productUrl(4),
    ];
    const reply = await call('POST', '/api/products', { urls, enable_enrichment: false });
    expect(reply.status).toBe(200);
    const { products, meta } = reply.body;
    expect(products.map((p: { url: string }) => p.url)).toEqual(urls);
    expect(products.map((p: { outcome: string }) => p.outcome)).toEqual([
      'success',
      'malformed_url',
      'automated_access_not_permitted',
      'success',
      'automated_access_not_permitted',
      'malformed_url',
      'non_product_url',
      'success',
      'success',
    ]);
    for (const p of products) {
      expect(p.success).toBe(p.outcome === 'success');
      expect(p.product === null).toBe(!p.success);
      expect(p.message === '').toBe(p.success);
      if (p.success) expect(p.product.attributes).toBeNull();
    }
    expect(products[0].product.title).toBe(shop.product(1).title);
    expect(products[0].product.price_currency).toBe('GBP');
    expect(products[7].product.title).toBe(shop.product(1).title);
    expect(meta).toMatchObject({ total_requested: 9, total_successful: 4, total_failed: 5 });
    // The duplicate (same URL up to its fragment) was looked up once and charged once.
    expect(meta.urls_processed).toHaveLength(6);
    expect(meta.credits_used).toBe(3);
  });

  it('limits and validation: at most 50 URLs, a non-empty array, a supported country', async () => {
    const url = sim.store('jsonld-shop.test').productUrl(1);
    const tooMany = await call('POST', '/api/products', { urls: Array.from({ length: 51 }, () => url) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ error: 'urls must contain at most 50 URLs', code: 'INVALID_PARAMETER' });
    expect((await call('POST', '/api/products', { urls: [] })).status).toBe(400);
    expect((await call('POST', '/api/products', { urls: 'https://x.example/p' })).status).toBe(400);
    expect((await call('POST', '/api/products', { urls: [url], country_code: 'xx' })).status).toBe(400);
    const fifty = await call('POST', '/api/products', {
      urls: Array.from({ length: 50 }, (_, i) => sim.store('jsonld-shop.test').productUrl(i)),
      enable_enrichment: false,
    });
    expect(fifty.status).toBe(200);
    expect(fifty.body.meta).toMatchObject({
      total_requested: 50,
      total_successful: 50,
      total_failed: 0,
      credits_used: 50,
    });
  });
});
