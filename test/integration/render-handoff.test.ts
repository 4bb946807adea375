// The hand-off to the render worker on the embedded table: the extract worker's steps with the
// HTML pass that hands pages on (composition/rendering.ts handingOnExtractor), the render worker's
// steps with Chromium from npm as it runs on Lambda (one process, one page at a time), the DLQ's
// and the workflow's lost-batch steps, over the store simulator's rendered-only stores. Every URL
// ends with exactly one outcome, whichever worker fails, and the counts agree with the outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { createHttpFetcher, type HttpFetcher } from '../../lambdas/adapters/http-fetch';
import { createBrowserRenderer, type BrowserRenderer } from '../../lambdas/adapters/browser';
import { dynamoExecutionStore } from '../../lambdas/adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../../lambdas/adapters/dynamodb/extract-results';
import { dynamoProductStore } from '../../lambdas/adapters/dynamodb/products';
import { dynamoVendorStore } from '../../lambdas/adapters/dynamodb/vendors';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { createExtractJobs } from '../../lambdas/domain/extract-jobs/jobs';
import {
  createExtractSteps,
  HAND_OFF_URLS,
  LOST_BATCH_MESSAGE,
  NOT_PROCESSED_MESSAGE,
  type ExtractStepsDeps,
} from '../../lambdas/domain/extract-jobs/steps';
import { countEntries } from '../../lambdas/domain/extract-jobs/model';
import { createProductCatalog } from '../../lambdas/domain/products/catalog';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { handingOnExtractor, renderingExtractor } from '../../lambdas/composition/rendering';
import { InjectedFault, withFaults } from '../../lambdas/composition/faults';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { PLAIN_OPTIONS } from '../fakes/extract-options';

const BUDGET_MS = 4000;
const RENDERED = ['spa-inline.test', 'spa-fetch.test', 'spa-hydrate.test'];

let engines: Engines;
let clients: AwsClients;
let sim: StoreSimulator;
let fetcher: HttpFetcher;
let renderer: BrowserRenderer;

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 3 });
  engines = await startEngines();
  const config = loadConfig({ PDS_RESOLVE: sim.resolveEnv });
  clients = createClients({ ...config, endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint } });
  fetcher = createHttpFetcher({ resolve: config.resolve, crawlDelayMs: 0 });
  // As on Lambda (config.lambda): Chromium as one process, its pages one at a time (renderStepsOf).
  renderer = createBrowserRenderer({ fetcher, pageBudgetMs: BUDGET_MS, singleProcess: true });
}, 60_000);
afterAll(async () => {
  await renderer?.close();
  clients?.dynamodb.destroy();
  await engines?.stop();
  await sim?.close();
});

function compose() {
  const workflows: WorkflowEngine = { start: async () => undefined, stop: async () => undefined };
  const executions = createExecutions({ store: dynamoExecutionStore(clients.documents, engines.tableName), workflows });
  const results = dynamoExtractResultStore(clients.documents, engines.tableName);
  const vendors = dynamoVendorStore(clients.documents, engines.tableName);
  const catalog = createProductCatalog({ store: dynamoProductStore(clients.documents, engines.tableName), vendors });
  const jobs = createExtractJobs({ executions, results, workflows, workflowName: 'extract', deadlineSeconds: 600 });
  const enricher = createOfflineEnricher();
  const base = { executions, results, catalog };
  const extractSteps = createExtractSteps({ ...base, extractUrl: handingOnExtractor({ fetcher, enricher }) });
  const renderDeps: ExtractStepsDeps = {
    ...base,
    extractUrl: renderingExtractor({ fetcher, enricher, renderer }),
    urlConcurrency: 1,
  };
  const renderSteps = createExtractSteps(renderDeps);
  // The render worker dying on every delivery, before its results are stored (the composition's fault decorator).
  const crashingRender = withFaults(renderDeps, { crashRate: 1, duplicateRate: 0 }, { random: () => 0.3 });
  const planning = createExtractSteps(base);
  return { jobs, executions, results, extractSteps, renderSteps, crashingRender, planning };
}

/** Starts an extraction of `urls` and prepares it: its one batch. */
async function started(parts: ReturnType<typeof compose>, urls: string[]) {
  const { execution_id: executionId } = await parts.jobs.start({
    org: 'org-render',
    kind: 'extract-urls',
    urls,
    options: PLAIN_OPTIONS,
  });
  const prepared = await parts.extractSteps.prepare({ executionId });
  expect(prepared.batches).toHaveLength(1);
  return { executionId, batch: prepared.batches[0] };
}

/** Every entry done, each with one result, and the execution's counters are the entries' counts. */
async function expectOneOutcomeEach(parts: ReturnType<typeof compose>, executionId: string, count: number) {
  const entries = await parts.results.all(executionId);
  expect(entries).toHaveLength(count);
  expect(entries.every((entry) => entry.state === 'done' && entry.result)).toBe(true);
  const execution = await parts.executions.get(executionId);
  expect(execution!.status).toBe('completed');
  const counts = countEntries(entries, 1);
  for (const [outcome, n] of Object.entries(counts)) expect(execution!.counters[outcome] ?? 0, outcome).toBe(n);
  return new Map(entries.map((entry) => [entry.input, entry.result!]));
}

