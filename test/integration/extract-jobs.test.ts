// Extraction jobs on the embedded table, each workflow step driven directly (the state machine
// run is in extract-jobs-workflow.test.ts). The ExtractUrl here is the test's own: it fetches a
// loopback server whose path decides the outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoExecutionStore } from '../../lambdas/adapters/dynamodb/executions';
import { dynamoExtractResultStore, PLAN_CHUNK } from '../../lambdas/adapters/dynamodb/extract-results';
import { dynamoProductStore, firstSeenKey } from '../../lambdas/adapters/dynamodb/products';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { gzipSync } from 'node:zlib';
import { SCHEMA } from '../../lambdas/adapters/dynamodb/schema';
import { dynamoVendorStore } from '../../lambdas/adapters/dynamodb/vendors';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { createExtractJobs, planEntries } from '../../lambdas/domain/extract-jobs/jobs';
import { createExtractSteps, LOST_BATCH_MESSAGE, type BatchMessage } from '../../lambdas/domain/extract-jobs/steps';
import { encodeResult } from '../../lambdas/domain/extract-jobs/claim-protocol';
import { InjectedFault, withFaults } from '../../lambdas/composition/faults';
import { extractNow } from '../../lambdas/domain/extract-jobs/sync';
import { createProductCatalog } from '../../lambdas/domain/products/catalog';
import type { ExtractOptions, ExtractUrl, ProductRecord, UrlResult } from '../../lambdas/domain/extraction/types';
import type { SerializedProduct } from '../../lambdas/ports/products';
import { failedResult } from '../fakes/extract-results';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';
import type { AppError } from '../../lambdas/domain/errors';

function productRecord(url: string, title: string): ProductRecord {
  return {
    id: title,
    title,
    description: null,
    description_html: null,
    vendor: null,
    brand: null,
    url,
    handle: null,
    is_available: true,
    attributes: { summary: 'enriched' },
    price: { currency: 'USD', current_value: 10, compare_at_value: null },
    images: [],
    options: [],
    variants: [],
    store_canonical_url: null,
    store_domain: null,
    platform: null,
    platform_id: null,
    product_type: 'Shirts',
    taxonomy_product_category_id: null,
    taxonomy_product_category_path: null,
    tags: [],
    video_url: null,
    review_count: null,
    average_rating: null,
    rating_scale: null,
    faqs: null,
    reviews: [],
    updated_at: new Date().toISOString(),
    similar_products: null,
    affiliate_link: null,
  };
}

/** Loopback "shop": /p/<n> is a product, /blocked 403, /about a non-product page, /down 503. */
async function startTestShop() {
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    fetches++;
    const path = req.url ?? '/';
    if (path.startsWith('/p/'))
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ title: `Product ${path.slice(3)}` }));
    else if (path === '/blocked') res.writeHead(403).end();
    else if (path === '/down') res.writeHead(503).end();
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>about</html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const extractUrl: ExtractUrl = async (url) => {
    const response = await fetch(url);
    const body = await response.text();
    if (response.status === 403)
      return {
        url,
        product: null,
        success: false,
        outcome: 'automated_access_not_permitted',
        retry: true,
        message: 'blocked',
      };
    if (response.status >= 500)
      return { url, product: null, success: false, outcome: 'other', retry: true, message: 'down' };
    if (!response.headers.get('content-type')?.includes('json'))
      return { url, product: null, success: false, outcome: 'non_product_url', retry: false, message: 'not a product' };
    return {
      url,
      product: productRecord(url, JSON.parse(body).title),
      success: true,
      outcome: 'success',
      retry: false,
      message: '',
    };
  };
  return {
    origin,
    extractUrl,
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const OPTIONS: ExtractOptions = {
  enableEnrichment: true,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};

let engines: Engines;
let clients: AwsClients;
let shop: Awaited<ReturnType<typeof startTestShop>>;

beforeAll(async () => {
  engines = await startEngines();
  clients = createClients({
    ...loadConfig({}),
    endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint },
  });
  shop = await startTestShop();
});
afterAll(async () => {
  await shop?.close();
  clients?.dynamodb.destroy();
  await engines?.stop();
});

function compose() {
  const started: string[] = [];
  const workflows: WorkflowEngine = {
    async start(_w, id) {
      started.push(id);
    },
    async stop() {},
  };
  const executions = createExecutions({ store: dynamoExecutionStore(clients.documents, engines.tableName), workflows });
  const results = dynamoExtractResultStore(clients.documents, engines.tableName);
  const vendors = dynamoVendorStore(clients.documents, engines.tableName);
  const catalog = createProductCatalog({ store: dynamoProductStore(clients.documents, engines.tableName), vendors });
  const jobs = createExtractJobs({ executions, results, workflows, workflowName: 'extract', deadlineSeconds: 600 });
  const stepsDeps = { executions, results, extractUrl: shop.extractUrl, catalog, batchUrls: 3, urlConcurrency: 1 };
  const steps = createExtractSteps(stepsDeps);
  /** The same steps in a worker that crashes at `crashAt` (< 0.5 before storing its results, else after): the composition's fault decorator. */
  const crashingAt = (crashAt: number) => (message: BatchMessage) =>
    withFaults(stepsDeps, { crashRate: 1, duplicateRate: 0 }, { random: () => crashAt }).processBatch(message);
  return { jobs, steps, crashingAt, started, executions, results, catalog, vendors };
}

