// The embedded Step Functions service through the real @aws-sdk/client-sfn: AWS error types,
// idempotent starts, callback timeouts and heartbeats, and the adapters' tolerance.
import '../../lambdas/local/polyfills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import {
  DescribeExecutionCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { startStepFunctionsService, type StepFunctionsService } from '../../lambdas/local/stepfunctions/server';
import { validateDefinitions } from '../../lambdas/local/stepfunctions/executions';
import { prepareMachine } from '../../lambdas/local/stepfunctions/definitions';
import { createClients } from '../../lambdas/adapters/clients';
import { createSfnClient } from '../../lambdas/adapters/sfn-client';
import { createStepFunctionsTaskCallbacks, executionArnFor } from '../../lambdas/adapters/stepfunctions';
import { loadConfig } from '../../lambdas/config';
import type { QueueSpec } from '../../lambdas/topology/queues';

const fixtures = resolve(process.cwd(), 'test/fixtures');
// A queue no poller reads: the test plays the worker.
const silentQueue: QueueSpec = {
  name: 'silent',
  worker: 'none',
  batchSize: 1,
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: 3,
  envVar: 'PDS_TEST_SILENT',
};

let engines: Engines;
let service: StepFunctionsService;
let sqs: SQSClient;
let sfn: SFNClient;

beforeAll(async () => {
  engines = await startEngines({ queues: [silentQueue] });
  sqs = createClients({ ...loadConfig({}), endpoints: { sqs: engines.sqsEndpoint } }).sqs;
  const machine = (name: string) => ({
    spec: { name, aslFile: `${name}.asl.json`, tasks: {}, queues: { Silent: 'silent' } },
    aslDir: resolve(fixtures, 'statemachines'),
  });
  // The same callback machine under an execution deadline, as the CDK stack sets WorkflowSpec.timeoutSeconds.
  const deadline = {
    ...machine('callback-heartbeat'),
    spec: { ...machine('callback-heartbeat').spec, name: 'callback-deadline', timeoutSeconds: 1 },
  };
  service = await startStepFunctionsService({
    machines: [machine('callback-timeout'), machine('callback-heartbeat'), deadline],
    queueUrls: engines.queueUrls,
    sqs,
  });
  sfn = createSfnClient({ ...loadConfig({}), endpoints: { stepFunctions: service.endpoint } });
});

afterAll(async () => {
  await service?.stop();
  await engines?.stop();
});

