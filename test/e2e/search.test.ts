// Every search operation over real HTTP, over a catalog built through the public API: products
// of the store simulator extracted with POST /v2/extract, then found by /api/search,
// /api/regular-search, /api/feed, the mini searches and agentic search (v1 in one request, v2 as
// a state machine execution verifying candidates through SQS). One host's product pages sit
// behind a small proxy that can make a page fail, so verification can be seen dropping it.
// Every response is checked against the served OpenAPI document.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { startTestService, type ExtrasContext, type TestService } from './helpers/service';
import { startWorkflows } from './helpers/workflows';
import { validatedClient } from './helpers/validated-client';
import { forwardTo } from './helpers/forward';

const POLL_MS = 150;
const MAX_POLLS = 400;
const SHOPIFY = 'shopify-apparel.test';
/** Behind the flip proxy. */
const FLIP = 'jsonld-shop.test';
const SHOPIFY_PRODUCTS = 30;
const FLIP_PRODUCTS = 12;
const CATALOG = SHOPIFY_PRODUCTS + FLIP_PRODUCTS;
const SLOW_MS = 1500;

let sim: StoreSimulator;
let proxy: { port: number; gone: Set<string>; slow: Set<string>; close(): Promise<void> };
let service: TestService;
let runtime: ExtrasContext;
let doc: Record<string, any>;
let keyA: string;
let keyB: string;

const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), '');
const callA = (method: string, path: string, body?: unknown) => call(method, path, body, keyA);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Forwards to the simulator, except paths in `gone`, which answer 404 (the product was removed), and paths in `slow`, which answer after SLOW_MS. */
async function startFlipProxy(target: number) {
  const gone = new Set<string>();
  const slow = new Set<string>();
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (slow.has(path)) await sleep(SLOW_MS);
    if (gone.has(path)) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body><h1>Not found</h1></body></html>');
      return;
    }
    forwardTo(target, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    gone,
    slow,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < MAX_POLLS; i++) {
    const value = await read();
    if (done(value)) return value;
    await sleep(POLL_MS);
  }
  throw new Error(`${what} did not happen within ${MAX_POLLS} polls`);
}

const shopify = () => sim.store(SHOPIFY);
const flip = () => sim.store(FLIP);
const groundTruth = () => [
  ...Array.from({ length: SHOPIFY_PRODUCTS }, (_, i) => shopify().product(i)),
  ...Array.from({ length: FLIP_PRODUCTS }, (_, i) => flip().product(i)),
];
const productPathOf = (url: string) => new URL(url).pathname;
const pageHits = (host: string, url: string) => sim.hits(host, productPathOf(url));

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 40 });
  proxy = await startFlipProxy(sim.port);
  const resolve = Object.entries(sim.resolve)
    .map(([host, address]) => `${host}=${host === FLIP ? `127.0.0.1:${proxy.port}` : address}`)
    .join(',');
  service = await startTestService({
    env: { PDS_RESOLVE: resolve },
    extras: async (context) => {
      runtime = context;
      return startWorkflows(context);
    },
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
  keyA = await service.apiKey(undefined, 'org-a');
  keyB = await service.apiKey(undefined, 'org-b');

  // The catalog, through the public API: extraction with enrichment, then the index catching up.
  const urls = [
    ...Array.from({ length: SHOPIFY_PRODUCTS }, (_, i) => shopify().productUrl(i)),
    ...Array.from({ length: FLIP_PRODUCTS }, (_, i) => flip().productUrl(i)),
  ];
  const started = await callA('POST', '/v2/extract', { urls, enable_enrichment: true });
  expect(started.status).toBe(202);
  const finished = await poll(
    async () => (await callA('GET', `/v2/extract/${started.body.execution_id}?page_size=100`)).body,
    (body) => body.status === 'completed' || body.status === 'failed',
    'the catalog extraction',
  );
  expect(finished.status).toBe('completed');
  expect(finished.meta.result.products_successful).toBe(CATALOG);
  await poll(
    async () => (await callA('GET', '/api/feed?limit=1')).body.meta.totalItems,
    (total) => total === CATALOG,
    'the index catching up',
  );
}, 120_000);