/** The invariant every status read must satisfy. */
function checkInvariant(status: Awaited<ReturnType<ReturnType<typeof createExtractJobs>['status']>>) {
  const r = status.result;
  expect(r.products_successful + r.products_failed + r.products_invalid + r.products_pending).toBe(
    r.products_requested,
  );
  const sum = (m: Record<string, number | undefined>) => Object.values(m).reduce((a, b) => a! + b!, 0);
  expect(sum(r.products_failed_by_reason)).toBe(r.products_failed);
  expect(sum(r.products_invalid_by_reason)).toBe(r.products_invalid);
  for (const v of [...Object.values(r.products_failed_by_reason), ...Object.values(r.products_invalid_by_reason)])
    expect(v).toBeGreaterThan(0);
}

/** The document client, with the name of every command it sends listed in `sent`. */
function countingDocuments() {
  const sent: string[] = [];
  const counting = new Proxy(clients.documents, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        sent.push(command.constructor.name);
        return (target.send as (...a: unknown[]) => unknown).call(target, command, ...rest);
      };
    },
  });
  return { counting, sent };
}

describe('extraction jobs, step by step', () => {
  it('runs start -> prepare -> batches -> finalize with one result per input index and exact counts', async () => {
    const { jobs, steps, started } = compose();
    const urls = [
      `${shop.origin}/p/1`,
      'not a url',
      `${shop.origin}/p/2?utm_source=x`,
      `${shop.origin}/blocked`,
      `${shop.origin}/about`,
      `${shop.origin}/p/1`,
      `${shop.origin}/p/2`,
      `${shop.origin}/down`,
      'ftp://files.example/x',
    ];
    const start = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls, options: OPTIONS });
    expect(start).toMatchObject({ status: 'pending', credits_used: 0, url_count: 9, valid_count: 7 });
    expect(start.invalid_urls.map((u) => u.index)).toEqual([1, 8]);
    expect(started).toEqual([start.execution_id]);

    let status = await jobs.status({ org: 'org-a', executionId: start.execution_id });
    checkInvariant(status);
    expect(status).toMatchObject({ status: 'pending', results: null, credits_used: 0 });
    expect(status.result).toMatchObject({
      products_requested: 9,
      products_invalid: 2,
      products_invalid_by_reason: { malformed_url: 2 },
      products_pending: 7,
    });

    const prepared = await steps.prepare({ executionId: start.execution_id });
    expect(prepared.proceed).toBe(true);
    // Duplicates travel with their first occurrence: 5 distinct URLs in batches of 3.
    expect(prepared.batches).toEqual([
      { id: 'b0', indices: [0, 2, 3, 5, 6] },
      { id: 'b4', indices: [4, 7] },
    ]);
    status = await jobs.status({ org: 'org-a', executionId: start.execution_id });
    expect(status.status).toBe('running');
    checkInvariant(status);

    const fetchesBefore = shop.fetches();
    for (const batch of prepared.batches) {
      await steps.processBatch({ executionId: start.execution_id, batch });
      checkInvariant(await jobs.status({ org: 'org-a', executionId: start.execution_id }));
    }
    expect(shop.fetches() - fetchesBefore).toBe(5);
    // A redelivered message: nothing fetched or counted again.
    await steps.processBatch({ executionId: start.execution_id, batch: prepared.batches[0] });
    expect(shop.fetches() - fetchesBefore).toBe(5);

    await steps.finalize({ executionId: start.execution_id });
    status = await jobs.status({ org: 'org-a', executionId: start.execution_id, page: 1, pageSize: 50 });
    checkInvariant(status);
    expect(status.status).toBe('completed');
    expect(status.result).toEqual({
      products_requested: 9,
      products_successful: 4,
      products_failed: 2,
      products_failed_by_reason: { automated_access_not_permitted: 1, other: 1 },
      products_invalid: 3,
      products_invalid_by_reason: { non_product_url: 1, malformed_url: 2 },
      products_pending: 0,
    });
    expect(status.progress).toEqual({ products_processed: 9, products_total: 9, percent_complete: 100 });
    // 2 distinct successful products x (1 + enrichment).
    expect(status.credits_used).toBe(4);
    const items = status.results!.items;
    expect(items.map((r) => r.url)).toEqual(urls);
    expect(items.map((r) => r.outcome)).toEqual([
      'success',
      'malformed_url',
      'success',
      'automated_access_not_permitted',
      'non_product_url',
      'success',
      'success',
      'other',
      'malformed_url',
    ]);
    expect(items[1]).toMatchObject({ success: false, retry: false, product: null });
    expect(items[5].product?.title).toBe('Product 1');
    expect(status.results!.pagination).toEqual({
      page: 1,
      page_size: 50,
      total_items: 9,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });

    const page2 = await jobs.status({ org: 'org-a', executionId: start.execution_id, page: 2, pageSize: 4 });
    expect(page2.results!.items.map((r) => r.url)).toEqual(urls.slice(4, 8));
    await expect(jobs.status({ org: 'org-b', executionId: start.execution_id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('loses no URL when a worker crashes mid-batch, and records a dead-lettered batch as other, retry true', async () => {
    const { jobs, steps, crashingAt } = compose();
    const urls = Array.from({ length: 9 }, (_, i) => `${shop.origin}/p/crash-${i}`);
    const { execution_id } = await jobs.start({ org: 'org-a', kind: 'products-batch', urls, options: OPTIONS });
    const { batches } = await steps.prepare({ executionId: execution_id });
    expect(batches).toHaveLength(3);

    // Dies before storing its results: nothing counted; the redelivery does the batch.
    await expect(crashingAt(0.34)({ executionId: execution_id, batch: batches[0] })).rejects.toBeInstanceOf(
      InjectedFault,
    );
    let status = await jobs.status({ org: 'org-a', executionId: execution_id });
    checkInvariant(status);
    expect(status.result.products_pending).toBe(9);
    await steps.processBatch({ executionId: execution_id, batch: batches[0] });
    status = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(status.result.products_successful).toBe(3);

    // Dies right after storing its results: the redelivery copies and counts them, fetching nothing.
    await expect(crashingAt(0.67)({ executionId: execution_id, batch: batches[1] })).rejects.toBeInstanceOf(
      InjectedFault,
    );
    status = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(status.result.products_pending).toBe(6);
    const fetches = shop.fetches();
    expect(await steps.processBatch({ executionId: execution_id, batch: batches[1] })).toEqual({
      state: 'done',
      counted: true,
      handOff: [],
    });
    expect(shop.fetches()).toBe(fetches);
    status = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(status.result).toMatchObject({ products_successful: 6, products_pending: 3 });

    // Batch 3 crashes every time before storing and lands in the DLQ.
    await expect(crashingAt(0.1)({ executionId: execution_id, batch: batches[2] })).rejects.toBeInstanceOf(
      InjectedFault,
    );
    expect(await steps.abandonBatch({ executionId: execution_id, batch: batches[2] })).toEqual({ abandoned: 3 });
    // A late delivery of the same message changes nothing.
    expect(await steps.processBatch({ executionId: execution_id, batch: batches[2] })).toEqual({
      state: 'done',
      counted: false,
      handOff: [],
    });
    await steps.finalize({ executionId: execution_id });
    status = await jobs.status({ org: 'org-a', executionId: execution_id });
    checkInvariant(status);
    expect(status.result).toMatchObject({
      products_successful: 6,
      products_failed: 3,
      products_failed_by_reason: { other: 3 },
      products_pending: 0,
    });
    const lost = status.results!.items.find((r) => !r.success)!;
    expect(lost).toMatchObject({ outcome: 'other', retry: true, message: LOST_BATCH_MESSAGE });
  });

  it('keeps vendor counts exact when batches are delivered twice at once and again later', async () => {
    const { jobs, catalog, vendors, executions, results } = compose();
    // Products of two vendors (by the record's own URL); the same product listed twice counts once.
    const vendorOf = (n: number) => (n % 2 ? 'dup-odd.example' : 'dup-even.example');
    const extractUrl: ExtractUrl = async (url, options) => {
      const result = await shop.extractUrl(url, options);
      const n = Number(url.split('-').pop());
      return result.product
        ? { ...result, product: { ...result.product, url: `https://www.${vendorOf(n)}/products/${n}` } }
        : result;
    };
    const steps = createExtractSteps({ executions, results, extractUrl, catalog, batchUrls: 3, urlConcurrency: 2 });
    const urls = [
      ...Array.from({ length: 8 }, (_, i) => `${shop.origin}/p/dup-${i}`),
      `${shop.origin}/p/dup-3`,
      `${shop.origin}/about`,
    ];
    const { execution_id } = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls, options: OPTIONS });
    const { batches } = await steps.prepare({ executionId: execution_id });
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) {
      await Promise.all([0, 1].map(() => steps.processBatch({ executionId: execution_id, batch })));
      await steps.processBatch({ executionId: execution_id, batch });
    }
    await steps.finalize({ executionId: execution_id });
    const status = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(status.result).toMatchObject({ products_successful: 9, products_pending: 0 });

    const newest = async (vendor: string) =>
      (await catalog.listUpdated({ vendor, offset: 0, limit: 1 })).items[0].updated_at;
    for (const vendor of ['dup-odd.example', 'dup-even.example']) {
      const stored = await vendors.get(vendor);
      expect(stored?.productCount).toBe(4);
      expect(stored?.latestProductUpdate).toBe(await newest(vendor));
    }

    // Extracting the same products again moves the latest update forward and counts nothing.
    const before = (await vendors.get('dup-odd.example'))!.latestProductUpdate;
    const again = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls: urls.slice(0, 4), options: OPTIONS });
    for (const batch of (await steps.prepare({ executionId: again.execution_id })).batches)
      await steps.processBatch({ executionId: again.execution_id, batch });
    const after = await vendors.get('dup-odd.example');
    expect(after?.productCount).toBe(4);
    expect(after!.latestProductUpdate > before).toBe(true);
    expect(after?.latestProductUpdate).toBe(await newest('dup-odd.example'));
    expect((await vendors.get('dup-even.example'))?.productCount).toBe(4);
  });

  it('cancel: later batches are skipped, finished results stay readable, 409 afterwards', async () => {
    const { jobs, steps } = compose();
    const urls = Array.from({ length: 6 }, (_, i) => `${shop.origin}/p/cancel-${i}`);
    const { execution_id } = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls, options: OPTIONS });
    const { batches } = await steps.prepare({ executionId: execution_id });
    await steps.processBatch({ executionId: execution_id, batch: batches[0] });
    const cancelled = await jobs.cancel({ org: 'org-a', executionId: execution_id });
    expect(cancelled).toEqual({ execution_id, status: 'failed', error: 'Execution was cancelled' });
    expect(await steps.processBatch({ executionId: execution_id, batch: batches[1] })).toEqual({
      state: 'skipped',
      counted: false,
      handOff: [],
    });
    expect(await steps.finalize({ executionId: execution_id })).toMatchObject({ status: 'failed' });
    const status = await jobs.status({ org: 'org-a', executionId: execution_id });
    checkInvariant(status);
    expect(status).toMatchObject({ status: 'failed', error: 'Execution was cancelled' });
    expect(status.result).toMatchObject({ products_successful: 3, products_pending: 3 });
    expect(status.results!.items.map((r) => r.url)).toEqual(urls.slice(0, 3));
    await expect(jobs.cancel({ org: 'org-a', executionId: execution_id })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('validates input: empty, too many, and reject mode with invalid_urls', async () => {
    const { jobs } = compose();
    await expect(jobs.start({ org: 'o', kind: 'extract-urls', urls: [], options: OPTIONS })).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
    });
    await expect(
      jobs.start({ org: 'o', kind: 'extract-urls', urls: Array(1001).fill('a.example'), options: OPTIONS }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    const error = (await jobs
      .start({
        org: 'o',
        kind: 'extract-urls',
        urls: ['shop.example/p', 'javascript:alert(1)'],
        options: OPTIONS,
        onInvalid: 'reject',
      })
      .catch((e) => e)) as AppError;
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.context.invalid_urls).toEqual([
      { index: 1, url: 'javascript:alert(1)', problem: 'unsupported scheme javascript' },
    ]);
  });

  it('lists the org extractions newest first', async () => {
    const { jobs } = compose();
    const org = `org-list-${Date.now()}`;
    const a = await jobs.start({ org, kind: 'extract-urls', urls: ['bad url'], options: OPTIONS });
    const b = await jobs.start({ org, kind: 'products-batch', urls: ['bad url'], options: OPTIONS });
    const list = await jobs.list({ org });
    expect(list.items.map((i) => i.execution_id)).toEqual([b.execution_id, a.execution_id]);
    expect(list.items[0].status).toBe('processing');
  });
});

