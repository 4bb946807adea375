// What a restarted local runtime does with the executions a previous process left unfinished
// (lambdas/domain/executions/resume.ts over the embedded DynamoDB): resumable workflows are
// started again with their input, a half-written extraction and a workflow that cannot be resumed
// are failed at once saying the service restarted, one waiting on a crawl and finished ones are
// left alone. The whole path through real processes is in test/e2e/hardening.test.ts.
import '../../lambdas/local/polyfills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { loadConfig } from '../../lambdas/config';
import { createContainer, type Container } from '../../lambdas/composition/container';
import { executionsOf } from '../../lambdas/composition/executions';
import { ENV } from '../../lambdas/topology/env';
import { dynamoExecutionStore } from '../../lambdas/adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../../lambdas/adapters/dynamodb/extract-results';
import { RESTART_MESSAGE, resumeUnfinished } from '../../lambdas/domain/executions/resume';
import { planEntries } from '../../lambdas/domain/extract-jobs/jobs';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';

let engines: Engines;
let deps: Container;

beforeAll(async () => {
  engines = await startEngines();
  deps = createContainer(
    loadConfig({
      [ENV.tableName]: engines.tableName,
      [ENV.dynamodbEndpoint]: engines.dynamodbEndpoint,
      AWS_REGION: 'us-east-1',
    }),
  );
}, 30_000);

afterAll(async () => {
  deps?.dispose();
  await engines?.stop();
});

describe('resuming unfinished executions after a restart', () => {
  it('restarts what can be resumed, fails the rest at once, leaves waiting and finished ones alone', async () => {
    const executions = executionsOf(deps);
    const store = dynamoExecutionStore(deps.clients.documents, engines.tableName);
    const results = dynamoExtractResultStore(deps.clients.documents, engines.tableName);
    const create = (
      kind: 'products-batch' | 'crawl' | 'agentic',
      workflow: string,
      extra: { waitingFor?: string; requested?: number } = {},
    ) =>
      executions.create({
        org: 'org-r',
        kind,
        subject: kind === 'crawl' ? 'shop.example' : undefined,
        workflow,
        deadlineSeconds: 3600,
        waitingFor: extra.waitingFor,
        input: { requested: extra.requested ?? 0 },
      });

    // A running extraction with every entry written, and a pending one whose entries never were.
    const urls = ['https://shop.example/p/1', 'https://shop.example/p/2', 'not a url'];
    const running = await create('products-batch', 'extract', { requested: urls.length });
    await results.putEntries(running.id, planEntries(urls).entries);
    await executions.markRunning(running.id);
    const halfWritten = await create('products-batch', 'extract', { requested: urls.length });
    await results.putEntries(halfWritten.id, planEntries(urls).entries.slice(0, 1));
    const crawl = await create('crawl', 'crawl');
    const agentic = await create('agentic', 'agentic');
    await executions.markRunning(agentic.id);
    const waiting = await create('products-batch', 'extract', { waitingFor: crawl.id });
    const done = await create('products-batch', 'extract');
    await executions.markRunning(done.id);
    await executions.complete(done.id, { counters: {} });

    const started: Array<{ workflow: string; id: string; input: Record<string, unknown> }> = [];
    const workflows: WorkflowEngine = {
      start: async (workflow, id, input) => {
        started.push({ workflow, id, input });
      },
      stop: async () => undefined,
    };
    const report = await resumeUnfinished({
      store,
      executions,
      workflows,
      restartable: { extract: (id) => ({ executionId: id }), crawl: (id) => ({ crawlId: id }) },
      canResume: async (execution) =>
        execution.status !== 'pending' ||
        execution.kind !== 'products-batch' ||
        (await results.all(execution.id)).length === (execution.input.requested ?? 0),
    });

    expect(started.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { workflow: 'extract', id: running.id, input: { executionId: running.id } },
        { workflow: 'crawl', id: crawl.id, input: { crawlId: crawl.id } },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(report.resumed.sort()).toEqual([running.id, crawl.id].sort());
    expect(report.failed.sort()).toEqual([halfWritten.id, agentic.id].sort());
    expect(report.waiting).toEqual([waiting.id]);
    for (const id of [halfWritten.id, agentic.id]) {
      expect(await executions.get(id)).toMatchObject({ status: 'failed', error: RESTART_MESSAGE });
    }
    expect(RESTART_MESSAGE).toMatch(/service restarted/);
    expect(await executions.get(running.id)).toMatchObject({ status: 'running', error: null });
    expect(await executions.get(waiting.id)).toMatchObject({ status: 'pending', waiting_for: crawl.id });
    expect(await executions.get(done.id)).toMatchObject({ status: 'completed' });

    // A second restart finds only what is still unfinished; a workflow that refuses to start is failed.
    const refusing: WorkflowEngine = {
      start: async () => {
        throw new Error('StateMachineDoesNotExist');
      },
      stop: async () => undefined,
    };
    const again = await resumeUnfinished({
      store,
      executions,
      workflows: refusing,
      restartable: { extract: (id) => ({ executionId: id }), crawl: (id) => ({ crawlId: id }) },
    });
    expect(again.failed.sort()).toEqual([running.id, crawl.id].sort());
    expect(again.resumed).toEqual([]);
    expect(again.waiting).toEqual([waiting.id]);
  });
});
