// The executions service tells its ExecutionEvents listener (the webhooks) of every state change
// its caller won and of progress applied once per batch; a failing listener never fails the change.
// A new execution's webhook is subscribed before the execution is stored: a failed subscription
// fails the create with nothing stored.
import { describe, expect, it } from 'vitest';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { CANCELLED_MESSAGE } from '../../lambdas/domain/executions/model';
import type { ExecutionEvents } from '../../lambdas/ports/execution-events';
import { fakeClock, memoryExecutionStore, recordingWorkflows } from '../fakes/executions';

function setup(options: { failing?: boolean; subscriptionFails?: boolean } = {}) {
  const seen: string[] = [];
  const store = memoryExecutionStore();
  const events: ExecutionEvents = {
    async subscribe(execution, webhook) {
      // What the store holds when the subscription is written: nothing of this execution yet.
      seen.push(`${execution.id}:subscribe ${webhook.url} stored=${store.items.has(execution.id)}`);
      if (options.subscriptionFails) throw new Error('table unavailable');
    },
    async created(execution) {
      seen.push(`${execution.id}:created stored=${store.items.has(execution.id)}`);
      if (options.failing) throw new Error('listener down');
    },
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
    store,
    workflows: recordingWorkflows(),
    now: clock.now,
    events,
  });
  return { executions, seen, clock, store };
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

  it('subscribes a webhook before the execution is stored, then reports it created; none without a webhook', async () => {
    const { executions, seen } = setup();
    const plain = await executions.create({ org: 'o', kind: 'extract-urls', deadlineSeconds: 60, workflow: 'extract' });
    const hooked = await executions.create({
      org: 'o',
      kind: 'extract-urls',
      deadlineSeconds: 60,
      workflow: 'extract',
      webhook: { url: 'https://hooks.example/x' },
    });
    expect(seen).toEqual([
      `${hooked.id}:subscribe https://hooks.example/x stored=false`,
      `${hooked.id}:created stored=true`,
    ]);
    expect(seen.join()).not.toContain(plain.id);
  });

  it('a subscription that cannot be stored fails the create, and nothing is stored', async () => {
    const { executions, store } = setup({ subscriptionFails: true });
    await expect(
      executions.create({
        org: 'o',
        kind: 'extract-urls',
        deadlineSeconds: 60,
        webhook: { url: 'https://hooks.example/x' },
      }),
    ).rejects.toThrow('table unavailable');
    expect(store.items.size).toBe(0);
  });

  it('a lost created event never fails the create', async () => {
    const { executions, store } = setup({ failing: true });
    const created = await executions.create({
      org: 'o',
      kind: 'agentic',
      deadlineSeconds: 60,
      webhook: { url: 'https://hooks.example/x' },
    });
    expect(store.items.get(created.id)?.status).toBe('pending');
  });
});
