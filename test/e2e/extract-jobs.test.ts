// Asynchronous extraction over real HTTP: /v1/products* and /v2/extract* through the local
// runtime (embedded DynamoDB + SQS, the Step Functions service running the extract state
// machine, SQS pollers calling the workers) against the store simulator. Every response is
// checked against the served OpenAPI document; every status poll checks
// successful + failed + invalid + pending = requested.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { validatedClient } from './helpers/validated-client';

const KEY_A = 'extract-jobs-key-org-a-0001';
const KEY_B = 'extract-jobs-key-org-b-0001';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** Fraction of extract-worker invocations that crash in the fault run (E2E_FAULT_RATE overrides). */
const FAULT_RATE = Number(process.env.E2E_FAULT_RATE ?? 0.3);
const POLL_MS = 150;
const MAX_POLLS = 400;

let service: LocalService;
let sim: StoreSimulator;
let doc: Record<string, any>;

/** Every call goes through real HTTP and is checked against the served document. */
const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY_A);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts of one status read, from either family, with the invariant checked. */
function countsOf(body: any, family: 'v1' | 'v2') {
  if (family === 'v2') {
    const r = body.meta.result;
    expect(r.products_successful + r.products_failed + r.products_invalid + r.products_pending).toBe(
      r.products_requested,
    );
    expect(body.meta.progress.products_processed).toBe(r.products_requested - r.products_pending);
    expect(body.meta.progress.products_total).toBe(r.products_requested);
    if (body.status === 'completed') expect(body.pagination.total_items).toBe(r.products_requested);
    if (body.status === 'pending' || body.status === 'running') expect(body.data).toBeUndefined();
    return {
      requested: r.products_requested,
      successful: r.products_successful,
      failed: r.products_failed,
      invalid: r.products_invalid,
      pending: r.products_pending,
    };
  }
  if (body.status === 'pending' || body.status === 'running') expect(body.results).toBeUndefined();
  if (body.progress) expect(body.progress.urls_completed).toBeLessThanOrEqual(body.progress.total_urls);
  if (!body.results) return null;
  const m = body.results.meta;
  expect(m.total_successful + m.total_failed + m.total_invalid + m.total_pending).toBe(m.total_requested);
  return {
    requested: m.total_requested,
    successful: m.total_successful,
    failed: m.total_failed,
    invalid: m.total_invalid,
    pending: m.total_pending,
  };
}

/** Polls a status path until the execution is finished; bounded in polls and time. */
async function pollUntilDone(
  path: string,
  family: 'v1' | 'v2',
  key = KEY_A,
  until?: (body: any) => boolean,
): Promise<any> {
  for (let i = 0; i < MAX_POLLS; i++) {
    const reply = await call('GET', path, undefined, key);
    expect(reply.status).toBe(200);
    countsOf(reply.body, family);
    if (until ? until(reply.body) : reply.body.status === 'completed' || reply.body.status === 'failed')
      return reply.body;
    await sleep(POLL_MS);
  }
  throw new Error(`${path} did not reach the expected state within ${MAX_POLLS} polls`);
}

/** Every page of results (v1 `results.products` or v2 `data`). */
async function allResults(path: string, family: 'v1' | 'v2', pageSize: number): Promise<any[]> {
  const items: any[] = [];
  const sizeParam = family === 'v1' ? 'limit' : 'page_size';
  for (let page = 1; page <= 50; page++) {
    const reply = await call('GET', `${path}?page=${page}&${sizeParam}=${pageSize}`);
    const pageItems = family === 'v1' ? reply.body.results.products : reply.body.data;
    items.push(...pageItems);
    const pagination = reply.body.pagination;
    expect(pagination.page).toBe(page);
    expect(family === 'v1' ? pagination.limit : pagination.page_size).toBe(pageSize);
    if (!pagination.has_next) break;
  }
  return items;
}

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 400, slowDelayMs: 2500 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-extract-jobs-')),
    env: { PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0', PDS_FAULT_RATE: '0', PDS_DUPLICATE_RATE: '0' },
    bootstrapKeys: `${KEY_A}:org-a,${KEY_B}:org-b`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
});