afterAll(async () => {
  await service?.close();
  await proxy?.close();
  await sim?.close();
});

describe('documented as built', () => {
  it('no 501 for any search operation', () => {
    for (const [path, method] of [
      ['/api/search', 'post'],
      ['/api/regular-search', 'post'],
      ['/api/feed', 'get'],
      ['/v1/agentic-search-mini', 'post'],
      ['/v1/agentic-search', 'post'],
      ['/v2/agentic-search-mini', 'post'],
      ['/v2/agentic-search', 'post'],
      ['/v2/agentic-search/{execution_id}', 'get'],
    ]) {
      expect(doc.paths[path][method].responses['501'], `${method} ${path}`).toBeUndefined();
    }
  });
});

describe('POST /api/search', () => {
  it('finds what the words say; legacy records and legacy meta', async () => {
    const reply = await callA('POST', '/api/search', { query: 'tee', limit: 100 });
    expect(reply.status).toBe(200);
    const expected = groundTruth()
      .filter((p) => /\bTee\b/.test(p.title))
      .map((p) => p.url);
    expect(expected.length).toBeGreaterThan(0);
    const urls = reply.body.products.map((p: any) => p.url);
    expect(urls).toEqual(expect.arrayContaining(expected));
    expect(reply.body.meta).toEqual({ totalItems: urls.length, totalPages: 1, currentPage: 1, pageSize: 100 });
    const record = reply.body.products[0];
    const truth = groundTruth().find((p) => p.url === record.url)!;
    expect(record).toMatchObject({
      title: truth.title,
      brand: truth.brand,
      price_amount: truth.price,
      price_currency: 'USD',
      is_available: truth.available,
    });
    expect(record.images.primary).toBe(truth.images[0].url);
  });

  it('every filter is exact: price range, availability, brands, attributes', async () => {
    const truth = groundTruth();
    const brands = [truth[0].brand, truth[1].brand];
    const filters = { min_price: 20, max_price: 120, is_available: true, brand: brands };
    const reply = await callA('POST', '/api/search', { query: 'cotton', filters, limit: 100 });
    expect(reply.status).toBe(200);
    const products = reply.body.products;
    for (const p of products) {
      expect(p.price_amount).toBeGreaterThanOrEqual(20);
      expect(p.price_amount).toBeLessThanOrEqual(120);
      expect(p.is_available).toBe(true);
      expect(brands.map((b) => b.toLowerCase())).toContain(String(p.brand).toLowerCase());
    }
    const expected = truth
      .filter(
        (p) => /Cotton/.test(p.title) && p.price >= 20 && p.price <= 120 && p.available && brands.includes(p.brand),
      )
      .map((p) => p.url);
    expect(products.map((p: any) => p.url)).toEqual(expect.arrayContaining(expected));

    const red = await callA('POST', '/api/search', {
      query: 'tee',
      filters: { attributes: { color: ['red'] } },
      limit: 100,
    });
    expect(red.status).toBe(200);
    expect(red.body.products.length).toBeGreaterThan(0);
    for (const p of red.body.products) {
      const colours = [p.attributes.color, ...p.variants.color].map((c: string | null) => String(c).toLowerCase());
      expect(colours.some((c: string) => c.includes('red'))).toBe(true);
    }

    const unavailable = await callA('POST', '/api/search', {
      query: 'tee',
      filters: { is_available: false },
      limit: 100,
    });
    for (const p of unavailable.body.products) expect(p.is_available).toBe(false);
    const none = await callA('POST', '/api/search', { query: 'tee', filters: { brand: ['No Such Brand'] } });
    expect(none.body).toEqual({ products: [], meta: { totalItems: 0, totalPages: 0, currentPage: 1, pageSize: 20 } });
  });

  it('understands the query: a price ceiling in words is a hard constraint', async () => {
    const reply = await callA('POST', '/api/search', { query: 'hoodie under 60', limit: 100 });
    expect(reply.status).toBe(200);
    for (const p of reply.body.products) expect(p.price_amount).toBeLessThanOrEqual(60);
    const expected = groundTruth()
      .filter((p) => /Hoodie/.test(p.title) && p.price <= 60)
      .map((p) => p.url);
    expect(reply.body.products.map((p: any) => p.url)).toEqual(expect.arrayContaining(expected));
  });

  it('pages: the pages together are the whole list, in order; past the end is empty', async () => {
    const all = (await callA('POST', '/api/search', { query: 'cotton', limit: 100 })).body;
    expect(all.meta.totalItems).toBeGreaterThan(3);
    const paged: string[] = [];
    for (let page = 1; page <= all.meta.totalItems; page++) {
      const reply = await callA('POST', '/api/search', { query: 'cotton', page, limit: 3 });
      expect(reply.body.meta).toEqual({
        totalItems: all.meta.totalItems,
        totalPages: Math.ceil(all.meta.totalItems / 3),
        currentPage: page,
        pageSize: 3,
      });
      paged.push(...reply.body.products.map((p: any) => p.url));
      if (page >= reply.body.meta.totalPages) break;
    }
    expect(paged).toEqual(all.products.map((p: any) => p.url));
    const past = await callA('POST', '/api/search', { query: 'cotton', page: 99, limit: 3 });
    expect(past.body.products).toEqual([]);
  });

  it('bad input is 400 in the legacy shape, never a 500', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'query is required'],
      [{ query: '  ' }, 'query must not be empty'],
      [
        { query: 'tee', filters: { min_price: 50, max_price: 10 } },
        'filters.min_price must not be greater than filters.max_price',
      ],
      [{ query: 'tee', filters: { min_price: -1 } }, 'filters.min_price must not be negative'],
      [{ query: 'tee', filters: { brand: 'Acme' } }, 'filters.brand must be an array of strings'],
      [
        { query: 'tee', filters: { attributes: { color: 3 } } },
        'filters.attributes must map keys to a string or an array of strings',
      ],
      [{ query: 'tee', page: 0 }, 'page must be an integer from 1 to 1000000'],
      [{ query: 'x'.repeat(501) }, 'query must be at most 500 characters'],
    ];
    for (const [body, error] of cases) {
      const reply = await callA('POST', '/api/search', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toMatchObject({ code: 'INVALID_PARAMETER' });
      expect(reply.body.error).toContain(error);
    }
  });

  it('a key without the search scope is 403', async () => {
    const catalogOnly = await service.apiKey(['catalog'], 'org-a');
    const reply = await call('POST', '/api/search', { query: 'tee' }, catalogOnly);
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('FORBIDDEN');
  });
});

