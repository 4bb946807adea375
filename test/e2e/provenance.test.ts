// Provenance per field, end to end over real HTTP through the local runtime against the store
// simulator: POST /v2/extract (state machine, queue, extract worker) and POST /api/product with
// include_provenance on and off, every response checked against the served OpenAPI document.
// stale-price.test's JSON-LD still states last month's price while the page shows the sale
// price; spa-hydrate.test's price is only in what a browser renders.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { validatedClient } from './helpers/validated-client';

const KEY = 'provenance-key-00000001';
const POLL_MS = 250;
const MAX_POLLS = 240;

let service: LocalService;
let sim: StoreSimulator;
let doc: Record<string, any>;
const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 5 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-provenance-')),
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RENDER_BUDGET_MS: '10000',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
    },
    bootstrapKeys: `${KEY}:org-provenance`,
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

/** Every source named anywhere in a provenance. */
const sourcesOf = (provenance: Record<string, any>) =>
  new Set(
    Object.values(provenance).flatMap((e: any) => [e.source, ...e.also, ...e.rejected.flatMap((r: any) => r.sources)]),
  );

/** The stale-price page's price: the page's text won, JSON-LD's stale value lost. */
function expectStalePrice(provenance: Record<string, any>, index: number) {
  const truth = sim.store('stale-price.test').product(index);
  expect(provenance.price.source).toBe('page-text');
  expect(provenance.price.rejected).toEqual([{ value: truth.staleJsonLdPrice, sources: ['json-ld'] }]);
  expect(provenance.title).toMatchObject({ source: 'json-ld', rejected: [] });
  expect(provenance.title.also).toContain('page-text');
}

describe('the document', () => {
  it('offers include_provenance on every extraction start and single-product operation, and documents the record', () => {
    for (const [path, method] of [
      ['/v2/extract', 'post'],
      ['/v1/extract', 'post'],
      ['/v1/products', 'post'],
      ['/api/product', 'post'],
      ['/api/products', 'post'],
    ]) {
      const schema = doc.paths[path][method].requestBody.content['application/json'].schema;
      const body = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
      expect(body.properties.include_provenance, path).toMatchObject({ type: 'boolean', default: false });
    }
    for (const record of ['FullProductRecord', 'LegacyRichProductRecord']) {
      expect(doc.components.schemas[record].properties.provenance, record).toBeDefined();
      expect(doc.components.schemas[record].required).not.toContain('provenance');
    }
    expect(doc.components.schemas.ProvenanceSource.enum).toEqual(
      expect.arrayContaining(['json-ld', 'microdata', 'open-graph', 'platform-json', 'page-text', 'browser']),
    );
  });
});

describe('POST /v2/extract', () => {
  it('gives each record its provenance when asked: winner and loser with their sources', async () => {
    const stale = sim.store('stale-price.test').productUrl(1);
    const shopify = sim.store('shopify-apparel.test').productUrl(1);
    const results = await extractV2([stale, shopify], { include_provenance: true });
    const staleRecord = results.get(stale).product;
    expect(staleRecord.price.current_value).toBeCloseTo(sim.store('stale-price.test').product(1).price, 2);
    expectStalePrice(staleRecord.provenance, 1);
    const platform = results.get(shopify).product.provenance;
    expect(platform.price.source).toBe('platform-json');
    expect(platform.price.also).toContain('json-ld');
    expect(platform['variants[0].price'].source).toBe('platform-json');
    // The batch stored the shared record without it.
    const stored = await call('POST', '/api/product', { url: stale, enable_enrichment: false });
    expect(stored.body.meta.from_store).toBe(true);
    expect('provenance' in stored.body.product).toBe(false);
  });

  it('gives no provenance key at all when not asked', async () => {
    const stale = sim.store('stale-price.test').productUrl(2);
    const results = await extractV2([stale]);
    const record = results.get(stale).product;
    expect(record.price.current_value).toBeCloseTo(sim.store('stale-price.test').product(2).price, 2);
    expect('provenance' in record).toBe(false);
  });
});

describe('POST /api/product', () => {
  it('asked: provenance in the legacy record; the stored record keeps none; asking again reads the page', async () => {
    const url = sim.store('stale-price.test').productUrl(3);
    const asked = await call('POST', '/api/product', { url, include_provenance: true });
    expect(asked.status).toBe(200);
    expect(asked.body.meta).toMatchObject({ found: true, from_store: false });
    expectStalePrice(asked.body.product.provenance, 3);

    const plain = await call('POST', '/api/product', { url });
    expect(plain.body.meta.from_store).toBe(true);
    expect('provenance' in plain.body.product).toBe(false);
    expect(plain.body.product.price_amount).toBe(asked.body.product.price_amount);

    const again = await call('POST', '/api/product', { url, include_provenance: true });
    expect(again.body.meta.from_store).toBe(false);
    expectStalePrice(again.body.product.provenance, 3);
  });

  it('a rendered page: what its text says comes from the browser, never page-text', async () => {
    const url = sim.store('spa-hydrate.test').productUrl(0);
    const reply = await call('POST', '/api/product', { url, include_provenance: true, force_extraction: true });
    expect(reply.body.meta.outcome, reply.body.meta.message).toBe('success');
    const { provenance } = reply.body.product;
    expect(reply.body.product.price_amount).toBeCloseTo(sim.store('spa-hydrate.test').product(0).price, 2);
    // The price is only in what the browser rendered: its visible text states it.
    expect([provenance.price.source, ...provenance.price.also]).toContain('browser');
    const sources = sourcesOf(provenance);
    expect(sources.has('browser')).toBe(true);
    expect(sources.has('page-text')).toBe(false);
    const off = await call('POST', '/api/product', { url, force_extraction: true });
    expect('provenance' in off.body.product).toBe(false);
  }, 60_000);
});
