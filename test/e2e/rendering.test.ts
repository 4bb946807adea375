// Pages that only render in a browser, end to end over real HTTP through the local runtime: the
// rendered-only stores of the simulator (test/stores/rendered-pages.ts) through POST /v2/extract
// (the state machine, the queue, the extract worker) and POST /api/product, every response
// checked against the served OpenAPI document. One browser (the service's) serves the whole file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { type SimProduct, startStoreSimulator, type StoreSimulator } from '../stores';
import { validatedClient } from './helpers/validated-client';

const KEY = 'rendering-key-000000001';
// Seven pages render at once in the batch on a small machine: the budget leaves them room.
const BUDGET_MS = 10_000;
const POLL_MS = 250;
const MAX_POLLS = 240;
const RENDERED = ['spa-inline.test', 'spa-fetch.test', 'spa-hydrate.test', 'spa-hostile.test'];

let service: LocalService;
let sim: StoreSimulator;
let doc: Record<string, any>;
const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const truth = (host: string, index = 0): SimProduct => sim.store(host).product(index);
const urlOf = (host: string, index = 0) => sim.store(host).productUrl(index);

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 5 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-rendering-')),
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RENDER_BUDGET_MS: String(BUDGET_MS),
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
    },
    bootstrapKeys: `${KEY}:org-render`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
});

async function extractV2(urls: string[], extra: Record<string, unknown> = {}): Promise<Map<string, any>> {
  const started = await call('POST', '/v2/extract', { urls, ...extra });
  expect(started.status).toBe(202);
  const path = `/v2/extract/${started.body.execution_id}`;
  for (let i = 0; i < MAX_POLLS; i++) {
    const reply = await call('GET', `${path}?page_size=100`);
    if (reply.body.status === 'completed') return new Map(reply.body.data.map((r: any) => [r.url, r]));
    expect(reply.body.status).not.toBe('failed');
    await sleep(POLL_MS);
  }
  throw new Error(`${path} did not complete within ${MAX_POLLS} polls`);
}

function expectFullRecord(result: any, product: SimProduct) {
  expect(result.outcome, result.message).toBe('success');
  expect(result.product.title).toBe(product.title);
  expect(result.product.price.current_value).toBeCloseTo(product.price, 2);
  expect(result.product.price.currency).toBe(product.currency);
  expect(result.product.is_available).toBe(product.available);
  expect(result.product.images.map((i: any) => i.url)).toEqual(product.images.map((i) => i.url));
  expect(result.product.fetched_with).toBe('browser');
}

describe('POST /v2/extract', () => {
  it('renders the client-rendered pages, reads the HTML ones as HTML, and ends the pages that never settle as other', async () => {
    const urls = [
      ...RENDERED.map((host) => urlOf(host)),
      urlOf('dom-shop.test'),
      urlOf('spa-never-settles.test'),
      urlOf('spa-loop.test'),
    ];
    const results = await extractV2(urls);
    for (const host of RENDERED) expectFullRecord(results.get(urlOf(host)), truth(host));
    const html = results.get(urlOf('dom-shop.test'));
    expect(html.outcome).toBe('success');
    expect(html.product.fetched_with).toBe('http');
    for (const host of ['spa-never-settles.test', 'spa-loop.test']) {
      const result = results.get(urlOf(host));
      expect(result.outcome).toBe('other');
      expect(result.retry).toBe(true);
      expect(result.message).toMatch(/did not answer in time/);
    }
    // The hostile page's loopback fetch, XHR, image, websocket and pop-up, and its metadata fetch.
    expect(sim.canary.connections()).toBe(0);
  }, 90_000);

  it('render: never reads the HTML only', async () => {
    const results = await extractV2([urlOf('spa-inline.test', 1)], { render: 'never' });
    const result = results.get(urlOf('spa-inline.test', 1));
    expect(result.success).toBe(false);
    expect(['non_product_url', 'other']).toContain(result.outcome);
  }, 60_000);

  it('render: always renders a page the HTML reads too', async () => {
    const results = await extractV2([urlOf('jsonld-shop.test', 1)], { render: 'always' });
    const result = results.get(urlOf('jsonld-shop.test', 1));
    expect(result.outcome).toBe('success');
    expect(result.product.title).toBe(truth('jsonld-shop.test', 1).title);
    expect(result.product.fetched_with).toBe('browser');
  }, 60_000);

  it('refuses a render value it does not know, in the family error shape', async () => {
    const reply = await call('POST', '/v2/extract', { urls: [urlOf('spa-inline.test')], render: 'sometimes' });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/render must be one of auto, always, never/);
  });
});

describe('POST /api/product', () => {
  it.each(RENDERED)(
    'returns the product of %s',
    async (host) => {
      const product = truth(host, 2);
      const reply = await call('POST', '/api/product', { url: urlOf(host, 2), enable_enrichment: false });
      expect(reply.status).toBe(200);
      expect(reply.body.meta.found, reply.body.meta.message).toBe(true);
      expect(reply.body.product.title).toBe(product.title);
      expect(reply.body.product.price_amount).toBeCloseTo(product.price, 2);
      expect(reply.body.product.price_currency).toBe(product.currency);
      expect(reply.body.product.is_available).toBe(product.available);
      expect(reply.body.product.images.map((i: any) => i.url)).toEqual(product.images.map((i) => i.url));
    },
    30_000,
  );

  it('ends a page that loops forever as other within its budget, and the next page renders', async () => {
    const started = Date.now();
    const looping = await call('POST', '/api/product', { url: urlOf('spa-loop.test', 3), enable_enrichment: false });
    expect(looping.body.meta.found).toBe(false);
    expect(looping.body.meta.outcome).toBe('other');
    expect(Date.now() - started).toBeLessThan(BUDGET_MS + 4000);
    const next = await call('POST', '/api/product', { url: urlOf('spa-inline.test', 3), enable_enrichment: false });
    expect(next.body.meta.found, next.body.meta.message).toBe(true);
    expect(next.body.product.title).toBe(truth('spa-inline.test', 3).title);
  }, 30_000);
});
