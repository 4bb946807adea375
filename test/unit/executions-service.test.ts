// The executions use-cases over in-memory fakes of their ports and a hand-moved clock: every
// rule of status, ownership, cancel, deadlines and metrics, in milliseconds.
import { describe, expect, it } from 'vitest';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { CANCELLED_MESSAGE, DEADLINE_MESSAGE } from '../../lambdas/domain/executions/model';
import { AppError } from '../../lambdas/domain/errors';
import { fakeClock, memoryExecutionStore, recordingMetrics, recordingWorkflows } from '../fakes/executions';

function setup() {
  const store = memoryExecutionStore();
  const workflows = recordingWorkflows();
  const clock = fakeClock();
  const metrics = recordingMetrics();
  const executions = createExecutions({ store, workflows, now: clock.now, metrics });
  return { store, workflows, clock, metrics, executions };
}

const start = (executions: ReturnType<typeof setup>['executions'], org = 'org-a', deadlineSeconds = 60) =>
  executions.create({ org, kind: 'extract-urls', deadlineSeconds, workflow: 'extract' });

describe('executions service', () => {
  it('creates pending executions stamped by the injected clock, listed newest first per organization', async () => {
    const { executions, clock } = setup();
    const first = await start(executions);
    clock.advance(1000);
    const second = await start(executions);
    await start(executions, 'org-b');
    expect(first.created_at).toBe('2026-06-01T12:00:00.000Z');
    expect(first.deadline).toBe('2026-06-01T12:01:00.000Z');
    const list = await executions.list({ org: 'org-a', group: 'extract', page: 1, pageSize: 1 });
    expect(list.items.map((e) => e.execution_id)).toEqual([second.id]);
    expect(list.pagination).toMatchObject({ total_items: 2, total_pages: 2, has_next: true, has_prev: false });
    const processing = await executions.list({ org: 'org-a', group: 'extract', status: 'completed' });
    expect(processing.pagination.total_items).toBe(0);
  });

  it("hides another organization's execution and ids of another group", async () => {
    const { executions } = setup();
    const mine = await start(executions);
    await expect(executions.find('org-b', mine.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(executions.find('org-a', mine.id, 'crawl')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await executions.find('org-a', mine.id)).id).toBe(mine.id);
  });

  it('cancels once: failed with the fixed message, workflow stopped; a second cancel is 409', async () => {
    const { executions, workflows } = setup();
    const execution = await start(executions);
    await executions.markRunning(execution.id);
    const cancelled = await executions.cancel('org-a', execution.id);
    expect(cancelled).toMatchObject({ status: 'failed', error: CANCELLED_MESSAGE });
    expect(workflows.stopped).toEqual([{ id: execution.id, cause: CANCELLED_MESSAGE }]);
    const again = await executions.cancel('org-a', execution.id).catch((e) => e);
    expect(again).toBeInstanceOf(AppError);
    expect(again.code).toBe('CONFLICT');
    expect(await executions.complete(execution.id)).toBeNull();
  });

  it('a cancel of an execution past its deadline reaps it first: 409, failed by the deadline', async () => {
    const { executions, clock } = setup();
    const overdue = await start(executions, 'org-a', 30);
    clock.advance(31_000);
    await expect(executions.cancel('org-a', overdue.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await executions.find('org-a', overdue.id)).toMatchObject({ status: 'failed', error: DEADLINE_MESSAGE });
  });

  it('refuses to cancel an execution waiting on a crawl', async () => {
    const { executions } = setup();
    const waiting = await executions.create({
      org: 'org-a',
      kind: 'extract-vendor',
      subject: 'shop.example',
      deadlineSeconds: 60,
      waitingFor: 'crawl-shop-example-0123456789ab',
    });
    await expect(executions.cancel('org-a', waiting.id)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('reaps executions past their deadline on schedule; a read of an overdue one changes nothing', async () => {
    const { executions, store, clock, workflows, metrics } = setup();
    const read = await start(executions, 'org-a', 30);
    const scheduled = await start(executions, 'org-a', 30);
    const later = await start(executions, 'org-a', 600);
    clock.advance(31_000);
    const before = structuredClone(store.items.get(read.id));
    const list = await executions.list({ org: 'org-a', group: 'extract' });
    expect(await executions.find('org-a', read.id)).toMatchObject({ status: 'pending', error: null });
    expect(list.items.every((item) => item.status === 'processing')).toBe(true);
    expect(store.items.get(read.id)).toEqual(before);
    expect(workflows.stopped).toEqual([]);
    const reaped = await executions.reapOverdue();
    expect(reaped.failed.sort()).toEqual([read.id, scheduled.id].sort());
    expect(await executions.find('org-a', read.id)).toMatchObject({ status: 'failed', error: DEADLINE_MESSAGE });
    expect((await executions.find('org-a', later.id)).status).toBe('pending');
    expect(workflows.stopped.map((s) => s.id).sort()).toEqual([read.id, scheduled.id].sort());
    // Each reaped execution counts once for the operators' stalled-executions alarm.
    expect(metrics.points.filter((p) => p.name === 'StalledExecutionsReaped')).toEqual([
      { name: 'StalledExecutionsReaped', value: 1, dimensions: { kind: 'extract-urls' } },
      { name: 'StalledExecutionsReaped', value: 1, dimensions: { kind: 'extract-urls' } },
    ]);
  });

  it('counts each batch once and never after finalization', async () => {
    const { executions, store } = setup();
    const execution = await start(executions);
    expect(await executions.addProgress(execution.id, 'b1', { success: 3 })).toBe(true);
    expect(await executions.addProgress(execution.id, 'b1', { success: 3 })).toBe(false);
    await executions.markRunning(execution.id);
    await executions.complete(execution.id);
    expect(await executions.addProgress(execution.id, 'b2', { success: 1 })).toBe(false);
    expect(store.items.get(execution.id)?.counters).toEqual({ success: 3 });
  });

  it('records starts, ends, durations and URL outcomes once per execution', async () => {
    const { executions, clock, metrics } = setup();
    const execution = await start(executions);
    await executions.markRunning(execution.id);
    clock.advance(4_000);
    await executions.complete(execution.id, { counters: { success: 7, other: 2, malformed_url: 0, credits: 7 } });
    await executions.fail(execution.id, 'late');
    expect(metrics.points).toEqual([
      { name: 'ExecutionsStarted', value: 1, dimensions: { kind: 'extract-urls' } },
      { name: 'ExecutionsEnded', value: 1, dimensions: { kind: 'extract-urls', status: 'completed' } },
      { name: 'ExecutionDuration', value: 4_000, dimensions: { kind: 'extract-urls' } },
      { name: 'UrlOutcomes', value: 7, dimensions: { kind: 'extract-urls', outcome: 'success' } },
      { name: 'UrlOutcomes', value: 2, dimensions: { kind: 'extract-urls', outcome: 'other' } },
      { name: 'CreditsUsed', value: 7, dimensions: { kind: 'extract-urls' } },
    ]);
  });
});
