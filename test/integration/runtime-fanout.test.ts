// Fan-out and back through the embedded runtime: the SFN service runs a fixture machine whose
// inline Map sends batches to SQS with task tokens; the SQS poller feeds a worker that reports
// with SendTaskSuccess through the SFN API; failures retry, then go to the DLQ and its worker.
import '../../lambdas/local/polyfills';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import {
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  DescribeStateMachineForExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { startStepFunctionsService, type StepFunctionsService } from '../../lambdas/local/stepfunctions/server';
import { startSqsPollers, type SqsPollers } from '../../lambdas/local/sqs-poller';
import { createClients } from '../../lambdas/adapters/clients';
import { createSfnClient } from '../../lambdas/adapters/sfn-client';
import { createStepFunctionsWorkflowEngine, executionArnFor } from '../../lambdas/adapters/stepfunctions';
import { loadConfig } from '../../lambdas/config';
import { createContainer, installContainer } from '../../lambdas/composition/container';
import type { QueueSpec } from '../../lambdas/topology/queues';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';
import { journal, resetJournal } from '../fixtures/workers/journal';

const fixtures = resolve(process.cwd(), 'test/fixtures');
const fanoutQueue: QueueSpec = {
  name: 'fanout-work',
  worker: 'fanout-worker',
  dlqWorker: 'fanout-dlq',
  batchSize: 2,
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: 2,
  envVar: 'PDS_TEST_FANOUT_QUEUE_URL',
};

let engines: Engines;
let service: StepFunctionsService;
let pollers: SqsPollers;
let sqs: SQSClient;
let sfn: SFNClient;
let workflows: WorkflowEngine;

beforeAll(async () => {
  engines = await startEngines({ queues: [fanoutQueue] });
  sqs = createClients({ ...loadConfig({}), endpoints: { sqs: engines.sqsEndpoint } }).sqs;
  service = await startStepFunctionsService({
    machines: [
      {
        spec: {
          name: 'fanout',
          aslFile: 'fanout.asl.json',
          tasks: { Prepare: 'fanout-prepare', Finalize: 'fanout-finalize' },
          queues: { Work: 'fanout-work' },
        },
        aslDir: resolve(fixtures, 'statemachines'),
        workersDir: resolve(fixtures, 'workers'),
      },
    ],
    queueUrls: engines.queueUrls,
    sqs,
    retryIntervalMs: 10,
  });
  // The workers reach Step Functions through the process's container, as on Lambda.
  installContainer(createContainer({ ...loadConfig({}), endpoints: { stepFunctions: service.endpoint } }));
  pollers = await startSqsPollers({
    sqs,
    queues: [fanoutQueue],
    queueUrls: engines.queueUrls,
    workersDir: resolve(fixtures, 'workers'),
    visibilityTimeoutSeconds: 1,
    waitTimeSeconds: 1,
  });
  sfn = createSfnClient({ ...loadConfig({}), endpoints: { stepFunctions: service.endpoint } });
  workflows = createStepFunctionsWorkflowEngine(sfn, service.stateMachineArns);
});

afterAll(async () => {
  await pollers?.stop(2000);
  await service?.stop();
  await engines?.stop();
  installContainer(undefined);
});

beforeEach(() => {
  resetJournal();
});

const arnOf = (id: string) => executionArnFor(service.stateMachineArns.fanout, id);

/** Polls DescribeExecution until the status leaves RUNNING (bounded). */
async function settled(id: string, maxMs = 30_000) {
  const deadline = Date.now() + maxMs;
  for (let i = 0; i < 2000 && Date.now() < deadline; i++) {
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn: arnOf(id) }));
    if (described.status !== 'RUNNING') return described;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`execution ${id} still running after ${maxMs} ms`);
}

