// The agentic-verify SQS consumers: one candidate per message, processed side by side; a failed
// candidate is reported for redelivery, a malformed message dropped, a dead letter recorded as
// unverified; the task token is answered once the verdict is stored.
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { Container } from '../../lambdas/composition/container';
import { agenticHandlers } from '../../lambdas/workers/agentic-handlers';

const message = (index: number, extra: Record<string, unknown> = {}) => ({
  executionId: 'agentic-00000000-0000-0000-0000-000000000001',
  candidate: { index, url: `https://shop.test/products/p-${index}` },
  enrichment: false,
  rules: { inStockOnly: false, avoid: [] },
  TaskToken: `token-${index}`,
  ...extra,
});

const event = (bodies: unknown[]): SQSEvent => ({
  Records: bodies.map((body, i) => ({
    messageId: `m${i}`,
    receiptHandle: `r${i}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 's',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:agentic-verify',
    awsRegion: 'us-east-1',
  })),
});

// The capabilities the consumers reach are replaced by fakes: the agentic steps (over DynamoDB),
// the task callbacks (Step Functions) and the executions' read. One fake set per test.
const fakes = vi.hoisted(() => ({ current: undefined as unknown as Record<string, unknown> }));
vi.mock('../../lambdas/composition/agentic', () => ({ agenticJobsOf: () => fakes.current.jobs }));
vi.mock('../../lambdas/composition/agentic-verify', () => ({ agenticVerifyJobsOf: () => fakes.current.jobs }));
vi.mock('../../lambdas/composition/step-functions', () => ({
  stepFunctionsOf: () => ({ taskCallbacks: fakes.current.taskCallbacks }),
}));
vi.mock('../../lambdas/composition/executions', () => ({ executionsOf: () => fakes.current.executions }));

function fakeContainer(options: { failIndex?: number; callbackFails?: boolean; executionStatus?: string } = {}) {
  const verified: number[] = [];
  const abandoned: number[] = [];
  const reported: Array<{ token: string; output: Record<string, unknown> }> = [];
  const container = {} as Container;
  fakes.current = {
    jobs: {
      steps: {
        async verify(m: { candidate: { index: number } }) {
          if (m.candidate.index === options.failIndex) throw new Error('table unavailable');
          verified.push(m.candidate.index);
          return { index: m.candidate.index, kept: true, recorded: true };
        },
        async abandon(m: { candidate: { index: number } }) {
          abandoned.push(m.candidate.index);
          return { index: m.candidate.index, recorded: true };
        },
      },
    },
    taskCallbacks: {
      async succeed(token: string, output: Record<string, unknown>) {
        if (options.callbackFails) throw new Error('TaskTimedOut');
        reported.push({ token, output });
      },
      async fail() {},
    },
    executions: { get: async () => ({ status: options.executionStatus ?? 'running' }) },
  };
  return { container, verified, abandoned, reported };
}

describe('agentic-verify worker', () => {
  it('verifies every candidate of the batch and answers each task token', async () => {
    const { container, verified, reported } = fakeContainer();
    const result = await agenticHandlers.verify(event([message(0), message(1), message(2)]), container);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(verified.sort()).toEqual([0, 1, 2]);
    expect(reported.map((r) => r.token).sort()).toEqual(['token-0', 'token-1', 'token-2']);
    expect(reported[0].output).toMatchObject({ kept: true, recorded: true });
  });

  it('a failing candidate is redelivered; a malformed message is dropped; the others go through', async () => {
    const { container, verified } = fakeContainer({ failIndex: 1 });
    const result = await agenticHandlers.verify(
      event([message(0), message(1), 'not json', { executionId: 'x' }, message(2)]),
      container,
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(verified.sort()).toEqual([0, 2]);
  });

  it('a dead token of a stopped execution is dropped; of a running one, the message is retried', async () => {
    const stopped = fakeContainer({ callbackFails: true, executionStatus: 'failed' });
    expect(await agenticHandlers.verify(event([message(0)]), stopped.container)).toEqual({ batchItemFailures: [] });
    const running = fakeContainer({ callbackFails: true, executionStatus: 'running' });
    expect(await agenticHandlers.verify(event([message(0)]), running.container)).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm0' }],
    });
  });
});

describe('agentic-verify dead letters', () => {
  it('records the candidate as unverified and lets the Map go on', async () => {
    const { container, abandoned, reported } = fakeContainer();
    expect(await agenticHandlers.deadLetters(event([message(4)]), container)).toEqual({ batchItemFailures: [] });
    expect(abandoned).toEqual([4]);
    expect(reported).toEqual([{ token: 'token-4', output: { index: 4, recorded: true, kept: false } }]);
  });
});
