// Provenance per field (provenance.ts): the engine over real HTTP to the store simulator with the
// got fetcher, include_provenance on and off. Off: no key and nothing else differs; on: each
// field's source, the sources agreeing, and the values that lost with their sources.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpFetcher } from '../../lambdas/adapters/http-fetch';
import { loadConfig } from '../../lambdas/config';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { batchingFor, optionsOf } from '../../lambdas/domain/extract-jobs/model';
import { createExtractor } from '../../lambdas/domain/extraction/engine';
import { extractOptionsFrom } from '../../lambdas/domain/extraction/options';
import { renderedProvenance, withoutProvenance } from '../../lambdas/domain/extraction/provenance';
import type { ExtractUrl, ProductRecord } from '../../lambdas/domain/extraction/types';
import type { Execution } from '../../lambdas/domain/executions/model';
import { startStoreSimulator, type StoreSimulator } from '../stores';

let sim: StoreSimulator;
let extract: ExtractUrl;
const ON = extractOptionsFrom({ include_provenance: true });
const OFF = extractOptionsFrom({ include_provenance: false });

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 3 });
  const config = loadConfig({ PDS_RESOLVE: sim.resolveEnv });
  const now = new Date('2026-01-02T03:04:05Z');
  extract = createExtractor({
    fetcher: createHttpFetcher({ resolve: config.resolve, crawlDelayMs: 0 }),
    enricher: createOfflineEnricher(),
    now: () => now,
  });
});
afterAll(async () => sim?.close());

async function record(host: string, index: number, options = ON): Promise<ProductRecord> {
  const result = await extract(sim.store(host).productUrl(index), options);
  expect(result.outcome, result.message).toBe('success');
  return result.product!;
}

describe('include_provenance', () => {
  it('off: the options and the record carry no provenance key; on: the same record plus its provenance', async () => {
    expect('includeProvenance' in OFF).toBe(false);
    for (const host of ['stale-price.test', 'shopify-apparel.test', 'microdata-shop.test', 'opengraph-shop.test']) {
      const off = await record(host, 1, OFF);
      const on = await record(host, 1, ON);
      expect('provenance' in off, host).toBe(false);
      expect(on.provenance, host).toBeDefined();
      expect(withoutProvenance(on), host).toEqual(off);
    }
  });

  it('JSON-LD and the page text disagree on the price: the text won, the stale JSON-LD value lost', async () => {
    const truth = sim.store('stale-price.test').product(1);
    const product = await record('stale-price.test', 1);
    const p = product.provenance!;
    expect(product.price.current_value).toBeCloseTo(truth.price, 2);
    expect(p.price).toEqual({
      source: 'page-text',
      also: [],
      rejected: [{ value: truth.staleJsonLdPrice, sources: ['json-ld'] }],
    });
    expect(p.title).toEqual({ source: 'json-ld', also: ['page-text'], rejected: [] });
    // Each variant's price: the page's variants agree with the shown price, JSON-LD's offers do not.
    expect(p.variants.source).toBe('page-text');
    product.variants.forEach((variant, i) => {
      expect(variant.price.current_value).toBeCloseTo(truth.variants[i].price, 2);
      const entry = p[`variants[${i}].price`];
      expect(entry.source).toBe('page-text');
      expect(entry.rejected).toEqual([{ value: truth.variants[i].compareAt, sources: ['json-ld'] }]);
    });
  });

  it('platform JSON wins and the markup that agrees is named; fields without a value have no entry', async () => {
    const product = await record('shopify-apparel.test', 0);
    const p = product.provenance!;
    expect(p.price.source).toBe('platform-json');
    expect(p.price.also).toEqual(expect.arrayContaining(['json-ld']));
    expect(p.images.source).toBe('platform-json');
    expect(p['variants[0].price'].source).toBe('platform-json');
    if (product.price.compare_at_value == null) expect(p.compare_at_price).toBeUndefined();
    expect(Object.keys(p).filter((k) => k.startsWith('variants['))).toHaveLength(product.variants.length);
  });

  it('a page with OpenGraph only: its values come from open-graph', async () => {
    const p = (await record('opengraph-shop.test', 0)).provenance!;
    expect(p.title.source === 'open-graph' || p.title.also.includes('open-graph')).toBe(true);
    expect(p.price.source === 'open-graph' || p.price.also.includes('open-graph')).toBe(true);
  });

  it('a rendered page: page-text reads browser everywhere, the markup keeps its name', () => {
    const relabelled = renderedProvenance({
      price: { source: 'page-text', also: ['microdata'], rejected: [{ value: 9, sources: ['json-ld', 'page-text'] }] },
      title: { source: 'microdata', also: ['page-text'], rejected: [] },
    });
    expect(relabelled).toEqual({
      price: { source: 'browser', also: ['microdata'], rejected: [{ value: 9, sources: ['json-ld', 'browser'] }] },
      title: { source: 'microdata', also: ['browser'], rejected: [] },
    });
  });

  it('flows with the execution options and batches like a rich extraction', () => {
    const execution = { options: { ...ON } } as unknown as Execution;
    expect(optionsOf(execution).includeProvenance).toBe(true);
    expect('includeProvenance' in optionsOf({ options: { ...OFF } } as unknown as Execution)).toBe(false);
    expect(batchingFor(ON).max).toBeLessThan(batchingFor(OFF).max);
  });
});