async function until(what: string, predicate: () => boolean, maxMs = 20_000) {
  const deadline = Date.now() + maxMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function queueDepth(name: string) {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: engines.queueUrls[name],
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

describe('embedded runtime: fan-out through SQS with task tokens', () => {
  it('fans batches out and back, retrying a failed Lambda task first', async () => {
    const id = 'fanout-ok-1';
    const urls = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'];
    await workflows.start('fanout', id, { executionId: id, urls, batchSize: 2, flaky: true });

    const described = await settled(id);
    expect(described.status).toBe('SUCCEEDED');
    expect(described.name).toBe(id);
    expect(JSON.parse(described.input!)).toMatchObject({ executionId: id, batchSize: 2 });
    expect(JSON.parse(described.output!)).toEqual({
      summary: { executionId: id, batches: 4, processed: 7, failed: [] },
    });

    const j = journal();
    expect(j.prepareCalls).toBe(2); // FlakyPrepare retried once
    expect(j.prepareContexts.every((c) => c.awsRequestId.length > 0 && c.remainingMs > 0)).toBe(true);
    expect(new Set(j.received.map((r) => r.index))).toEqual(new Set([0, 1, 2, 3]));
    expect(j.received.flatMap((r) => r.urls).sort()).toEqual(urls);
    expect(j.received.every((r) => r.eventSourceARN.endsWith(':fanout-work') && r.receiveCount === 1)).toBe(true);
    expect(service.executions.tokens.size).toBe(0);

    // Starting the same id again is a retry of the first start; stopping an ended one is a no-op.
    await workflows.start('fanout', id, { executionId: id, urls, batchSize: 2 });
    await workflows.stop('fanout', id, 'late cancel');
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn: arnOf(id) }))).status).toBe('SUCCEEDED');
    const listed = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: service.stateMachineArns.fanout, statusFilter: 'SUCCEEDED' }),
    );
    expect(listed.executions?.map((e) => e.name)).toContain(id);
  });

  it('answers the operator calls: state machines, their definitions, and an execution history paged like AWS', async () => {
    const id = 'fanout-history-1';
    await workflows.start('fanout', id, { executionId: id, urls: ['h1', 'h2', 'h3'], batchSize: 2, flaky: true });
    expect((await settled(id)).status).toBe('SUCCEEDED');
    const machineArn = service.stateMachineArns.fanout;

    const machines = await sfn.send(new ListStateMachinesCommand({}));
    expect(machines.stateMachines).toEqual([
      { stateMachineArn: machineArn, name: 'fanout', type: 'STANDARD', creationDate: expect.any(Date) },
    ]);
    const machine = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn }));
    expect(machine).toMatchObject({ stateMachineArn: machineArn, name: 'fanout', status: 'ACTIVE', type: 'STANDARD' });
    expect(JSON.parse(machine.definition!).StartAt).toBe('Prepare');
    const forExecution = await sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn: arnOf(id) }));
    expect(forExecution).toMatchObject({ stateMachineArn: machineArn, name: 'fanout', definition: machine.definition });

    const all = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arnOf(id), maxResults: 1000 }));
    const events = all.events!;
    expect(all.nextToken).toBeUndefined();
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.every((e) => e.timestamp instanceof Date)).toBe(true);
    const line = (e: HistoryEvent) => {
      const name = e.stateEnteredEventDetails?.name ?? e.stateExitedEventDetails?.name;
      const index = e.mapIterationStartedEventDetails?.index ?? e.mapIterationSucceededEventDetails?.index;
      const error = e.taskFailedEventDetails?.error;
      return [e.type, name ?? index ?? error].filter((x) => x !== undefined).join(' ');
    };
    const lines = events.map(line);
    // The root's own course, in order: the flaky Prepare fails once and is retried, then the Map, then Finalize.
    const root = lines.filter((l) => !/^(MapIteration|Task(Scheduled|Started|Succeeded|Failed)$)/.test(l));
    expect(lines.slice(0, 9)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered Prepare',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed FlakyPrepare',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited Prepare',
    ]);
    expect(lines.at(-1)).toBe('ExecutionSucceeded');
    expect(lines.slice(-7)).toEqual([
      'MapStateExited Process batches',
      'TaskStateEntered Finalize',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited Finalize',
      'ExecutionSucceeded',
    ]);
    expect(root.filter((l) => /StateEntered/.test(l)).slice(0, 2)).toEqual([
      'TaskStateEntered Prepare',
      'MapStateEntered Process batches',
    ]);
    // Two map iterations, each started, its batch task entered and exited, then succeeded.
    expect(lines.filter((l) => l.startsWith('MapIterationStarted')).sort()).toEqual([
      'MapIterationStarted 0',
      'MapIterationStarted 1',
    ]);
    expect(lines.filter((l) => l.startsWith('MapIterationSucceeded'))).toHaveLength(2);
    expect(lines.filter((l) => l === 'TaskStateEntered Send batch')).toHaveLength(2);
    const entered = lines.indexOf('MapStateEntered Process batches');
    const exited = lines.indexOf('MapStateExited Process batches');
    const iterationLines = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('MapIteration'));
    expect(iterationLines.every(([, i]) => i > entered && i < exited)).toBe(true);
    const scheduled = events.find((e) => e.type === 'TaskScheduled')!.taskScheduledEventDetails!;
    expect(scheduled).toMatchObject({ resourceType: 'lambda', resource: 'invoke', region: expect.any(String) });
    expect(events[0].executionStartedEventDetails?.input).toContain(id);
    expect(JSON.parse(events.at(-1)!.executionSucceededEventDetails!.output!)).toMatchObject({
      summary: { processed: 3 },
    });

    // Paged like AWS: maxResults with nextToken walks the same list; reverseOrder walks it backwards.
    const walk = async (reverseOrder: boolean) => {
      const pages: HistoryEvent[][] = [];
      let nextToken: string | undefined;
      for (let i = 0; i < 100; i++) {
        const page = await sfn.send(
          new GetExecutionHistoryCommand({ executionArn: arnOf(id), maxResults: 4, nextToken, reverseOrder }),
        );
        pages.push(page.events!);
        nextToken = page.nextToken;
        if (!nextToken) break;
      }
      expect(pages.slice(0, -1).every((page) => page.length === 4)).toBe(true);
      return pages.flat();
    };
    expect(await walk(false)).toEqual(events);
    expect(await walk(true)).toEqual([...events].reverse());
    await expect(
      sfn.send(new GetExecutionHistoryCommand({ executionArn: arnOf('no-such-execution') })),
    ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
  });

  it('retries a failed message after the visibility timeout, dead-letters one that keeps failing', async () => {
    const id = 'fanout-dlq-1';
    await workflows.start('fanout', id, {
      executionId: id,
      urls: ['a', 'fail-once', 'fail-always', 'b'],
      batchSize: 1,
    });

    const described = await settled(id);
    expect(described.status).toBe('SUCCEEDED');
    const summary = JSON.parse(described.output!).summary;
    expect(summary).toMatchObject({ batches: 4, processed: 3, failed: [{ index: 2, error: 'BatchDeadLettered' }] });

    const j = journal();
    const receives = (index: number) => j.received.filter((r) => r.index === index).map((r) => r.receiveCount);
    expect(receives(1)).toEqual([1, 2]); // failed once, then succeeded
    expect(receives(2)).toEqual([1, 2]); // maxReceiveCount 2, then the DLQ
    expect(j.deadLettered.map((d) => d.index)).toEqual([2]);
    expect(await queueDepth('fanout-work')).toBe(0);
    expect(await queueDepth('fanout-work-dlq')).toBe(0);
  });

  it('StopExecution mid-run aborts the execution and sends no further batches', async () => {
    const id = 'fanout-cancel-1';
    // MaxConcurrency 2: the two held batches are in flight, batches 2 and 3 wait their turn.
    await workflows.start('fanout', id, { executionId: id, urls: ['hold', 'hold', 'c', 'd'], batchSize: 1 });
    const j = journal();
    await until('both held batches to arrive', () => j.received.length === 2);
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn: arnOf(id) }))).status).toBe('RUNNING');

    await workflows.stop('fanout', id, 'Execution was cancelled');
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn: arnOf(id) }));
    expect(described.status).toBe('ABORTED');
    expect(described).toMatchObject({ error: 'Cancelled', cause: 'Execution was cancelled' });
    expect(described.stopDate).toBeInstanceOf(Date);
    expect(service.executions.tokens.size).toBe(0);

    // The held workers now report for tokens that no longer exist: a no-op, and the
    // messages are deleted as processed.
    j.release();
    await until('held batches to finish', () => j.reported.length === 2);
    await until('queue to drain', () => pollers.inFlight === 0);
    expect(new Set(j.received.map((r) => r.index))).toEqual(new Set([0, 1]));
    expect(await queueDepth('fanout-work')).toBe(0);
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn: arnOf(id) }))).status).toBe('ABORTED');
  });
});
