// Extraction through the real pieces: the local service (embedded DynamoDB + SQS, the embedded
// Step Functions service running statemachines/extract.asl.json, SQS pollers calling
// lambdas/workers/*), the real extraction engine, and the store simulator on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { createContainer, getContainer } from '../../lambdas/composition/container';
import { extractJobsOf } from '../../lambdas/composition/extract-jobs';
import { reap } from '../../lambdas/workers/execution-reaper';
import { executionArnFor } from '../../lambdas/adapters/stepfunctions';
import { createSfnClient } from '../../lambdas/adapters/sfn-client';
import { DEADLINE_MESSAGE } from '../../lambdas/domain/executions/model';
import { LOST_BATCH_MESSAGE } from '../../lambdas/domain/extract-jobs/steps';
import type { ExtractionStatus } from '../../lambdas/domain/extract-jobs/model';
import type { ExtractJobs } from '../../lambdas/domain/extract-jobs/jobs';
import { startStoreSimulator, listProductUrls, type StoreSimulator } from '../stores';
import { PLAIN_OPTIONS } from '../fakes/extract-options';

const OPTIONS = PLAIN_OPTIONS;
const ORG = 'org-workflow';

let service: LocalService;
let sim: StoreSimulator;

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 200, slowDelayMs: 1500 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-extract-wf-')),
    env: { PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0', PDS_FAULT_RATE: '0', PDS_DUPLICATE_RATE: '0' },
    bootstrapKeys: 'workflow-test-key-0001:org-workflow',
    queueRetrySeconds: 1,
    log: () => undefined,
  });
});
afterAll(async () => {
  await service?.stop(2000);
  await sim?.close();
});

/** Changes the injected faults for the workers (the process's container is rebuilt with them). */
function setFaults(crashRate: number, duplicateRate: number) {
  service.configure({ faults: { crashRate, duplicateRate } });
}

function checkInvariant(status: ExtractionStatus) {
  const r = status.result;
  expect(r.products_successful + r.products_failed + r.products_invalid + r.products_pending).toBe(
    r.products_requested,
  );
  expect(status.progress.products_processed).toBe(r.products_requested - r.products_pending);
}

/** Polls until the status is terminal, checking the invariant at every read; bounded. */
async function pollUntilDone(jobs: ExtractJobs, executionId: string, maxPolls = 600): Promise<ExtractionStatus> {
  for (let i = 0; i < maxPolls; i++) {
    const status = await jobs.status({ org: ORG, executionId, pageSize: 100 });
    checkInvariant(status);
    if (status.status === 'completed' || status.status === 'failed') return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`execution ${executionId} did not finish within ${maxPolls} polls`);
}

async function allResults(jobs: ExtractJobs, executionId: string) {
  const items = [];
  for (let page = 1; page <= 20; page++) {
    const status = await jobs.status({ org: ORG, executionId, page, pageSize: 100 });
    items.push(...status.results!.items);
    if (!status.results!.pagination.has_next) break;
  }
  return items;
}

async function sfnStatus(executionId: string) {
  const out = await createSfnClient(getContainer().config).send(
    new DescribeExecutionCommand({ executionArn: executionArnFor(service.stateMachineArns.extract, executionId) }),
  );
  return out.status;
}

/** Every URL exactly once, in order, and the counts agree with the outcomes listed. */
function checkResults(urls: string[], status: ExtractionStatus, items: Array<{ url: string; outcome: string }>) {
  expect(items.map((r) => r.url)).toEqual(urls);
  const count = (o: string) => items.filter((r) => r.outcome === o).length;
  expect(status.result.products_successful).toBe(count('success'));
  expect(status.result.products_failed).toBe(count('other') + count('automated_access_not_permitted'));
  expect(status.result.products_invalid).toBe(count('malformed_url') + count('non_product_url'));
  expect(status.result.products_pending).toBe(0);
}