describe('pages handed on to the render worker', () => {
  it('only the pages that need a browser go, in parts; the render worker records them once; the batch settles with the last part', async () => {
    const parts = compose();
    const rendered = RENDERED.flatMap((host) => [0, 1].map((i) => sim.store(host).productUrl(i)));
    const html = [sim.store('dom-shop.test').productUrl(0), sim.store('jsonld-shop.test').productUrl(0)];
    const restless = sim.store('spa-never-settles.test').productUrl(0);
    const urls = [...rendered, ...html, restless, rendered[0]];
    const { executionId, batch } = await started(parts, urls);

    const first = await parts.extractSteps.processBatch({ executionId, batch });
    const handed = first.handOff.flatMap((part) => part.indices).sort((a, b) => a - b);
    // The seven client-rendered URLs (the duplicate travels with its first), HAND_OFF_URLS groups a part.
    expect(handed).toEqual([0, 1, 2, 3, 4, 5, 8, 9]);
    expect(first.handOff).toHaveLength(Math.ceil(7 / HAND_OFF_URLS));
    const afterHtml = await parts.results.get(executionId, batch.indices);
    expect(afterHtml.filter((e) => e.state === 'done').map((e) => e.result!.product?.fetched_with)).toEqual([
      'http',
      'http',
    ]);
    expect(await parts.extractSteps.settled(executionId, batch)).toBe(false);
    // A redelivered batch hands the same parts on again (their claims keep one result each).
    expect((await parts.extractSteps.processBatch({ executionId, batch })).handOff).toEqual(first.handOff);

    const [one, two] = first.handOff;
    const started1 = Date.now();
    await parts.renderSteps.processBatch({ executionId, batch: one });
    expect(await parts.renderSteps.settled(executionId, batch)).toBe(false);
    const second = await parts.renderSteps.processBatch({ executionId, batch: two });
    expect(second).toMatchObject({ state: 'done', counted: true, handOff: [] });
    expect(Date.now() - started1).toBeLessThan(8 * BUDGET_MS);
    expect(await parts.renderSteps.settled(executionId, batch)).toBe(true);
    // A redelivered part: counted once already, nothing recorded again.
    expect(await parts.renderSteps.processBatch({ executionId, batch: one })).toMatchObject({ counted: false });

    await parts.planning.finalize({ executionId });
    const outcomes = await expectOneOutcomeEach(parts, executionId, urls.length);
    for (const url of rendered) {
      const result = outcomes.get(url)!;
      expect(result.outcome, `${url}: ${result.message}`).toBe('success');
      expect(result.product!.fetched_with).toBe('browser');
    }
    const truth = sim.store('spa-hydrate.test').product(1);
    expect(outcomes.get(sim.store('spa-hydrate.test').productUrl(1))!.product).toMatchObject({
      title: truth.title,
      price: { current_value: truth.price, currency: truth.currency },
      is_available: truth.available,
    });
    for (const url of html) expect(outcomes.get(url)!.product!.fetched_with).toBe('http');
    // The page that never settles: `other` within its budget.
    expect(outcomes.get(restless)!.outcome).toBe('other');
  }, 120_000);

  it('a part that fails on every delivery ends as other through its dead-letter step, and the batch settles', async () => {
    const parts = compose();
    const urls = [sim.store('spa-inline.test').productUrl(2), sim.store('dom-shop.test').productUrl(1)];
    const { executionId, batch } = await started(parts, urls);
    const { handOff } = await parts.extractSteps.processBatch({ executionId, batch });
    expect(handOff).toEqual([{ id: `${batch.id}.0`, indices: [0] }]);
    for (let delivery = 0; delivery < 2; delivery++)
      await expect(parts.crashingRender.processBatch({ executionId, batch: handOff[0] })).rejects.toBeInstanceOf(
        InjectedFault,
      );
    expect(await parts.planning.settled(executionId, batch)).toBe(false);
    expect(await parts.planning.abandonBatch({ executionId, batch: handOff[0] })).toEqual({ abandoned: 1 });
    expect(await parts.planning.settled(executionId, batch)).toBe(true);
    await parts.planning.finalize({ executionId });
    const outcomes = await expectOneOutcomeEach(parts, executionId, 2);
    expect(outcomes.get(urls[0])).toMatchObject({ outcome: 'other', retry: true, message: LOST_BATCH_MESSAGE });
    expect(outcomes.get(urls[1])!.outcome).toBe('success');
  }, 60_000);

  it('a part never rendered (the batch task timed out) ends as other at Finalize; a late render changes nothing', async () => {
    const parts = compose();
    const urls = [sim.store('spa-fetch.test').productUrl(2), sim.store('jsonld-shop.test').productUrl(1)];
    const { executionId, batch } = await started(parts, urls);
    const { handOff } = await parts.extractSteps.processBatch({ executionId, batch });
    expect(handOff).toHaveLength(1);
    // The workflow's "Record lost batch", then Finalize.
    await parts.planning.abandonBatch({ executionId, batch });
    await parts.planning.finalize({ executionId });
    const outcomes = await expectOneOutcomeEach(parts, executionId, 2);
    expect(outcomes.get(urls[0])).toMatchObject({ outcome: 'other', retry: true, message: NOT_PROCESSED_MESSAGE });
    const counters = (await parts.executions.get(executionId))!.counters;
    // The render worker's message arrives after all: the execution is over, nothing is rendered or counted.
    expect(await parts.renderSteps.processBatch({ executionId, batch: handOff[0] })).toMatchObject({
      state: 'skipped',
    });
    expect(await expectOneOutcomeEach(parts, executionId, 2)).toEqual(outcomes);
    expect((await parts.executions.get(executionId))!.counters).toEqual(counters);
  }, 60_000);
});
