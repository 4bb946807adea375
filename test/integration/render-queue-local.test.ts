// The local runtime runs the render worker as AWS does: an extraction through the embedded state
// machine hands its client-rendered page to the render-work queue, the render worker's SQS poller
// renders and records it, and reports the batch's task; the HTML page stays with the extract worker.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getContainer } from '../../lambdas/composition/container';
import { extractJobsOf, extractResultsOf } from '../../lambdas/composition/extract-jobs';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { PLAIN_OPTIONS } from '../fakes/extract-options';

let service: LocalService;
let sim: StoreSimulator;

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 2 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-render-queue-')),
    env: { PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0', PDS_FAULT_RATE: '0', PDS_DUPLICATE_RATE: '0' },
    bootstrapKeys: 'render-queue-key-00000001:org-render-queue',
    queueRetrySeconds: 1,
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
});

it('a client-rendered page goes through the render queue and its worker; the HTML page does not', async () => {
  const container = getContainer();
  expect(container.config.queueUrls['render-work']).toBeDefined();
  const jobs = extractJobsOf(container);
  const urls = [sim.store('spa-inline.test').productUrl(0), sim.store('dom-shop.test').productUrl(0)];
  const { execution_id: executionId } = await jobs.start({
    org: 'org-render-queue',
    kind: 'extract-urls',
    urls,
    options: PLAIN_OPTIONS,
  });
  let status = await jobs.status({ org: 'org-render-queue', executionId });
  for (let poll = 0; poll < 240 && status.status !== 'completed' && status.status !== 'failed'; poll++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = await jobs.status({ org: 'org-render-queue', executionId });
  }
  expect(status.status).toBe('completed');
  expect(status.result).toMatchObject({ products_requested: 2, products_successful: 2, products_pending: 0 });
  const entries = await extractResultsOf(container).all(executionId);
  expect(entries.map((e) => e.result!.product!.fetched_with)).toEqual(['browser', 'http']);
  // The batch's claim holds the HTML page; the rendered page's result is the render worker's part's claim.
  const claims = await extractResultsOf(container).claims(executionId);
  expect([...claims.keys()].sort()).toEqual(['b0', 'b0.0']);
  expect([...claims.get('b0.0')!.results!.keys()]).toEqual([0]);
  expect([...claims.get('b0')!.results!.keys()]).toEqual([1]);
}, 90_000);