describe('extraction through the local state machine', () => {
  it('extracts a mixed list: one result per URL, exact counts, invariant at every poll', async () => {
    setFaults(0, 0);
    const shopify = sim.store('shopify-apparel.test');
    const jsonld = sim.store('jsonld-shop.test');
    const urls = [
      ...listProductUrls(shopify, { limit: 8 }),
      ...listProductUrls(jsonld, { limit: 8 }),
      shopify.nonProductUrls.blog,
      listProductUrls(sim.store('robots-blocked.test'), { limit: 1 })[0],
      'not a url at all',
      listProductUrls(shopify, { limit: 1 })[0],
    ];
    const jobs = extractJobsOf(getContainer());
    const started = await jobs.start({ org: ORG, kind: 'extract-urls', urls, options: OPTIONS });
    expect(started.status).toBe('pending');
    const status = await pollUntilDone(jobs, started.execution_id);
    expect(status.status).toBe('completed');
    expect(status.error).toBeNull();
    const items = await allResults(jobs, started.execution_id);
    checkResults(urls, status, items);
    expect(status.result.products_successful).toBe(17);
    expect(status.result.products_failed_by_reason).toEqual({ automated_access_not_permitted: 1 });
    expect(status.result.products_invalid_by_reason).toEqual({ non_product_url: 1, malformed_url: 1 });
    expect(status.credits_used).toBe(16);
    expect(items[0].product?.title).toBe(shopify.product(0).title);
    expect(await sfnStatus(started.execution_id)).toBe('SUCCEEDED');
  });

  it('never double-counts under duplicated deliveries and crashing workers', async () => {
    setFaults(0.3, 1);
    const urls = listProductUrls(sim.store('microdata-shop.test'), { offset: 20, limit: 60 });
    const jobs = extractJobsOf(getContainer());
    const started = await jobs.start({ org: ORG, kind: 'products-batch', urls, options: OPTIONS });
    const status = await pollUntilDone(jobs, started.execution_id);
    expect(status.status).toBe('completed');
    const items = await allResults(jobs, started.execution_id);
    checkResults(urls, status, items);
    // A crash can exhaust a message's receives: those URLs are other/retry; nothing else fails.
    for (const item of items)
      if (!item.success) expect(item).toMatchObject({ outcome: 'other', retry: true, message: LOST_BATCH_MESSAGE });
    expect(status.credits_used).toBe(status.result.products_successful);
  });

  it('loses no URL when every delivery crashes: retried, dead-lettered, recorded as other with retry true (or as stored before a crash)', async () => {
    setFaults(1, 0);
    const urls = listProductUrls(sim.store('opengraph-shop.test'), { limit: 12 });
    const jobs = extractJobsOf(getContainer());
    const started = await jobs.start({ org: ORG, kind: 'extract-urls', urls, options: OPTIONS });
    const status = await pollUntilDone(jobs, started.execution_id);
    setFaults(0, 0);
    expect(status.status).toBe('completed');
    const items = await allResults(jobs, started.execution_id);
    checkResults(urls, status, items);
    // A batch is lost unless a delivery stored its results before dying (then they stand).
    const lost = items.filter((r) => !r.success);
    for (const item of lost)
      expect(item).toMatchObject({ outcome: 'other', retry: true, message: LOST_BATCH_MESSAGE, product: null });
  });

  it('cancel stops the state machine and further batches; finished results stay readable', async () => {
    setFaults(0, 0);
    const slow = sim.store('slow.test');
    const urls = listProductUrls(slow, { limit: 40 });
    const jobs = extractJobsOf(getContainer());
    const started = await jobs.start({ org: ORG, kind: 'extract-urls', urls, options: OPTIONS });
    for (let i = 0; i < 200; i++) {
      const status = await jobs.status({ org: ORG, executionId: started.execution_id });
      checkInvariant(status);
      if (status.progress.products_processed > 0 || status.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cancelled = await jobs.cancel({ org: ORG, executionId: started.execution_id });
    expect(cancelled).toEqual({
      execution_id: started.execution_id,
      status: 'failed',
      error: 'Execution was cancelled',
    });
    expect(await sfnStatus(started.execution_id)).toBe('ABORTED');
    await expect(jobs.cancel({ org: ORG, executionId: started.execution_id })).rejects.toMatchObject({
      code: 'CONFLICT',
    });

    // Let workers drain what was in flight, then nothing more is fetched.
    let hits = -1;
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const now = urls.reduce((n, url) => n + sim.hits('slow.test', new URL(url).pathname + new URL(url).search), 0);
      if (now === hits) break;
      hits = now;
    }
    expect(hits).toBeLessThan(urls.length);
    const status = await jobs.status({ org: ORG, executionId: started.execution_id, pageSize: 100 });
    checkInvariant(status);
    expect(status.status).toBe('failed');
    const finished = status.results?.items ?? [];
    expect(finished.length).toBe(status.progress.products_processed);
    for (const item of finished) expect(urls).toContain(item.url);
    // Pages of a failed execution cover input positions, like a completed one's (none when nothing finished).
    if (status.progress.products_processed === 0) expect(status.results).toBeNull();
    else expect(status.results?.pagination).toMatchObject({ total_items: urls.length, page_size: 100 });
    const second = await jobs.status({ org: ORG, executionId: started.execution_id, page: 2, pageSize: 20 });
    const first = await jobs.status({ org: ORG, executionId: started.execution_id, page: 1, pageSize: 20 });
    expect([...(first.results?.items ?? []), ...(second.results?.items ?? [])].map((item) => item.url)).toEqual(
      finished.map((item) => item.url),
    );
  });

  it('fails a stalled execution at its deadline by the reaper schedule; a status read changes nothing', async () => {
    setFaults(0, 0);
    const container = createContainer(service.config, { clients: getContainer().clients, deadlineSeconds: 1 });
    const jobs = extractJobsOf(container);
    const urls = listProductUrls(sim.store('slow.test'), { offset: 100, limit: 30 });
    const started = await jobs.start({ org: ORG, kind: 'extract-urls', urls, options: OPTIONS });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const read = await jobs.status({ org: ORG, executionId: started.execution_id });
    checkInvariant(read);
    expect(['pending', 'running']).toContain(read.status);
    expect(read.error).toBeNull();
    const reaped = await reap(undefined, container);
    expect(reaped.failed).toContain(started.execution_id);
    const status = await jobs.status({ org: ORG, executionId: started.execution_id });
    checkInvariant(status);
    expect(status).toMatchObject({ status: 'failed', error: DEADLINE_MESSAGE });
    expect(await sfnStatus(started.execution_id)).toBe('ABORTED');
  });
});
