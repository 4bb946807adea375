// The local SQS pollers (lambdas/local/sqs-poller.ts) start together; their first long polls
// wait 1..waitTimeSeconds s by loop, so on idle queues they come back spread over the seconds
// instead of all in one instant (a burst of receives the event loop then spends milliseconds on).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { startSqsPollers, type SqsPollers } from '../../lambdas/local/sqs-poller';
import type { QueueSpec } from '../../lambdas/topology/queues';

const queue = (name: string): QueueSpec => ({
  name,
  worker: 'fanout-worker',
  batchSize: 1,
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: 2,
  envVar: `PDS_TEST_${name.toUpperCase().replace(/-/g, '_')}_URL`,
});
const QUEUES = [queue('stagger-a'), queue('stagger-b')];
const WAIT_SECONDS = 3;

let engines: Engines;
let pollers: SqsPollers | undefined;
let sqs: SQSClient;

beforeAll(async () => {
  engines = await startEngines({ queues: QUEUES });
  sqs = createClients({ ...loadConfig({}), endpoints: { sqs: engines.sqsEndpoint } }).sqs;
});

afterAll(async () => {
  await pollers?.stop(2000);
  sqs?.destroy();
  await engines?.stop();
});

describe('SQS pollers on idle queues', () => {
  it('send their receives spread over the wait, not all in the same instant', async () => {
    // Every receive the pollers send, by the time it was sent.
    const sentAt: number[] = [];
    const counting = new Proxy(sqs, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return (command: { constructor: { name: string } }, ...rest: unknown[]) => {
          if (command.constructor.name === 'ReceiveMessageCommand') sentAt.push(performance.now());
          return (target.send as (...args: unknown[]) => unknown).call(target, command, ...rest);
        };
      },
    });
    pollers = await startSqsPollers({
      sqs: counting,
      queues: QUEUES,
      queueUrls: engines.queueUrls,
      workersDir: resolve(process.cwd(), 'test/fixtures/workers'),
      concurrency: 3,
      waitTimeSeconds: WAIT_SECONDS,
    });
    const loops = QUEUES.length * 3; // 3 loops per queue (no DLQ workers here)
    // Until every loop has sent its second receive (bounded: a loop never coming back fails below).
    const deadline = performance.now() + (WAIT_SECONDS + 5) * 1000;
    while (sentAt.length < 2 * loops && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await pollers.stop(2000);
    pollers = undefined;

    // Offsets from the first receive: every loop's first receive at once, its second after its
    // first long poll came back empty, 1, 2 or 3 s later.
    const [firsts, seconds] = [sentAt.slice(0, loops), sentAt.slice(loops, 2 * loops)];
    const start = firsts[0];
    expect(firsts.every((at) => at - start < 500)).toBe(true);
    const bySecond = [1, 2, 3].map((n) => seconds.filter((at) => Math.round((at - start) / 1000) === n).length);
    expect(bySecond).toEqual([loops / 3, loops / 3, loops / 3]);
  }, 15_000);
});
