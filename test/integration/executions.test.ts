import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoExecutionStore } from '../../lambdas/adapters/dynamodb/executions';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { CANCELLED_MESSAGE, DEADLINE_MESSAGE } from '../../lambdas/domain/executions/model';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';
import { AppError } from '../../lambdas/domain/errors';

// The workflow port as observed by these tests: records stops (the real engines are exercised in
// the extract-jobs integration tests).
function recordingWorkflows() {
  const stopped: string[] = [];
  const engine: WorkflowEngine = {
    async start() {},
    async stop(_workflow, executionId) {
      stopped.push(executionId);
    },
  };
  return { engine, stopped };
}

let engines: Engines;
let clients: AwsClients;

beforeAll(async () => {
  engines = await startEngines();
  clients = createClients({
    ...loadConfig({}),
    endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint },
  });
});
afterAll(async () => {
  clients?.dynamodb.destroy();
  await engines?.stop();
});

const setup = (now?: () => Date) => {
  const workflows = recordingWorkflows();
  const store = dynamoExecutionStore(clients.documents, engines.tableName);
  return {
    store,
    stopped: workflows.stopped,
    executions: createExecutions({ store, workflows: workflows.engine, now }),
  };
};

const expectAppError = async (promise: Promise<unknown>, code: string) => {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  return error as AppError;
};