/** The mixed input both families run: good, duplicate, malformed (v1 only), flaky, blocked, walled, not a product. */
function mixedUrls() {
  const jsonld = sim.store('jsonld-shop.test');
  const shopify = sim.store('shopify-apparel.test');
  return {
    good: [jsonld.productUrl(10), shopify.productUrl(11), sim.store('woo-home.test').productUrl(12)],
    duplicateOfFirst: `${jsonld.productUrl(10)}?utm_source=newsletter#top`,
    flaky: sim.store('flaky.test').productUrl(13),
    robots: sim.store('robots-blocked.test').productUrl(14),
    botWall: sim.store('bot-wall.test').productUrl(15),
    notProduct: jsonld.nonProductUrls.blog,
  };
}

describe('documented as built', () => {
  it('lists no 501 for the built operations (vendor mode is built with the crawl: test/e2e/crawl.test.ts)', () => {
    for (const [path, method] of [
      ['/v1/products', 'post'],
      ['/v1/products', 'get'],
      ['/v1/products/{execution_id}', 'get'],
      ['/v1/products/{execution_id}', 'delete'],
      ['/v2/extract', 'get'],
      ['/v2/extract/{execution_id}', 'get'],
      ['/v2/extract/{execution_id}', 'delete'],
    ]) {
      expect(doc.paths[path][method].responses['501'], `${method} ${path}`).toBeUndefined();
    }
    expect(doc.paths['/v2/extract'].post.responses['501']).toBeUndefined();
    expect(doc.paths['/v2/extract'].post.responses['202']).toBeDefined();
    expect(doc.paths['/v1/extract'].post.responses['501']).toBeUndefined();
  });
});

