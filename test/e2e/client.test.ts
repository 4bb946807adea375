// The typed client (client/) against the local service (`npm start`'s runtime in process: embedded
// DynamoDB + SQS, the Step Functions service, SQS pollers, HTTP) and the store simulator: an
// extraction, a crawl, a vendor extraction that waits on its crawl, and searches, all started and
// followed through createPdsClient and waitFor; 429s are retried after Retry-After. Every response
// the client reads is checked against the served OpenAPI document (an openapi-fetch middleware).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Middleware } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPdsClient, type PdsClient, type PollIntervals, type WaitProgress } from '../../client';
import { getContainer } from '../../lambdas/composition/container';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { validateResponse } from './helpers/openapi-validator';

const KEY = 'client-e2e-key-org-a-00001';
const KEY_SLOW = 'client-e2e-key-org-slow-001';
const STEPS = ['Determining crawl method', 'Discovering collections', 'Analyzing collections', 'Extracting listings'];
/** The spec's intervals scaled down for a test (the unit tests pin the real ones). */
const FAST: PollIntervals = {
  extract: { minMs: 100, maxMs: 200 },
  extractWaitingOnCrawl: { minMs: 150, maxMs: 300 },
  crawl: { minMs: 100, maxMs: 300 },
  agentic: { minMs: 50, maxMs: 150 },
};
const TIMEOUT_MS = 120_000;

let service: LocalService;
let sim: StoreSimulator;
let doc: Record<string, any>;
let client: PdsClient;
let dataDir: string | undefined;
const problems: string[] = [];
let checked = 0;

/** Validates every response the client reads against the served document. */
const validating: Middleware = {
  async onResponse({ request, response }) {
    const url = new URL(request.url);
    const text = await response.clone().text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: validateResponse reports it
    }
    checked++;
    problems.push(
      ...validateResponse(doc, {
        method: request.method,
        path: url.pathname + url.search,
        status: response.status,
        headers: response.headers,
        body,
      }),
    );
    return undefined;
  },
};

