// The executions service tells its ExecutionEvents listener (the webhooks) of every state change
// its caller won and of progress applied once per batch; a failing listener never fails the change.
import { describe, expect, it } from 'vitest';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { CANCELLED_MESSAGE } from '../../lambdas/domain/executions/model';
import type { ExecutionEvents } from '../../lambdas/ports/execution-events';
import { fakeClock, memoryExecutionStore, recordingWorkflows } from '../fakes/executions';

function setup(options: { failing?: boolean } = {}) {
  const seen: string[] = [];
  const events: ExecutionEvents = {
    async transitioned(execution) {
      seen.push(`${execution.id}:${execution.status}`);
      if (options.failing) throw new Error('listener down');
    },
    async progressed(id) {
      seen.push(`${id}:progress`);
      if (options.failing) throw new Error('listener down');
    },
  };
  const clock = fakeClock();
  const executions = createExecutions({
    store: memoryExecutionStore(),
    workflows: recordingWorkflows(),
    now: clock.now,
    events,
  });
  return { executions, seen, clock };
}

describe('execution events', () => {
  it('reports each transition its caller won, and progress applied once per batch', async () => {
    const { executions, seen } = setup();
    const { id } = await executions.create({
      org: 'o',
      kind: 'extract-urls',
      deadlineSeconds: 60,
      workflow: 'extract',
    });
    await executions.markRunning(id);
    await executions.markRunning(id); // lost: no longer pending
    expect(await executions.addProgress(id, 'b1', { success: 1 })).toBe(true);
    expect(await executions.addProgress(id, 'b1', { success: 1 })).toBe(false);
    await executions.complete(id);
    await executions.fail(id, 'late'); // lost: already terminal
    expect(seen).toEqual([`${id}:running`, `${id}:progress`, `${id}:completed`]);
  });

  it('reports cancels and reaped deadlines as failed', async () => {
    const { executions, seen, clock } = setup();
    const a = await executions.create({
      org: 'o',
      kind: 'crawl',
      subject: 'shop.example',
      deadlineSeconds: 60,
      workflow: 'crawl',
    });
    await executions.cancel('o', a.id);
    const b = await executions.create({
      org: 'o',
      kind: 'crawl',
      subject: 'shop.example',
      deadlineSeconds: 1,
      workflow: 'crawl',
    });
    clock.advance(2000);
    await executions.reapOverdue();
    expect(seen).toEqual([`${a.id}:failed`, `${b.id}:failed`]);
    expect((await executions.get(a.id))!.error).toBe(CANCELLED_MESSAGE);
  });

  it('a failing listener never fails the transition or the progress', async () => {
    const { executions, seen } = setup({ failing: true });
    const { id } = await executions.create({ org: 'o', kind: 'agentic', deadlineSeconds: 60, workflow: 'agentic' });
    expect(await executions.markRunning(id)).toMatchObject({ status: 'running' });
    expect(await executions.addProgress(id, 'b1', { verified: 1 })).toBe(true);
    expect(await executions.complete(id)).toMatchObject({ status: 'completed' });
    expect(seen).toHaveLength(3);
  });
});