describe('POST /api/regular-search', () => {
  it('keywords and filters only: the price words are not understood, the filters still are exact', async () => {
    const understood = await callA('POST', '/api/search', { query: 'tee under 20', limit: 100 });
    const keywords = await callA('POST', '/api/regular-search', { query: 'tee', limit: 100 });
    expect(keywords.status).toBe(200);
    expect(keywords.body.meta.totalItems).toBeGreaterThan(understood.body.meta.totalItems);
    const filtered = await callA('POST', '/api/regular-search', {
      query: 'tee',
      filters: { max_price: 20, is_available: true },
      limit: 100,
    });
    for (const p of filtered.body.products) {
      expect(p.price_amount).toBeLessThanOrEqual(20);
      expect(p.is_available).toBe(true);
    }
  });
});

describe('GET /api/feed', () => {
  it('every product, most recently updated first, paged; by vendor; since an instant', async () => {
    const all = await callA('GET', '/api/feed?limit=100');
    expect(all.body.meta).toEqual({ totalItems: CATALOG, totalPages: 1, currentPage: 1, pageSize: 100 });
    const stamps = all.body.products.map((p: any) => p.updated_at);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const page2 = await callA('GET', '/api/feed?limit=10&page=2');
    expect(page2.body.products.map((p: any) => p.url)).toEqual(all.body.products.slice(10, 20).map((p: any) => p.url));
    const vendor = await callA('GET', `/api/feed?vendor=www.${FLIP}&limit=100`);
    expect(vendor.body.meta.totalItems).toBe(FLIP_PRODUCTS);
    for (const p of vendor.body.products) expect(new URL(p.url).hostname).toBe(FLIP);
    const middle = stamps[10];
    const since = await callA('GET', `/api/feed?updated_since=${encodeURIComponent(middle)}&limit=100`);
    expect(since.body.meta.totalItems).toBe(stamps.filter((s: string) => s >= middle).length);
    const future = await callA('GET', '/api/feed?updated_since=2999-01-01T00:00:00Z');
    expect(future.body.products).toEqual([]);
  });

  it('bad parameters are 400', async () => {
    expect((await callA('GET', '/api/feed?limit=101')).status).toBe(400);
    expect((await callA('GET', '/api/feed?updated_since=yesterday')).status).toBe(400);
    expect((await callA('GET', '/api/feed?vendor=%20')).status).toBe(400);
  });
});