async function settled(executionArn: string, maxMs = 30_000) {
  const deadline = Date.now() + maxMs;
  for (let i = 0; i < 2000 && Date.now() < deadline; i++) {
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (described.status !== 'RUNNING') return described;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${executionArn} still running after ${maxMs} ms`);
}

async function receiveToken(): Promise<{ taskToken: string; input: unknown }> {
  const url = engines.queueUrls.silent;
  for (let i = 0; i < 10; i++) {
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 2, MaxNumberOfMessages: 1 }),
    );
    const message = Messages?.[0];
    if (message) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle! }));
      return JSON.parse(message.Body!);
    }
  }
  throw new Error('no callback message arrived');
}

const errorName = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    (e: Error) => e.name,
  );

describe('embedded Step Functions service', () => {
  it('completes a callback task with SendTaskSuccess and reports AWS error types', async () => {
    const stateMachineArn = service.stateMachineArns['callback-heartbeat'];
    const input = JSON.stringify({ job: 'x' });
    const started = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'cb-1', input }));
    expect(started.executionArn).toBe('arn:aws:states:us-east-1:000000000000:execution:callback-heartbeat:cb-1');
    expect(started.startDate).toBeInstanceOf(Date);

    // Same name and input while running: the same execution. Other input: a conflict.
    const again = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'cb-1', input }));
    expect(again.executionArn).toBe(started.executionArn);
    expect(
      await errorName(sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'cb-1', input: '{"job":"y"}' }))),
    ).toBe('ExecutionAlreadyExists');

    const { taskToken, input: echoed } = await receiveToken();
    expect(echoed).toEqual({ job: 'x' });
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }))).status).toBe(
      'RUNNING',
    );
    await sfn.send(new SendTaskHeartbeatCommand({ taskToken }));
    await sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify({ done: true }) }));

    const described = await settled(started.executionArn!);
    expect(described).toMatchObject({ status: 'SUCCEEDED', name: 'cb-1', stateMachineArn, input });
    expect(JSON.parse(described.output!)).toEqual({ done: true });
    expect(described.stopDate!.getTime()).toBeGreaterThanOrEqual(described.startDate!.getTime());

    // The token is spent; a foreign string is not a token at all.
    expect(await errorName(sfn.send(new SendTaskSuccessCommand({ taskToken, output: '{}' })))).toBe('TaskDoesNotExist');
    expect(await errorName(sfn.send(new SendTaskSuccessCommand({ taskToken: 'garbage', output: '{}' })))).toBe(
      'InvalidToken',
    );
    await createStepFunctionsTaskCallbacks(sfn).succeed(taskToken, { late: true }); // tolerated
    expect(
      await errorName(
        sfn.send(new DescribeExecutionCommand({ executionArn: executionArnFor(stateMachineArn, 'nope') })),
      ),
    ).toBe('ExecutionDoesNotExist');
    expect(await errorName(sfn.send(new DescribeExecutionCommand({ executionArn: 'not-an-arn' })))).toBe('InvalidArn');
    expect(await errorName(sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'has space' })))).toBe(
      'InvalidName',
    );
    expect(
      await errorName(sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'bad-input', input: '{' }))),
    ).toBe('InvalidExecutionInput');
    expect(
      await errorName(
        sfn.send(
          new StartExecutionCommand({
            stateMachineArn: stateMachineArn.replace('callback-heartbeat', 'missing'),
            name: 'x',
          }),
        ),
      ),
    ).toBe('StateMachineDoesNotExist');
  });

  it('answers the SDK client and any other HTTP caller with the same operations and error types', async () => {
    const stateMachineArn = service.stateMachineArns['callback-heartbeat'];
    const started = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'both-ways', input: '{}' }));
    // Its callback task's message, taken so the tests after this one receive only their own.
    await receiveToken();

    // Over HTTP (a client in another process): the same operations and error types.
    const call = async (target: string, body: string, method = 'POST') => {
      const response = await fetch(service.endpoint, {
        method,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target },
        ...(method === 'POST' ? { body } : {}),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const described = await call(
      'AWSStepFunctions.DescribeExecution',
      JSON.stringify({ executionArn: started.executionArn }),
    );
    expect(described).toMatchObject({ status: 200, json: { status: 'RUNNING', name: 'both-ways' } });
    const viaSdk = await sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
    expect(viaSdk).toMatchObject({ status: 'RUNNING', name: 'both-ways', input: '{}' });
    expect(await call('AWSStepFunctions.DescribeExecution', JSON.stringify({ executionArn: 'not-an-arn' }))).toEqual({
      status: 400,
      json: { __type: 'InvalidArn', message: expect.any(String) },
    });
    expect((await call('AWSStepFunctions.Nope', '{}')).json.__type).toBe('UnknownOperationException');
    expect((await call('AWSStepFunctions.DescribeExecution', '[1]')).json.__type).toBe('SerializationException');
    expect(await call('AWSStepFunctions.StartExecution', 'x'.repeat(1_100_000))).toMatchObject({
      status: 413,
      json: { __type: 'ValidationException' },
    });
    await sfn.send(new StopExecutionCommand({ executionArn: started.executionArn }));
  });

  it('fails a callback task that outlives TimeoutSeconds with States.Timeout', async () => {
    const stateMachineArn = service.stateMachineArns['callback-timeout'];
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'to-1', input: '{}' }));
    const { taskToken } = await receiveToken();
    const described = await settled(executionArn!);
    expect(described).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    expect(await errorName(sfn.send(new SendTaskSuccessCommand({ taskToken, output: '{}' })))).toBe('TaskTimedOut');
  });

  it('fails a callback task whose worker stops heartbeating, and StopExecution is then a no-op', async () => {
    const stateMachineArn = service.stateMachineArns['callback-heartbeat'];
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'hb-1', input: '{}' }));
    const { taskToken } = await receiveToken();
    await sfn.send(new SendTaskHeartbeatCommand({ taskToken }));
    const described = await settled(executionArn!);
    expect(described).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    expect(described.cause).toMatch(/HeartbeatSeconds/);
    expect(await errorName(sfn.send(new SendTaskHeartbeatCommand({ taskToken })))).toBe('TaskTimedOut');
    await sfn.send(new StopExecutionCommand({ executionArn, cause: 'too late' }));
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('FAILED');
  });

  it('times out an execution past its deadline (TIMED_OUT) and drops its task token', async () => {
    const stateMachineArn = service.stateMachineArns['callback-deadline'];
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'dl-1', input: '{}' }));
    const { taskToken } = await receiveToken();
    const described = await settled(executionArn!);
    expect(described).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(await errorName(sfn.send(new SendTaskSuccessCommand({ taskToken, output: '{}' })))).toBe('TaskDoesNotExist');
    expect(service.executions.tokens.size).toBe(0);
  });
});

describe('remembered validations (npm start keeps them between runs)', () => {
  const remembered = new Set<string>();
  const memo = { has: (key: string) => remembered.has(key), add: (key: string) => void remembered.add(key) };
  const timeoutMachine = {
    spec: { name: 'callback-timeout', aslFile: 'callback-timeout.asl.json', tasks: {}, queues: { Silent: 'silent' } },
    aslDir: resolve(fixtures, 'statemachines'),
  };

  it('validates an unknown definition before serving, then defers the interpreter; a start before it loads runs', async () => {
    const first = await startStepFunctionsService({ machines: [timeoutMachine], queueUrls: engines.queueUrls, sqs });
    await first.stop();
    expect(remembered.size).toBe(0);

    const validating = await startStepFunctionsService({
      machines: [timeoutMachine],
      queueUrls: engines.queueUrls,
      sqs,
      validated: memo,
    });
    expect(validating.executions.loaded).toBe(true);
    expect(remembered.size).toBe(1);
    await validating.stop();

    const deferred = await startStepFunctionsService({
      machines: [timeoutMachine],
      queueUrls: engines.queueUrls,
      sqs,
      validated: memo,
    });
    try {
      expect(deferred.executions.loaded).toBe(false);
      const client = createSfnClient({ ...loadConfig({}), endpoints: { stepFunctions: deferred.endpoint } });
      const { executionArn } = await client.send(
        new StartExecutionCommand({ stateMachineArn: deferred.stateMachineArns['callback-timeout'], input: '{}' }),
      );
      // The callback task's message reaches the queue once the interpreter has loaded: the execution
      // ran, and ends as the definition says (nobody answers: States.Timeout after 1 s).
      expect((await receiveToken()).taskToken).toBeTruthy();
      expect(deferred.executions.loaded).toBe(true);
      let described = await client.send(new DescribeExecutionCommand({ executionArn }));
      for (let i = 0; i < 600 && described.status === 'RUNNING'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        described = await client.send(new DescribeExecutionCommand({ executionArn }));
      }
      expect(described).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
      client.destroy();
    } finally {
      await deferred.stop();
    }
  });

  it('refuses to start on a definition that does not validate', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(resolve(tmpdir(), 'pds-asl-'));
    writeFileSync(resolve(dir, 'broken.asl.json'), JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Nope' } } }));
    await expect(
      startStepFunctionsService({
        machines: [{ spec: { name: 'broken', aslFile: 'broken.asl.json', tasks: {}, queues: {} }, aslDir: dir }],
        queueUrls: engines.queueUrls,
        sqs,
        validated: memo,
      }),
    ).rejects.toThrow();
    expect(remembered.size).toBe(1);
  });

  it('validateDefinitions (npm start, beside the engines) validates unknown ones only, remembering the valid', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(resolve(tmpdir(), 'pds-asl-'));
    writeFileSync(resolve(dir, 'broken.asl.json'), JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Nope' } } }));
    const seen = new Set<string>();
    const fresh = { has: (key: string) => seen.has(key), add: (key: string) => void seen.add(key) };
    const urls = { silent: 'http://127.0.0.1/000000000000/silent' };
    const good = prepareMachine(timeoutMachine, urls);
    await validateDefinitions([good], fresh);
    expect([...seen]).toEqual([good.sourceKey]);
    const broken = prepareMachine(
      { spec: { name: 'broken', aslFile: 'broken.asl.json', tasks: {}, queues: {} }, aslDir: dir },
      urls,
    );
    await expect(validateDefinitions([good, broken], fresh)).rejects.toThrow();
    expect(seen.has(broken.sourceKey)).toBe(false);
  });
});