beforeAll(async () => {
  sim = await startStoreSimulator({
    productsPerStore: 60,
    storeSizes: { 'shopify-collections.test': 150, 'html-only.test': 30 },
  });
  service = await startLocalService({
    port: 0,
    dataDir: (dataDir = mkdtempSync(join(tmpdir(), 'pds-client-e2e-'))),
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
      PDS_LOG_LEVEL: 'error',
    },
    bootstrapKeys: `${KEY}:org-a,${KEY_SLOW}:org-slow`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
  client = createPdsClient({ baseUrl: service.url, apiKey: KEY, intervals: FAST });
  client.api.use(validating);
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('typed client against the local service', () => {
  const extracted: string[] = [];

  it('starts an extraction and waits for it; progress is monotonic; results page in input order', async () => {
    const jsonld = sim.store('jsonld-shop.test');
    const shopify = sim.store('shopify-apparel.test');
    const urls = [
      jsonld.productUrl(3),
      shopify.productUrl(4),
      sim.store('robots-blocked.test').productUrl(5),
      jsonld.nonProductUrls.blog,
      sim.store('woo-home.test').productUrl(6),
    ];
    const { data: started, response } = await client.api.POST('/v2/extract', { body: { urls } });
    expect(response.status).toBe(202);
    expect(started!.meta.url_count).toBe(5);

    const seen: WaitProgress[] = [];
    const done = await client.waitFor(started!.execution_id, {
      kind: 'extract',
      timeoutMs: TIMEOUT_MS,
      onProgress: (p) => seen.push(p),
    });
    expect(done.status).toBe('completed');
    expect(done.meta.result).toMatchObject({ products_requested: 5, products_successful: 3, products_pending: 0 });
    expect(seen.at(-1)).toMatchObject({ status: 'completed', processed: 5, total: 5 });
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.processed).toBeGreaterThanOrEqual(seen[i - 1]!.processed);
    expect(seen.every((p, i) => p.polls === i + 1 && p.executionId === started!.execution_id)).toBe(true);

    const pages = [];
    for await (const page of client.extractResults(started!.execution_id, { pageSize: 2 })) pages.push(page);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const results = pages.flat();
    expect(results.map((r) => r.url)).toEqual(urls);
    expect(results.map((r) => r.outcome)).toEqual([
      'success',
      'success',
      'automated_access_not_permitted',
      'non_product_url',
      'success',
    ]);
    for (const r of results) if (r.success) extracted.push(r.product!.title!);
  });

  it('crawls a store and reports its four steps while waiting', async () => {
    const host = 'shopify-collections.test';
    const { data: started } = await client.api.POST('/v2/crawl', { body: { vendor: host } });
    const steps = new Set<string>();
    const done = await client.waitFor(started!.execution_id, {
      kind: 'crawl',
      timeoutMs: TIMEOUT_MS,
      onProgress: (p) => {
        if (p.step) steps.add(p.step);
        expect(p.stepsTotal).toBe(4);
      },
    });
    expect(done.status).toBe('completed');
    expect(done.meta.steps.map((s) => s.name)).toEqual(STEPS);
    expect(done.meta.steps.every((s) => s.status === 'completed')).toBe(true);
    expect(done.meta.result.listings_total).toBe(sim.catalog(host).listingCount());
    for (const step of steps) expect(STEPS).toContain(step);
  });

  it('follows a vendor extraction through its wait on a crawl (waiting_for) to the end', async () => {
    const { data: started, response } = await client.api.POST('/v2/extract', {
      body: { vendor: 'html-only.test', max_products: 4 },
    });
    expect(response.status).toBe(202);
    const seen: WaitProgress[] = [];
    const done = await client.waitFor(started!.execution_id, {
      kind: 'extract',
      timeoutMs: TIMEOUT_MS,
      onProgress: (p) => seen.push(p),
    });
    expect(done.status).toBe('completed');
    expect(done.meta.result.products_requested).toBe(4);
    expect(seen.some((p) => p.waitingFor?.startsWith('crawl-'))).toBe(true);
    expect(seen.at(-1)!.waitingFor).toBeUndefined();
  });

  it('searches what was extracted: the instant mini search and the agentic search through waitFor', async () => {
    expect(extracted.length).toBe(3);
    const query = extracted[0]!;
    const { data: mini } = await client.api.POST('/v2/agentic-search-mini', { body: { query, page_size: 5 } });
    expect(mini!.data.map((d) => d.product.title)).toContain(query);

    const { data: started } = await client.api.POST('/v2/agentic-search', { body: { query, page_size: 3 } });
    const steps: string[] = [];
    const done = await client.waitFor(started!.execution_id, {
      kind: 'agentic',
      timeoutMs: TIMEOUT_MS,
      onProgress: (p) => p.step && steps.push(p.step),
    });
    expect(done.status).toBe('completed');
    expect(done.data!.map((d) => d.product.title)).toContain(query);
    expect(steps.at(-1)).toBe('done');
  });

  it('a start repeated with the same Idempotency-Key answers the first execution (a fresh key per call otherwise)', async () => {
    const key = `client-e2e-${Date.now()}`;
    const body = { query: extracted[1]!, page_size: 2 };
    const first = await client.api.POST('/v2/agentic-search', { body, headers: { 'Idempotency-Key': key } });
    const again = await client.api.POST('/v2/agentic-search', { body, headers: { 'Idempotency-Key': key } });
    expect(first.response.status).toBe(202);
    expect(again.response.status).toBe(202);
    expect(again.data!.execution_id).toBe(first.data!.execution_id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    const fresh = await client.api.POST('/v2/agentic-search', { body });
    expect(fresh.data!.execution_id).not.toBe(first.data!.execution_id);
    for (const id of [first.data!.execution_id, fresh.data!.execution_id])
      expect((await client.waitFor(id, { kind: 'agentic', timeoutMs: TIMEOUT_MS })).status).toBe('completed');
  });

  it("pages through the organization's executions", async () => {
    const ids: string[] = [];
    for await (const page of client.executions('extract', { pageSize: 1 }))
      ids.push(...page.map((e) => e.execution_id));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    const crawls: string[] = [];
    for await (const page of client.executions('crawl', { status: 'completed' }))
      crawls.push(...page.map((e) => e.execution_id));
    expect(crawls.length).toBe(2);
  });

  it('retries 429s after Retry-After until every call of a rate-limited organization gets through', async () => {
    await getContainer().accounts.setOrganizationRateLimit('org-slow', { ratePerSecond: 1, burst: 1 });
    const raw: number[] = [];
    const slow = createPdsClient({
      baseUrl: service.url,
      apiKey: KEY_SLOW,
      maxRateLimitRetries: 20,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        raw.push(response.status);
        return response;
      },
    });
    slow.api.use(validating);
    // Six at once against a bucket of one: five must wait their turn.
    const replies = await Promise.all(Array.from({ length: 6 }, () => slow.api.GET('/v2/vendors')));
    expect(replies.map((r) => r.response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(raw.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(raw.filter((s) => s === 200)).toHaveLength(6);
  });

  it('every response read through the client matched the served OpenAPI document', () => {
    expect(checked).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});