describe('mini searches', () => {
  it('v1: up to 10, meta.urls, 2 credits with enrichment; enrichment off nulls the attributes for 1 credit', async () => {
    const rich = await callA('POST', '/v1/agentic-search-mini', { query: 'cotton tee' });
    expect(rich.status).toBe(200);
    expect(rich.body.products.length).toBeGreaterThan(0);
    expect(rich.body.products.length).toBeLessThanOrEqual(10);
    expect(rich.body.meta).toEqual({
      totalItems: rich.body.products.length,
      urls: rich.body.products.map((p: any) => p.url),
      credits_used: 2,
    });
    expect(rich.body.products.some((p: any) => p.attributes !== null)).toBe(true);
    const plain = await callA('POST', '/v1/agentic-search-mini', { query: 'cotton tee', enable_enrichment: false });
    expect(plain.body.meta.credits_used).toBe(1);
    expect(plain.body.products.map((p: any) => p.url)).toEqual(rich.body.products.map((p: any) => p.url));
    for (const p of plain.body.products) expect(p.attributes).toBeNull();
  });

  it('v2: the best 10 in pages, meta {}; enrichment off nulls attributes, product_type and the taxonomy fields', async () => {
    const first = await callA('POST', '/v2/agentic-search-mini', { query: 'tee', page_size: 3 });
    expect(first.status).toBe(200);
    const total = first.body.pagination.total_items;
    expect(total).toBeGreaterThan(3);
    expect(total).toBeLessThanOrEqual(10);
    expect(first.body.pagination).toMatchObject({ page: 1, page_size: 3, has_next: true, has_prev: false });
    // The contract's meta is the empty object.
    expect(first.body.meta).toEqual({});
    const urls = [...first.body.data.map((d: any) => d.url)];
    for (let page = 2; page <= first.body.pagination.total_pages; page++) {
      urls.push(
        ...(await callA('POST', '/v2/agentic-search-mini', { query: 'tee', page_size: 3, page })).body.data.map(
          (d: any) => d.url,
        ),
      );
    }
    expect(urls).toHaveLength(total);
    expect(new Set(urls).size).toBe(total);
    const enriched = first.body.data[0].product;
    expect(enriched.product_type).not.toBeNull();
    expect(enriched.images.every((image: string[]) => Array.isArray(image) && image.length === 1)).toBe(true);
    const plain = await callA('POST', '/v2/agentic-search-mini', {
      query: 'tee',
      page_size: 3,
      enable_enrichment: false,
    });
    expect(plain.body.meta).toEqual({});
    for (const d of plain.body.data) {
      expect(d.product).toMatchObject({
        attributes: null,
        product_type: null,
        taxonomy_product_category_id: null,
        taxonomy_product_category_path: null,
      });
      expect(d.product.title).not.toBeNull();
    }
    const bad = await callA('POST', '/v2/agentic-search-mini', { query: 'cotton', page_size: 11 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_PARAMETER');
  });
});

describe('agentic search, v1', () => {
  it('up to 8 verified products for 5 credits; fresh stored records are reused, no page is read again', async () => {
    const truth = groundTruth().filter((p) => /Cotton/.test(p.title));
    const before = truth.map((p) => pageHits(new URL(p.url).hostname, p.url));
    const reply = await callA('POST', '/v1/agentic-search', { query: 'cotton' });
    expect(reply.status).toBe(200);
    expect(reply.body.products.length).toBeGreaterThan(0);
    expect(reply.body.products.length).toBeLessThanOrEqual(8);
    expect(reply.body.meta).toEqual({
      urls: reply.body.products.map((p: any) => p.url),
      totalItems: reply.body.products.length,
      credits_used: 5,
    });
    for (const p of reply.body.products) {
      expect(p.title).toBeTruthy();
      expect(typeof p.price_amount).toBe('number');
      expect(p.images.length).toBeGreaterThan(0);
      expect(p.attributes).not.toBeNull();
    }
    expect(truth.map((p) => pageHits(new URL(p.url).hostname, p.url))).toEqual(before);
  });

  it('the profile: in_stock_only and style.avoid are hard rules, whatever else the profile holds', async () => {
    const reply = await callA('POST', '/v1/agentic-search', {
      query: 'cotton',
      customer_profile: {
        style: { avoid: ['hoodie', 'mug'], color: 'navy', aesthetic: ['minimal'], fit: 'relaxed' },
        preferences: { in_stock_only: true },
        usage_context: { activities: ['travel'] },
        purchase_behavior: { value: 'budget' },
        anything: [{ nested: { odd: true } }, 42, null],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.products.length).toBeGreaterThan(0);
    for (const p of reply.body.products) {
      expect(p.is_available).toBe(true);
      expect(p.title).not.toMatch(/hoodie|mug/i);
    }
    const odd = await callA('POST', '/v1/agentic-search', {
      query: 'cotton',
      customer_profile: { preferences: 'in stock please', style: [1, 2, 3] },
    });
    expect(odd.status).toBe(200);
    const notAnObject = await callA('POST', '/v1/agentic-search', { query: 'cotton', customer_profile: ['a'] });
    expect(notAnObject.status).toBe(400);
    expect(notAnObject.body.error).toContain('customer_profile must be an object');
  });
});

describe('agentic search, profile boosts', () => {
  it('a colour preference puts the products that come in that colour first', async () => {
    const redTees = new Set(
      groundTruth()
        .filter((p) => /\b(Tee|T-Shirt)\b/.test(p.title) && p.options.some((o) => o.values.includes('Red')))
        .map((p) => p.url),
    );
    expect(redTees.size).toBeGreaterThan(0);
    const red = await callA('POST', '/v1/agentic-search', {
      query: 'tee',
      customer_profile: { style: { color: 'red' } },
    });
    expect(red.status).toBe(200);
    const urls: string[] = red.body.meta.urls;
    const firstOther = urls.findIndex((url) => !redTees.has(url));
    const lastRed = Math.max(...urls.map((url, i) => (redTees.has(url) ? i : -1)));
    expect(urls.filter((url) => redTees.has(url)).length).toBe(Math.min(redTees.size, urls.length));
    if (firstOther >= 0) expect(lastRed).toBeLessThan(firstOther);
  });
});

describe('agentic search, v2 (an execution)', () => {
  let executionId: string;

  it('starts: 202, agentic-{uuid}, pending, 5 credits', async () => {
    const reply = await callA('POST', '/v2/agentic-search', {
      query: 'cotton',
      page_size: 5,
      customer_profile: { preferences: { in_stock_only: true } },
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({ status: 'pending', meta: { credits_used: 5 } });
    expect(reply.body.execution_id).toMatch(/^agentic-[0-9a-f-]{36}$/);
    executionId = reply.body.execution_id;
  });

  it('completes through Understand, Retrieve, Verify and Rank; up to page_size full records, enrichment off by default', async () => {
    const body = await poll(
      async () => (await callA('GET', `/v2/agentic-search/${executionId}`)).body,
      (b) => b.status === 'completed' || b.status === 'failed',
      'the agentic execution',
    );
    expect(body.status).toBe('completed');
    expect(body.error).toBeNull();
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.length).toBeLessThanOrEqual(5);
    expect(body.pagination).toMatchObject({ page: 1, page_size: 5, total_items: body.data.length });
    expect(body.meta).toMatchObject({
      query: 'cotton',
      credits_used: 5,
      progress: { step: 'done', percent_complete: 100 },
    });
    expect(body.meta.progress.candidates_verified).toBe(body.data.length);
    expect(body.meta.duration_ms).toBeGreaterThanOrEqual(0);
    for (const d of body.data) {
      expect(d.product.is_available).toBe(true);
      expect(d.product).toMatchObject({
        attributes: null,
        product_type: null,
        taxonomy_product_category_id: null,
        taxonomy_product_category_path: null,
      });
      expect(d.product.url).toBeTruthy();
    }
  });

  it('with enrichment on the records carry their attributes; a query that matches nothing completes empty', async () => {
    const run = async (body: unknown) => {
      const started = await callA('POST', '/v2/agentic-search', body);
      expect(started.status).toBe(202);
      return poll(
        async () => (await callA('GET', `/v2/agentic-search/${started.body.execution_id}`)).body,
        (b) => b.status === 'completed' || b.status === 'failed',
        'the agentic execution',
      );
    };
    const enriched = await run({ query: 'hoodie', page_size: 2, enable_enrichment: true });
    expect(enriched.status).toBe('completed');
    expect(enriched.data.length).toBeGreaterThan(0);
    expect(enriched.data.length).toBeLessThanOrEqual(2);
    for (const d of enriched.data) {
      expect(d.product.attributes).not.toBeNull();
      expect(d.product.taxonomy_product_category_path).toBeTruthy();
    }
    const empty = await run({ query: 'zzzqqq xylophone' });
    expect(empty).toMatchObject({
      status: 'completed',
      data: [],
      pagination: { total_items: 0 },
      meta: { credits_used: 5 },
    });
    expect(empty.meta.progress).toMatchObject({ candidates_total: 0, step: 'done', percent_complete: 100 });
  });

  it("another organization's execution, an unknown id and another kind's id are 404", async () => {
    const other = await call('GET', `/v2/agentic-search/${executionId}`, undefined, keyB);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    expect((await callA('GET', '/v2/agentic-search/agentic-00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await callA('GET', '/v2/agentic-search/extract-urls-00000000-0000-0000-0000-000000000000')).status).toBe(
      404,
    );
  });

  it('validates: page_size 1..8, a bounded profile', async () => {
    expect((await callA('POST', '/v2/agentic-search', { query: 'cotton', page_size: 9 })).status).toBe(400);
    const huge = await callA('POST', '/v2/agentic-search', {
      query: 'cotton',
      customer_profile: { notes: 'x'.repeat(40_000) },
    });
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toContain('customer_profile must be at most 32 KB');
  });
});

describe('verification against the live page', () => {
  it('drops a product whose page now fails, in v1 and in v2', async () => {
    // Every candidate's page is read live from here on.
    runtime.env.PDS_AGENTIC_VERIFY_MAX_AGE_MS = '0';
    runtime.reload();
    await poll(
      async () => (await callA('GET', '/api/feed?limit=1')).body.meta.totalItems,
      (total) => total === CATALOG,
      'the index after reload',
    );

    const target = flip().product(7);
    const query = target.title;
    const before = await callA('POST', '/v1/agentic-search', { query });
    expect(before.body.meta.urls).toContain(target.url);
    const hitsBefore = pageHits(FLIP, target.url);

    proxy.gone.add(productPathOf(target.url));
    const after = await callA('POST', '/v1/agentic-search', { query });
    expect(after.status).toBe(200);
    expect(pageHits(FLIP, target.url)).toBe(hitsBefore); // the proxy answered 404 itself
    expect(after.body.meta.urls).not.toContain(target.url);
    expect(after.body.meta.urls).toEqual(before.body.meta.urls.filter((url: string) => url !== target.url));
    expect(after.body.meta.credits_used).toBe(5);

    const started = await callA('POST', '/v2/agentic-search', { query, page_size: 8 });
    const body = await poll(
      async () => (await callA('GET', `/v2/agentic-search/${started.body.execution_id}`)).body,
      (b) => b.status === 'completed' || b.status === 'failed',
      'the agentic execution',
    );
    expect(body.status).toBe('completed');
    expect(body.data.map((d: any) => d.url)).not.toContain(target.url);
    expect(body.meta.progress.candidates_dropped).toBeGreaterThanOrEqual(1);
    expect(body.meta.progress.candidates_total).toBe(
      body.meta.progress.candidates_verified + body.meta.progress.candidates_dropped,
    );
    proxy.gone.clear();
  });
});

describe('progress of a v2 execution', () => {
  it('shows the verifying step while a candidate page is slow, then completes with it', async () => {
    // Pages are read live since the previous suite (PDS_AGENTIC_VERIFY_MAX_AGE_MS=0).
    const target = flip().product(6);
    proxy.slow.add(productPathOf(target.url));
    try {
      const started = await callA('POST', '/v2/agentic-search', { query: target.title, page_size: 3 });
      const path = `/v2/agentic-search/${started.body.execution_id}`;
      const mid = await poll(
        async () => (await callA('GET', path)).body,
        // A first poll can still see `pending`: wait for the step, or give up at a terminal status.
        (b) => b.meta.progress.step === 'verifying' || b.status === 'completed' || b.status === 'failed',
        'the verifying step',
      );
      expect(mid.status).toBe('running');
      expect(mid.data).toBeUndefined();
      expect(mid.meta.progress.candidates_total).toBeGreaterThan(0);
      expect(mid.meta.progress.percent_complete).toBeGreaterThanOrEqual(20);
      expect(mid.meta.progress.percent_complete).toBeLessThan(90);
      expect(mid.meta.stop_date).toBeNull();
      const done = await poll(
        async () => (await callA('GET', path)).body,
        (b) => b.status === 'completed' || b.status === 'failed',
        'completion',
      );
      expect(done.status).toBe('completed');
      expect(done.data.map((d: any) => d.url)).toContain(target.url);
    } finally {
      proxy.slow.clear();
    }
  });
});

describe('usage', () => {
  it('search calls are metered under their route templates', async () => {
    const usage = await callA('GET', '/api/usage?period=24h');
    const paths = Object.fromEntries(usage.body.usage.map((u: any) => [u.path, u.total_calls]));
    for (const path of [
      '/api/search',
      '/api/regular-search',
      '/api/feed',
      '/v1/agentic-search-mini',
      '/v2/agentic-search-mini',
      '/v1/agentic-search',
      '/v2/agentic-search',
      '/v2/agentic-search/{execution_id}',
    ]) {
      expect(paths[path], path).toBeGreaterThan(0);
    }
  });
});