describe('v1 /v1/products', () => {
  it('validates: 1001 URLs, empty strings, an empty array, a bad country -> 400 in the v1 shape', async () => {
    const url = sim.store('jsonld-shop.test').productUrl(1);
    const tooMany = await call('POST', '/v1/products', { urls: Array.from({ length: 1001 }, () => url) });
    expect(tooMany).toEqual({
      status: 400,
      body: { error: 'urls must contain at most 1000 URLs', code: 'INVALID_PARAMETER' },
    });
    const empty = await call('POST', '/v1/products', { urls: [url, url, '  '] });
    expect(empty).toEqual({
      status: 400,
      body: { error: 'urls[2] must be a non-empty string', code: 'INVALID_PARAMETER' },
    });
    expect((await call('POST', '/v1/products', { urls: [] })).status).toBe(400);
    expect((await call('POST', '/v1/products', {})).body.error).toBe('urls is required');
    expect((await call('POST', '/v1/products', { urls: [url], country_code: 'qq' })).body.error).toContain(
      'country_code',
    );
    expect((await call('POST', '/v1/products', { urls: [url], enable_reviews: 1 })).status).toBe(400);
  });

  let executionId: string;
  const urls = () => {
    const m = mixedUrls();
    return [
      m.good[0],
      m.good[1],
      'definitely not a url',
      m.duplicateOfFirst,
      m.flaky,
      m.robots,
      m.botWall,
      m.notProduct,
      m.good[2],
      'mailto:someone@example.com',
    ];
  };

  it('runs a mixed job to completion; every URL gets one result with its outcome; invariant at every poll', async () => {
    const input = urls();
    const started = await call('POST', '/v1/products', { urls: input });
    expect(started.status).toBe(200);
    expect(started.body.success).toBe(true);
    expect(started.body.execution_id).toMatch(new RegExp(`^products-batch-${UUID}$`));
    executionId = started.body.execution_id;

    const done = await pollUntilDone(`/v1/products/${executionId}`, 'v1');
    expect(done.status).toBe('completed');
    expect(done.error).toBeNull();
    expect(done.progress).toMatchObject({
      urls_completed: input.length,
      total_urls: input.length,
      percent_complete: 100,
    });

    const results = await allResults(`/v1/products/${executionId}`, 'v1', 3);
    expect(results.map((r) => r.url)).toEqual(input);
    const outcomes = results.map((r) => r.outcome);
    expect(outcomes[0]).toBe('success');
    expect(outcomes[1]).toBe('success');
    expect(outcomes[2]).toBe('malformed_url');
    expect(outcomes[3]).toBe('success');
    expect(['success', 'other']).toContain(outcomes[4]);
    expect(outcomes[5]).toBe('automated_access_not_permitted');
    expect(outcomes[6]).toBe('automated_access_not_permitted');
    expect(outcomes[7]).toBe('non_product_url');
    expect(outcomes[8]).toBe('success');
    expect(outcomes[9]).toBe('malformed_url');
    for (const r of results) {
      expect(r.success).toBe(r.outcome === 'success');
      expect(r.product === null).toBe(!r.success);
      if (r.outcome === 'malformed_url' || r.outcome === 'non_product_url') expect(r.retry).toBe(false);
      if (r.outcome === 'other') expect(r.retry).toBe(true);
    }
    // v1 defaults: enrichment on, reviews and image tags off.
    const product = results[0].product;
    expect(product.title).toBe(sim.store('jsonld-shop.test').product(10).title);
    expect(product.price).toMatchObject({
      current_value: sim.store('jsonld-shop.test').product(10).price,
      currency: 'USD',
    });
    expect(product.attributes).not.toBeNull();
    expect(product.reviews).toBeNull();
    expect(product.images.every((image: { attributes: unknown }) => image.attributes === null)).toBe(true);
    expect(results[3].product.id).toBe(product.id);

    const status = await call('GET', `/v1/products/${executionId}?page=1&limit=50`);
    const meta = status.body.results.meta;
    const successes = outcomes.filter((o) => o === 'success').length;
    expect(meta).toMatchObject({
      total_requested: 10,
      total_successful: successes,
      total_invalid: 3,
      total_pending: 0,
    });
    expect(meta.total_invalid_by_reason).toEqual({ malformed_url: 2, non_product_url: 1 });
    expect(meta.total_failed_by_reason.automated_access_not_permitted).toBe(2);
    expect(status.body.progress.products_processed).toBe(successes);
    // Credits: (1 + enrichment) per successful product actually fetched; the duplicate is free.
    expect(status.body.credits_used).toBe((successes - 1) * 2);
    expect(status.body.pagination).toEqual({
      page: 1,
      limit: 50,
      total_items: 10,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
  });

  it('validates status paging', async () => {
    expect((await call('GET', `/v1/products/${executionId}?limit=101`)).status).toBe(400);
    expect((await call('GET', `/v1/products/${executionId}?page=0`)).status).toBe(400);
    const far = await call('GET', `/v1/products/${executionId}?page=9&limit=5`);
    expect(far.body.results.products).toEqual([]);
    expect(far.body.pagination).toMatchObject({
      page: 9,
      limit: 5,
      total_items: 10,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    // The last page a caller may ask for, in each family: empty pages, not a failed query.
    const last = await call('GET', `/v1/products/${executionId}?page=1000000&limit=50`);
    expect(last.status).toBe(200);
    expect(last.body.results.products).toEqual([]);
    const lastV2 = await call('GET', `/v2/extract/${executionId}?page=1000000&page_size=100`);
    expect(lastV2.status, JSON.stringify(lastV2.body)).toBe(200);
  });

  it('lists executions most recent first with `processing` for unfinished ones, filters by status, bounds limit', async () => {
    const second = await call('POST', '/v1/products', { urls: [sim.store('slow.test').productUrl(1)] });
    const list = await call('GET', '/v1/products');
    expect(list.status).toBe(200);
    const ids = list.body.executions.map((e: { execution_id: string }) => e.execution_id);
    expect(ids.indexOf(second.body.execution_id)).toBeLessThan(ids.indexOf(executionId));
    const first = list.body.executions.find(
      (e: { execution_id: string }) => e.execution_id === second.body.execution_id,
    );
    expect(first.status).toBe('processing');
    const completed = await call('GET', '/v1/products?status=completed&limit=100');
    expect(completed.body.executions.every((e: { status: string }) => e.status === 'completed')).toBe(true);
    expect(completed.body.executions.map((e: { execution_id: string }) => e.execution_id)).toContain(executionId);
    const processing = await call('GET', '/v1/products?status=processing');
    expect(processing.body.executions.map((e: { execution_id: string }) => e.execution_id)).toContain(
      second.body.execution_id,
    );
    expect((await call('GET', '/v1/products?limit=1')).body.executions).toHaveLength(1);
    expect((await call('GET', '/v1/products?limit=0')).status).toBe(400);
    expect((await call('GET', '/v1/products?status=running')).status).toBe(400);
    await pollUntilDone(`/v1/products/${second.body.execution_id}`, 'v1');
  });

  it("another organization's execution is 404 for status and cancel, and absent from its list", async () => {
    const status = await call('GET', `/v1/products/${executionId}`, undefined, KEY_B);
    expect(status.status).toBe(404);
    expect(status.body.code).toBe('NOT_FOUND');
    expect((await call('DELETE', `/v1/products/${executionId}`, undefined, KEY_B)).status).toBe(404);
    const list = await call('GET', '/v1/products', undefined, KEY_B);
    expect(list.body.executions.map((e: { execution_id: string }) => e.execution_id)).not.toContain(executionId);
    expect((await call('GET', '/v1/products/products-batch-00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await call('GET', '/v1/products/not-an-id')).status).toBe(404);
  });

  it('cancels a running execution: failed, "Execution was cancelled", finished results readable; a second cancel is 409', async () => {
    const fast = sim.store('opengraph-shop.test');
    const slow = sim.store('slow.test');
    const input = [
      ...Array.from({ length: 10 }, (_, i) => fast.productUrl(20 + i)),
      ...Array.from({ length: 20 }, (_, i) => slow.productUrl(40 + i)),
    ];
    const started = await call('POST', '/v1/products', { urls: input, enable_enrichment: false });
    const id = started.body.execution_id;
    await pollUntilDone(
      `/v1/products/${id}`,
      'v1',
      KEY_A,
      (body) => body.status !== 'pending' && body.progress.urls_completed >= 1,
    );
    const cancelled = await call('DELETE', `/v1/products/${id}`);
    expect(cancelled).toEqual({ status: 200, body: { success: true, execution_id: id, status: 'failed' } });
    const after = await call('GET', `/v1/products/${id}?limit=100`);
    expect(after.body.status).toBe('failed');
    expect(after.body.error).toBe('Execution was cancelled');
    const finished = after.body.results.products;
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.length).toBeLessThan(input.length);
    for (const r of finished) expect(input).toContain(r.url);
    expect(after.body.results.meta.total_pending).toBe(
      input.length -
        after.body.results.meta.total_successful -
        after.body.results.meta.total_failed -
        after.body.results.meta.total_invalid,
    );
    const again = await call('DELETE', `/v1/products/${id}`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
  });
});

describe('v2 /v2/extract', () => {
  it('validates: 1001 URLs, invalid entries reported together in invalid_urls, both or neither source, vendor mode', async () => {
    const url = sim.store('jsonld-shop.test').productUrl(1);
    const tooMany = await call('POST', '/v2/extract', { urls: Array.from({ length: 1001 }, () => url) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'urls must contain at most 1000 URLs',
    });

    const bad = await call('POST', '/v2/extract', {
      urls: [url, '', 'ftp://files.example/a', url, 'no-dot', 42, 'https://ok.example/p'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_PARAMETER');
    expect(bad.body.invalid_urls.map((e: { index: number }) => e.index)).toEqual([1, 2, 4, 5]);
    for (const entry of bad.body.invalid_urls)
      expect(entry).toEqual({ index: expect.any(Number), url: expect.any(String), problem: expect.any(String) });
    expect(bad.body.invalid_urls[0]).toEqual({ index: 1, url: '', problem: 'empty string' });

    const both = await call('POST', '/v2/extract', { urls: [url], vendor: 'shop.example' });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe('exactly one of urls and vendor is required');
    expect((await call('POST', '/v2/extract', { enable_enrichment: true })).status).toBe(400);
    expect((await call('POST', '/v2/extract', { urls: [] })).status).toBe(400);
    expect((await call('POST', '/v2/extract', { urls: [url], country_code: 'zz' })).status).toBe(400);

    const vendorInvalid = await call('POST', '/v2/extract', { vendor: 'shop.example', max_products: 0 });
    expect(vendorInvalid.status).toBe(400);
    // A vendor without listings: its crawl starts and the extraction waits for it.
    const vendor = await call('POST', '/v2/extract', { vendor: 'shop.example' });
    expect(vendor.status).toBe(202);
    expect(vendor.body.meta).toMatchObject({ listings_count: 0, products_to_process: 0 });
    const v1Vendor = await call('POST', '/v1/extract', { max_products: 5 });
    expect(v1Vendor).toMatchObject({ status: 400, body: { error: 'domain is required', code: 'INVALID_PARAMETER' } });
    expect((await call('POST', '/v1/extract', { domain: 'shop.example' })).status).toBe(200);
  });

  let executionId: string;
  let input: string[];

  it('runs a mixed job: 202 pending, polling with the invariant, then data with full records honouring the flags', async () => {
    const m = mixedUrls();
    input = [m.good[0], m.duplicateOfFirst, m.good[1], m.flaky, m.robots, m.botWall, m.notProduct, m.good[2]];
    const started = await call('POST', '/v2/extract', {
      urls: input,
      enable_enrichment: true,
      enable_image_tags: true,
    });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      execution_id: expect.stringMatching(new RegExp(`^extract-urls-${UUID}$`)),
      status: 'pending',
      meta: { credits_used: 0, url_count: input.length },
    });
    executionId = started.body.execution_id;

    const done = await pollUntilDone(`/v2/extract/${executionId}`, 'v2');
    expect(done.status).toBe('completed');
    expect(done.error).toBeNull();
    expect(done.meta.progress).toEqual({
      products_processed: input.length,
      products_total: input.length,
      percent_complete: 100,
    });
    expect(Date.parse(done.meta.stop_date)).toBeGreaterThanOrEqual(Date.parse(done.meta.start_date));
    expect(done.meta.duration_ms).toBe(Date.parse(done.meta.stop_date) - Date.parse(done.meta.start_date));

    const data = await allResults(`/v2/extract/${executionId}`, 'v2', 3);
    expect(data.map((r) => r.url)).toEqual(input);
    const outcomes = data.map((r) => r.outcome);
    expect(outcomes[0]).toBe('success');
    expect(outcomes[1]).toBe('success');
    expect(outcomes[2]).toBe('success');
    expect(['success', 'other']).toContain(outcomes[3]);
    expect(outcomes.slice(4, 8)).toEqual([
      'automated_access_not_permitted',
      'automated_access_not_permitted',
      'non_product_url',
      'success',
    ]);

    const product = data[2].product;
    const truth = sim.store('shopify-apparel.test').product(11);
    expect(product.title).toBe(truth.title);
    expect(product.price).toEqual({
      currency: truth.currency,
      current_value: truth.price,
      compare_at_value: truth.compareAt,
    });
    expect(product.variants[0].price).toEqual({
      currency: expect.any(String),
      current_value: expect.any(Number),
      compare_at_value: expect.toBeOneOf([null, expect.any(Number)]),
    });
    expect(product.platform).toBe('shopify');
    expect(product.attributes).not.toBeNull();
    expect(product.taxonomy_product_category_path).toEqual(expect.any(String));
    expect(product.images.every((image: { attributes: unknown }) => image.attributes !== null)).toBe(true);
    expect(product.reviews).toBeNull();
    expect(product.similar_products).toBeNull();

    const successes = outcomes.filter((o) => o === 'success').length;
    expect(done.meta.result).toMatchObject({
      products_requested: input.length,
      products_successful: successes,
      products_invalid: 1,
      products_invalid_by_reason: { non_product_url: 1 },
      products_pending: 0,
    });
    expect(done.meta.result.products_failed_by_reason.automated_access_not_permitted).toBe(2);
    // 1 + enrichment + image tags per successful product fetched; the duplicate costs nothing.
    expect(done.meta.credits_used).toBe((successes - 1) * 3);
  });

  it('flags off (the v2 default) null every governed field', async () => {
    const url = sim.store('productgroup-shop.test').productUrl(30);
    const started = await call('POST', '/v2/extract', { urls: [url] });
    const done = await pollUntilDone(`/v2/extract/${started.body.execution_id}`, 'v2');
    const product = done.data[0].product;
    for (const field of [
      'attributes',
      'product_type',
      'taxonomy_product_category_id',
      'taxonomy_product_category_path',
      'reviews',
      'similar_products',
    ]) {
      expect(product[field], field).toBeNull();
    }
    expect(product.images.every((image: { attributes: unknown }) => image.attributes === null)).toBe(true);
    expect(done.meta.credits_used).toBe(1);
  });

  it('lists in the v2 envelope, most recent first, filters and bounds page_size', async () => {
    const list = await call('GET', '/v2/extract?page_size=100');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({});
    const created = list.body.data.map((e: { created_at: string }) => Date.parse(e.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(list.body.data.map((e: { execution_id: string }) => e.execution_id)).toContain(executionId);
    const pageOne = await call('GET', '/v2/extract?page_size=1');
    expect(pageOne.body.data).toHaveLength(1);
    expect(pageOne.body.pagination).toMatchObject({ page: 1, page_size: 1, has_next: true, has_prev: false });
    const failed = await call('GET', '/v2/extract?status=failed');
    expect(failed.body.data.every((e: { status: string }) => e.status === 'failed')).toBe(true);
    expect((await call('GET', '/v2/extract?page_size=101')).status).toBe(400);
    expect((await call('GET', '/v2/extract?status=pending')).status).toBe(400);
  });

  it('another organization gets 404 in the v2 shape; unknown ids too', async () => {
    const other = await call('GET', `/v2/extract/${executionId}`, undefined, KEY_B);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    expect((await call('DELETE', `/v2/extract/${executionId}`, undefined, KEY_B)).status).toBe(404);
    expect((await call('GET', `/v2/extract/extract-urls-00000000-0000-0000-0000-000000000000`)).status).toBe(404);
  });

  it('a finished execution cannot be cancelled (409 CONFLICT); a running one can, keeping what finished', async () => {
    const finished = await call('DELETE', `/v2/extract/${executionId}`);
    expect(finished.status).toBe(409);
    expect(finished.body.error.code).toBe('CONFLICT');

    const fast = sim.store('euro-shop.test');
    const slow = sim.store('slow.test');
    const urls = [
      ...Array.from({ length: 10 }, (_, i) => fast.productUrl(i)),
      ...Array.from({ length: 20 }, (_, i) => slow.productUrl(100 + i)),
    ];
    const started = await call('POST', '/v2/extract', { urls });
    const id = started.body.execution_id;
    await pollUntilDone(
      `/v2/extract/${id}`,
      'v2',
      KEY_A,
      (body) => body.status === 'running' && body.meta.progress.products_processed >= 1,
    );
    const cancelled = await call('DELETE', `/v2/extract/${id}`);
    expect(cancelled).toEqual({
      status: 200,
      body: { execution_id: id, status: 'failed', error: 'Execution was cancelled' },
    });
    const after = await call('GET', `/v2/extract/${id}?page_size=100`);
    expect(after.body).toMatchObject({ status: 'failed', error: 'Execution was cancelled' });
    expect(after.body.data.length).toBeGreaterThanOrEqual(1);
    expect(after.body.data.length).toBeLessThan(urls.length);
    expect(after.body.meta.stop_date).toEqual(expect.any(String));
    countsOf(after.body, 'v2');
  });
});

describe('worker faults', () => {
  it(`crashing workers (rate ${FAULT_RATE}) and duplicate deliveries never change the counts or double-charge`, async () => {
    service.configure({ faults: { crashRate: FAULT_RATE, duplicateRate: 0.2 } });
    try {
      const store = sim.store('jsonld-shop.test');
      const good = Array.from({ length: 45 }, (_, i) => store.productUrl(200 + i));
      const urls = [
        ...good,
        store.productUrl(200),
        store.nonProductUrls.search,
        sim.store('bot-wall.test').productUrl(3),
      ];
      const started = await call('POST', '/v2/extract', { urls, enable_enrichment: false });
      expect(started.status).toBe(202);
      const done = await pollUntilDone(`/v2/extract/${started.body.execution_id}`, 'v2');
      expect(done.status).toBe('completed');
      const data = await allResults(`/v2/extract/${started.body.execution_id}`, 'v2', 100);
      expect(data.map((r) => r.url)).toEqual(urls);
      // A batch that crashed on every delivery is recorded as other/retry by the dead-letter worker.
      const lost = data.filter((r) => r.outcome === 'other');
      for (const r of lost) expect(r.retry).toBe(true);
      for (const [i, r] of data.slice(0, 46).entries()) expect(['success', 'other'], `index ${i}`).toContain(r.outcome);
      expect(['non_product_url', 'other']).toContain(data[46].outcome);
      expect(['automated_access_not_permitted', 'other']).toContain(data[47].outcome);
      const successes = data.filter((r) => r.success).length;
      expect(done.meta.result.products_successful).toBe(successes);
      expect(done.meta.result.products_pending).toBe(0);
      const chargedSuccesses = data.slice(0, 45).filter((r) => r.success).length;
      expect(done.meta.credits_used).toBe(chargedSuccesses);
      expect(successes).toBeGreaterThan(0);
    } finally {
      service.configure({ faults: { crashRate: 0, duplicateRate: 0 } });
    }
  });
});