describe('synchronous extraction and the product store', () => {
  it('extracts up to 50 URLs, reuses a fresh stored record unless forced, and counts a product once per vendor', async () => {
    const { catalog, vendors } = compose();
    const url = `${shop.origin}/p/sync-1`;
    const before = shop.fetches();
    const first = await extractNow(
      { urls: [url, 'nope', url], options: OPTIONS },
      { extractUrl: shop.extractUrl, catalog },
    );
    expect(first.results.map((r: UrlResult) => r.outcome)).toEqual(['success', 'malformed_url', 'success']);
    expect(first).toMatchObject({ total_requested: 3, total_successful: 2, total_failed: 1 });
    expect(shop.fetches() - before).toBe(1);

    const again = await extractNow(
      { urls: [url], options: { ...OPTIONS, enableEnrichment: false } },
      { extractUrl: shop.extractUrl, catalog },
    );
    expect(again.fromStore).toEqual([true]);
    expect(shop.fetches() - before).toBe(1);
    // Enrichment off: the governed fields are null even though the stored record has them.
    expect(again.results[0].product).toMatchObject({ attributes: null, product_type: null });

    const withReviews = await extractNow(
      { urls: [url], options: { ...OPTIONS, enableReviews: true } },
      { extractUrl: shop.extractUrl, catalog },
    );
    expect(withReviews.fromStore).toEqual([false]);
    const forced = await extractNow(
      { urls: [url], options: OPTIONS, forceExtraction: true },
      { extractUrl: shop.extractUrl, catalog },
    );
    expect(forced.fromStore).toEqual([false]);
    expect(shop.fetches() - before).toBe(3);

    const vendor = await vendors.get('127.0.0.1');
    expect(vendor?.productCount).toBeGreaterThanOrEqual(1);
    const countBefore = vendor!.productCount;
    await extractNow(
      { urls: [url], options: OPTIONS, forceExtraction: true },
      { extractUrl: shop.extractUrl, catalog },
    );
    expect((await vendors.get('127.0.0.1'))!.productCount).toBe(countBefore);

    await expect(
      extractNow({ urls: Array(51).fill(url), options: OPTIONS }, { extractUrl: shop.extractUrl }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});

describe('a product serialized once for its record and its claim', () => {
  it('writes the record from the JSON it is given (short and gzipped) and keeps the gzip for the claim', async () => {
    const store = dynamoProductStore(clients.documents, engines.tableName);
    const given = (url: string, title: string) => productRecord(url, title);
    const short = `${shop.origin}/p/given-short`;
    const long = `${shop.origin}/p/given-long`;
    // The JSON differs from the object on purpose: the store must write the JSON, not serialize again.
    const longTitle = 'x'.repeat(3000);
    const shortJson = JSON.stringify(given(short, 'from json'));
    const longSerialized: SerializedProduct = { json: JSON.stringify(given(long, longTitle)) };
    await store.putRecords([
      {
        url: short,
        country: 'us',
        vendor: '127.0.0.1',
        product: given(short, 'object'),
        serialized: { json: shortJson },
        flags: { enrichment: true, reviews: false, image_tags: false, similar_products: false },
        updated_at: '2026-01-01T00:00:00.000Z',
      },
      {
        url: long,
        country: 'us',
        vendor: '127.0.0.1',
        product: given(long, 'object'),
        serialized: longSerialized,
        flags: { enrichment: true, reviews: false, image_tags: false, similar_products: false },
        updated_at: '2026-01-01T00:00:00.001Z',
      },
    ]);
    expect((await store.get(short, 'us'))?.product.title).toBe('from json');
    expect((await store.get(long, 'us'))?.product.title).toBe(longTitle);
    const items = await Promise.all(
      [short, long].map(async (url) => {
        const urlHash = createHash('sha256').update(url).digest('hex').slice(0, 32);
        const key = SCHEMA.product.key({ urlHash, country: 'us' });
        return (await clients.documents.send(new GetCommand({ TableName: engines.tableName, Key: key }))).Item!;
      }),
    );
    expect(items[0].product).toBe(shortJson);
    // The gzip is made once and kept with the product, for its claim to store the same bytes.
    expect(Buffer.from(items[1].product_gz).equals(Buffer.from(longSerialized.packed!))).toBe(true);
    for (const item of items) expect(item).not.toHaveProperty('serialized');
  });
});

describe('the batch claim decides which products are new', () => {
  /** The shop's products, but each record's own URL on `vendor` (the vendor they are counted for). */
  const onVendor =
    (vendor: string): ExtractUrl =>
    async (url, options) => {
      const result = await shop.extractUrl(url, options);
      const n = url.split('/').pop();
      return result.product
        ? { ...result, product: { ...result.product, url: `https://www.${vendor}/products/${n}` } }
        : result;
    };

  it('a worker that dies right after its claim: the redelivery marks its new products and counts them once', async () => {
    const { jobs, executions, results, catalog, vendors } = compose();
    const vendor = 'claim-crash.example';
    const stepsDeps = { executions, results, catalog, extractUrl: onVendor(vendor), batchUrls: 3, urlConcurrency: 1 };
    const steps = createExtractSteps(stepsDeps);
    const crashing = withFaults(stepsDeps, { crashRate: 1, duplicateRate: 0 }, { random: () => 0.9 });
    const urls = Array.from({ length: 3 }, (_, i) => `${shop.origin}/p/claim-crash-${i}`);
    const { execution_id } = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls, options: OPTIONS });
    const [batch] = (await steps.prepare({ executionId: execution_id })).batches;

    // Records and claim written, then the worker dies: no first-seen mark yet, nothing counted.
    await expect(crashing.processBatch({ executionId: execution_id, batch })).rejects.toBeInstanceOf(InjectedFault);
    expect((await vendors.get(vendor))?.productCount ?? 0).toBe(0);
    const products = dynamoProductStore(clients.documents, engines.tableName);
    expect((await products.seenBefore(urls.map((u) => u))).size).toBe(0);

    // The redelivery finds the claim: it marks the claim's new products and counts them, fetching nothing.
    const fetches = shop.fetches();
    expect(await steps.processBatch({ executionId: execution_id, batch })).toEqual({
      state: 'done',
      counted: true,
      handOff: [],
    });
    expect(shop.fetches()).toBe(fetches);
    expect((await vendors.get(vendor))?.productCount).toBe(3);
    expect((await products.seenBefore(urls)).size).toBe(3);
    // Later deliveries and a second extraction of the same URLs count nothing more.
    await steps.processBatch({ executionId: execution_id, batch });
    const again = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls, options: OPTIONS });
    for (const next of (await steps.prepare({ executionId: again.execution_id })).batches)
      await steps.processBatch({ executionId: again.execution_id, batch: next });
    expect((await vendors.get(vendor))?.productCount).toBe(3);
  });

  it('keeps a product first-seen instant when it is extracted again, and counts a URL new only once', async () => {
    const { jobs, executions, results, catalog, vendors } = compose();
    const vendor = 'first-seen.example';
    const steps = createExtractSteps({
      executions,
      results,
      catalog,
      extractUrl: onVendor(vendor),
      batchUrls: 2,
      urlConcurrency: 2,
    });
    const url = `${shop.origin}/p/first-seen-1`;
    const markOf = async () =>
      (
        await clients.documents.send(
          new GetCommand({
            TableName: engines.tableName,
            Key: firstSeenKey(url),
            ConsistentRead: true,
          }),
        )
      ).Item?.first_seen_at as string | undefined;
    const run = async (list: string[]) => {
      const { execution_id } = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls: list, options: OPTIONS });
      for (const batch of (await steps.prepare({ executionId: execution_id })).batches)
        await steps.processBatch({ executionId: execution_id, batch });
      await steps.finalize({ executionId: execution_id });
      return execution_id;
    };
    await run([url, `${shop.origin}/p/first-seen-2`]);
    const first = await markOf();
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await vendors.get(vendor))?.productCount).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await run([url, `${shop.origin}/p/first-seen-3`]);
    expect(await markOf()).toBe(first);
    expect((await vendors.get(vendor))?.productCount).toBe(3);
    // The stored record moved on; its vendor's latest update is that record's.
    const stored = await dynamoProductStore(clients.documents, engines.tableName).get(url, 'us');
    expect(stored!.updated_at > first!).toBe(true);
  });

  it('reads the execution, the claim and the entries of a batch in one BatchGet; outlines carry outcomes, not results', async () => {
    const { jobs, steps, executions } = compose();
    const urls = [`${shop.origin}/p/one-read-1`, `${shop.origin}/p/one-read-2`, `${shop.origin}/about`, 'not a url'];
    const { execution_id } = await jobs.start({ org: 'org-a', kind: 'extract-urls', urls, options: OPTIONS });
    const [batch] = (await steps.prepare({ executionId: execution_id })).batches;
    const { counting, sent } = countingDocuments();
    const store = dynamoExtractResultStore(counting, engines.tableName);
    const read = await store.readBatch(execution_id, batch, { withExecution: true });
    expect(sent).toEqual(['BatchGetCommand']);
    expect(read.execution).toEqual(await executions.get(execution_id));
    expect(read.claim).toBeNull();
    expect(read.entries.map((e) => e.index)).toEqual(batch.indices);

    await steps.processBatch({ executionId: execution_id, batch });
    sent.length = 0;
    const outlines = await store.outlines(execution_id);
    expect(sent).toEqual(['QueryCommand']);
    const full = await store.all(execution_id);
    expect(outlines).toEqual(
      full.map(({ result, ...entry }) => ({ ...entry, result: result && { outcome: result.outcome } })),
    );
    expect(outlines.map((o) => o.result?.outcome)).toEqual(['success', 'success', 'non_product_url', 'malformed_url']);
    const claimed = await store.readBatch(execution_id, batch);
    expect(claimed.execution).toBeUndefined();
    expect(claimed.claim?.products.map((p) => p.isNew)).toEqual([true, true]);
  });

  it('plans a new extraction in a few plan items and reads each entry from the latest of its plan, its own item and its claim', async () => {
    const store = dynamoExtractResultStore(clients.documents, engines.tableName);
    const executionId = `plan-${Date.now()}`;
    const urls = Array.from({ length: 2 * PLAN_CHUNK + 50 }, (_, i) =>
      i === 7 ? 'not a url' : i === 9 ? `${shop.origin}/p/0` : `${shop.origin}/p/${i}`,
    );
    const { entries } = planEntries(urls);
    await store.putPlan(executionId, entries);
    const items = async () =>
      (
        await clients.documents.send(
          new QueryCommand({
            TableName: engines.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `EXEC#${executionId}` },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [];
    // Three plan items (250 pending entries) and the one malformed entry's own item, not 250 items.
    const written = await items();
    expect(written.filter((i) => String(i.sk).startsWith('PLAN#'))).toHaveLength(3);
    expect(written.filter((i) => String(i.sk).startsWith('URL#')).map((i) => i.index)).toEqual([7]);
    expect(await store.all(executionId)).toEqual(entries);
    expect((await store.outlines(executionId)).map((o) => [o.index, o.state, o.result?.outcome ?? null])).toEqual(
      entries.map((e) => [e.index, e.state, e.result?.outcome ?? null]),
    );
    expect(await store.range(executionId, 95, 10)).toEqual(entries.slice(95, 105));
    // Past the end, up to the last page a caller may ask for (page 1,000,000 of 100): nothing, not a failed query.
    expect(await store.range(executionId, 250, 10)).toEqual([]);
    expect(await store.range(executionId, 999_999 * 100, 100)).toEqual([]);
    expect(await store.get(executionId, [249, 0, 150])).toEqual([entries[0], entries[150], entries[249]]);

    // A planned entry is recorded once (it has no item of its own until then), never twice.
    const blocked: UrlResult = { ...failedResult(entries[3].input), outcome: 'automated_access_not_permitted' };
    expect(await store.record(executionId, 3, blocked)).toBe(true);
    expect(await store.record(executionId, 3, failedResult(entries[3].input))).toBe(false);
    expect(await store.record(executionId, 7, failedResult('x'))).toBe(false);

    // A batch done by its claim: its entries get no item of their own; readers take their results
    // from the claim. An entry the claim holds no result for stays pending.
    const batch = { id: 'b100', indices: [100, 101, 102] };
    expect(
      (await store.readBatch(executionId, { id: 'b100', indices: [100, 101, 102, 103] })).entries.map((e) => e.state),
    ).toEqual(['pending', 'pending', 'pending', 'pending']);
    const claimed = new Map(batch.indices.map((index) => [index, failedResult(entries[index].input)]));
    const { claim } = await store.claimBatch(
      executionId,
      batch.id,
      [...claimed].map(([index, result]) => encodeResult(index, result)),
    );
    expect([...claim.results!]).toEqual([...claimed].map(([index, result]) => [index, { outcome: result.outcome }]));
    const entryItems = (await items()).filter((i) => String(i.sk).startsWith('URL#'));
    expect(entryItems.map((i) => i.index)).toEqual([3, 7]);
    const expected = entries.map((e) =>
      e.index === 3
        ? { ...e, state: 'done', result: blocked }
        : batch.indices.includes(e.index)
          ? { ...e, state: 'done', result: claimed.get(e.index) }
          : e,
    );
    expect(await store.all(executionId)).toEqual(expected);
    expect(await store.range(executionId, 99, 3)).toEqual(expected.slice(99, 102));
    expect((await store.readBatch(executionId, batch)).entries).toEqual(expected.slice(100, 103));
    expect((await store.outlines(executionId)).filter((o) => o.state === 'done').map((o) => o.index)).toEqual([
      3, 7, 100, 101, 102,
    ]);
    expect(await store.get(executionId, [103, 101, 3])).toEqual([expected[3], expected[101], expected[103]]);
    // The batch's read: its claim's entries done, one it holds no result for still pending.
    expect((await store.readBatch(executionId, { id: 'b100', indices: [100, 103] })).entries).toEqual([
      expected[100],
      expected[103],
    ]);
  });

  it("stores a claim's products apart, as their records do, and still reads claims written whole", async () => {
    const store = dynamoExtractResultStore(clients.documents, engines.tableName);
    const executionId = `parts-${Date.now()}`;
    const { entries } = planEntries(Array.from({ length: 4 }, (_, i) => `${shop.origin}/p/parts-${i}`));
    await store.putPlan(executionId, entries);
    const product = (i: number, title: string) => productRecord(entries[i].input, title);
    const success = (i: number, p: ProductRecord): UrlResult => ({
      url: entries[i].input,
      product: p,
      success: true,
      outcome: 'success',
      retry: false,
      message: '',
    });
    const short = product(0, 'short');
    const long = product(1, 'long '.repeat(400));
    // Packed already (its record was written first): the claim must store these bytes, not
    // compress again; they hold a different title on purpose, so a second gzip would show.
    const packedTitle = 'packed '.repeat(400);
    const longSerialized: SerializedProduct = {
      json: JSON.stringify(long),
      packed: gzipSync(JSON.stringify({ ...long, title: packedTitle })),
    };
    const failed = failedResult(entries[2].input);
    const whole = success(3, product(3, 'whole'));
    const encoded = [
      encodeResult(0, success(0, short), { json: JSON.stringify(short) }),
      encodeResult(1, success(1, long), longSerialized),
      encodeResult(2, failed),
      encodeResult(3, whole),
    ];
    const { won } = await store.claimBatch(executionId, 'b0', encoded);
    expect(won).toBe(true);
    const item = (
      await clients.documents.send(
        new GetCommand({ TableName: engines.tableName, Key: { pk: `EXEC#${executionId}`, sk: 'BATCH#b0' } }),
      )
    ).Item!;
    expect(item.product_parts).toHaveLength(2);
    expect(item.product_parts[0]).toBe(JSON.stringify(short));
    expect(Buffer.from(item.product_parts[1]).equals(Buffer.from(longSerialized.packed!))).toBe(true);
    const read = await store.all(executionId);
    expect(read.map((e) => e.result)).toEqual([
      success(0, short),
      success(1, { ...long, title: packedTitle }),
      failed,
      whole,
    ]);
    // Key order as the result had it: the product where it was.
    expect(Object.keys(read[0].result!)).toEqual(Object.keys(success(0, short)));

    // A claim written before products were stored apart: rows of two, products inline.
    const legacyId = `parts-legacy-${Date.now()}`;
    await store.putPlan(legacyId, entries);
    const rows = [
      [0, success(0, short)],
      [2, failed],
    ];
    await clients.documents.send(
      new PutCommand({
        TableName: engines.tableName,
        Item: {
          pk: `EXEC#${legacyId}`,
          sk: 'BATCH#b0',
          entity: 'batch-claim',
          batch_id: 'b0',
          results_gz: gzipSync(JSON.stringify(rows)),
          outcomes: JSON.stringify([
            [0, 'success'],
            [2, failed.outcome],
          ]),
        },
      }),
    );
    expect((await store.all(legacyId)).map((e) => e.result)).toEqual([success(0, short), null, failed, null]);

    // Parts count towards the claim's limit: products too large together are recorded one by one.
    const big = (i: number) => {
      const p = product(i, randomBytes(100 * 1024).toString('base64'));
      return encodeResult(i, success(i, p), { json: JSON.stringify(p) });
    };
    const tooLarge = await store.claimBatch(`parts-large-${Date.now()}`, 'b0', [0, 1, 2, 3].map(big));
    expect(tooLarge.claim.results).toBeNull();
  });

  it("reads a batch's own entry items when it has a claim without results or no plan item, and only then", async () => {
    const { counting, sent } = countingDocuments();
    const store = dynamoExtractResultStore(counting, engines.tableName);
    const executionId = `own-${Date.now()}`;
    const { entries } = planEntries(Array.from({ length: 150 }, (_, i) => `${shop.origin}/p/own-${i}`));
    await store.putPlan(executionId, entries);
    const batch = { id: 'b0', indices: [0, 1, 2] };
    sent.length = 0;
    expect((await store.readBatch(executionId, batch)).entries).toEqual(entries.slice(0, 3));
    expect(sent).toEqual(['BatchGetCommand']);

    // A claim too large to hold its results (incompressible messages): its entries are recorded
    // one by one, and the batch's read finds them.
    const noise = (i: number) => randomBytes(150 * 1024).toString('base64') + i;
    const { claim } = await store.claimBatch(
      executionId,
      batch.id,
      batch.indices.map((index) =>
        encodeResult(index, { ...failedResult(entries[index].input), message: noise(index) }),
      ),
    );
    expect(claim.results).toBeNull();
    const recorded = failedResult(entries[1].input);
    expect(await store.record(executionId, 1, recorded)).toBe(true);
    sent.length = 0;
    const read = await store.readBatch(executionId, batch);
    expect(read.entries.map((e) => [e.index, e.state, e.result])).toEqual([
      [0, 'pending', null],
      [1, 'done', recorded],
      [2, 'pending', null],
    ]);
    expect(sent).toEqual(['BatchGetCommand', 'BatchGetCommand']);

    // Entries planned one by one (no plan item for their chunk) are read from their own items.
    const single = `own-single-${Date.now()}`;
    await store.putEntries(single, entries.slice(100, 103));
    await store.record(single, 101, recorded);
    expect((await store.readBatch(single, { id: 'b100', indices: [100, 101, 102] })).entries).toEqual([
      entries[100],
      { ...entries[101], state: 'done', result: recorded },
      entries[102],
    ]);
  });
});