describe('executions core on the embedded table', () => {
  it('moves pending -> running -> completed and refuses a second terminal writer', async () => {
    const { executions } = setup();
    const created = await executions.create({
      org: 'org-a',
      kind: 'extract-urls',
      deadlineSeconds: 600,
      workflow: 'extract',
      input: { requested: 3 },
    });
    expect(created.status).toBe('pending');
    const running = await executions.markRunning(created.id);
    expect(running?.status).toBe('running');
    expect(running?.start_date).toBeTruthy();
    expect(await executions.markRunning(created.id)).toBeNull();

    // Two writers race to finish: exactly one wins and the item shows that one.
    const [completed, failed] = await Promise.all([
      executions.complete(created.id, { counters: { success: 3 } }),
      executions.fail(created.id, 'boom'),
    ]);
    expect([completed, failed].filter(Boolean)).toHaveLength(1);
    const final = await executions.find('org-a', created.id);
    expect(final.status).toBe(completed ? 'completed' : 'failed');
    expect(await executions.fail(created.id, 'again')).toBeNull();
    expect(await executions.complete(created.id)).toBeNull();
  });

  it('hides an execution from another organization and unknown ids with NOT_FOUND', async () => {
    const { executions } = setup();
    const created = await executions.create({ org: 'org-a', kind: 'products-batch', deadlineSeconds: 600 });
    await expectAppError(executions.find('org-b', created.id), 'NOT_FOUND');
    await expectAppError(executions.cancel('org-b', created.id), 'NOT_FOUND');
    await expectAppError(executions.find('org-a', 'products-batch-00000000-0000-0000-0000-000000000000'), 'NOT_FOUND');
    await expectAppError(executions.find('org-a', 'nonsense'), 'NOT_FOUND');
    await expectAppError(executions.find('org-a', created.id, 'crawl'), 'NOT_FOUND');
    expect((await executions.find('org-a', created.id, 'extract')).id).toBe(created.id);
  });

  it('applies a batch of progress exactly once and never after finalization', async () => {
    const { executions } = setup();
    const created = await executions.create({
      org: 'org-a',
      kind: 'extract-urls',
      deadlineSeconds: 600,
      counters: { malformed_url: 1 },
    });
    await executions.markRunning(created.id);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => executions.addProgress(created.id, 'b0001', { success: 2, other: 1 })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await executions.addProgress(created.id, 'b0002', { success: 1 })).toBe(true);
    let current = await executions.find('org-a', created.id);
    expect(current.counters).toEqual({ malformed_url: 1, success: 3, other: 1 });
    await executions.complete(created.id, { counters: { success: 3, other: 1, malformed_url: 1 } });
    expect(await executions.addProgress(created.id, 'b0003', { success: 5 })).toBe(false);
    current = await executions.find('org-a', created.id);
    expect(current.counters.success).toBe(3);
    expect(current.finalized).toBe(true);
  });

  it('cancels: failed with the fixed message, workflow stopped, 409 afterwards and while waiting on a crawl', async () => {
    const { executions, stopped } = setup();
    const created = await executions.create({
      org: 'org-a',
      kind: 'extract-urls',
      deadlineSeconds: 600,
      workflow: 'extract',
    });
    await executions.markRunning(created.id);
    const cancelled = await executions.cancel('org-a', created.id);
    expect(cancelled.status).toBe('failed');
    expect(cancelled.error).toBe(CANCELLED_MESSAGE);
    expect(cancelled.stop_date).toBeTruthy();
    expect(stopped).toContain(created.id);
    await expectAppError(executions.cancel('org-a', created.id), 'CONFLICT');
    expect(await executions.markRunning(created.id)).toBeNull();

    const waiting = await executions.create({
      org: 'org-a',
      kind: 'extract-vendor',
      subject: 'shop.example',
      deadlineSeconds: 600,
      waitingFor: 'crawl-shop-example-0123456789ab',
    });
    const error = await expectAppError(executions.cancel('org-a', waiting.id), 'CONFLICT');
    expect(error.message).toMatch(/waiting for crawl crawl-shop-example-0123456789ab/);
  });

  it('lists by organization and group, newest first, with the status filter and paging', async () => {
    let clock = Date.parse('2030-01-01T00:00:00.000Z');
    const { executions } = setup(() => new Date(clock));
    const org = `org-list-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      clock += 1000;
      const e = await executions.create({ org, kind: i % 2 ? 'products-batch' : 'extract-urls', deadlineSeconds: 600 });
      ids.push(e.id);
    }
    await executions.create({ org, kind: 'crawl', subject: 'shop.example', deadlineSeconds: 600 });
    await executions.create({ org: `${org}-other`, kind: 'extract-urls', deadlineSeconds: 600 });
    await executions.markRunning(ids[0]);
    await executions.complete(ids[0]);
    await executions.markRunning(ids[1]);
    await executions.fail(ids[2], 'broken');

    const all = await executions.list({ org, group: 'extract', page: 1, pageSize: 3 });
    expect(all.items.map((e) => e.execution_id)).toEqual([ids[6], ids[5], ids[4]]);
    expect(all.pagination).toEqual({
      page: 1,
      page_size: 3,
      total_items: 7,
      total_pages: 3,
      has_next: true,
      has_prev: false,
    });
    const last = await executions.list({ org, group: 'extract', page: 3, pageSize: 3 });
    expect(last.items.map((e) => e.execution_id)).toEqual([ids[0]]);
    expect(last.items[0]).toMatchObject({ status: 'completed', state: 'completed', kind: 'extract-urls' });

    const processing = await executions.list({ org, group: 'extract', status: 'processing' });
    expect(processing.items.map((e) => e.execution_id)).toEqual([ids[6], ids[5], ids[4], ids[3], ids[1]]);
    expect(processing.items.find((e) => e.execution_id === ids[1])).toMatchObject({
      status: 'processing',
      state: 'running',
    });
    expect(
      (await executions.list({ org, group: 'extract', status: 'completed' })).items.map((e) => e.execution_id),
    ).toEqual([ids[0]]);
    expect(
      (await executions.list({ org, group: 'extract', status: 'failed' })).items.map((e) => e.execution_id),
    ).toEqual([ids[2]]);
    expect((await executions.list({ org, group: 'crawl' })).pagination.total_items).toBe(1);
  });

  it('fails a stalled execution after its deadline by the periodic reaper; a read changes nothing', async () => {
    let clock = Date.parse('2031-01-01T00:00:00.000Z');
    const { executions, stopped, store } = setup(() => new Date(clock));
    const read = await executions.create({
      org: 'org-r',
      kind: 'extract-urls',
      deadlineSeconds: 60,
      workflow: 'extract',
    });
    const byReaper = await executions.create({
      org: 'org-r',
      kind: 'extract-urls',
      deadlineSeconds: 60,
      workflow: 'extract',
    });
    const finished = await executions.create({ org: 'org-r', kind: 'extract-urls', deadlineSeconds: 60 });
    const later = await executions.create({ org: 'org-r', kind: 'extract-urls', deadlineSeconds: 3600 });
    await executions.markRunning(read.id);
    await executions.markRunning(finished.id);
    await executions.complete(finished.id);

    clock += 61_000;
    const before = await store.get(read.id);
    expect(await executions.find('org-r', read.id)).toEqual(before);
    await executions.list({ org: 'org-r', group: 'extract' });
    expect(await store.get(read.id)).toMatchObject({ status: 'running', error: null });
    expect(stopped).not.toContain(read.id);

    const { failed } = await executions.reapOverdue();
    expect(failed).toContain(read.id);
    expect(failed).toContain(byReaper.id);
    expect(failed).not.toContain(finished.id);
    expect(failed).not.toContain(later.id);
    expect(await executions.find('org-r', read.id)).toMatchObject({ status: 'failed', error: DEADLINE_MESSAGE });
    expect(stopped).toContain(read.id);
    expect((await executions.find('org-r', byReaper.id)).status).toBe('failed');
    expect((await executions.find('org-r', finished.id)).status).toBe('completed');
    expect((await executions.find('org-r', later.id)).status).toBe('pending');
    expect((await executions.reapOverdue()).failed).toEqual([]);
  });

  it('lists the executions waiting for a crawl until they are released or end', async () => {
    const { executions } = setup();
    const crawlId = 'crawl-waits-example-0123456789ab';
    const create = () =>
      executions.create({
        org: 'org-w',
        kind: 'extract-vendor',
        subject: 'waits.example',
        deadlineSeconds: 600,
        waitingFor: crawlId,
      });
    const released = await create();
    const failed = await create();
    const stillWaiting = await create();
    await executions.create({ org: 'org-w', kind: 'extract-urls', deadlineSeconds: 600 });
    const mine = async () =>
      (await executions.waiting(10_000))
        .filter((w) => w.waitingFor === crawlId)
        .map((w) => w.id)
        .sort();
    expect(await mine()).toEqual([released.id, failed.id, stillWaiting.id].sort());
    await executions.update(released.id, ['pending'], { waiting_for: null });
    await executions.fail(failed.id, 'crawl failed', { waiting_for: null });
    expect(await mine()).toEqual([stillWaiting.id]);
  });
});
