// The table's host gate (adapters/dynamodb/host-gate.ts) on the embedded DynamoDB, with several
// gates each on a client of its own (as separate workers have): the concurrency holds across them,
// a pause from one holds for all, a crashed holder's slot frees when its lease ends, a lone fetch
// costs two writes. (Spacing and cost under load, timed exactly: test/unit/host-gate.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoHostGate, type DynamoHostGateOptions } from '../../lambdas/adapters/dynamodb/host-gate';
import { HostPaused, type HostPolicy } from '../../lambdas/ports/host-gate';

let engines: Engines;
const opened: AwsClients[] = [];
beforeAll(async () => {
  engines = await startEngines();
});
afterAll(async () => {
  for (const clients of opened) clients.dynamodb.destroy();
  await engines?.stop();
});

/** A gate on a client of its own, counting the commands it sends. */
function worker(options: DynamoHostGateOptions = {}) {
  const clients = createClients({ ...loadConfig({}), endpoints: { dynamodb: engines.dynamodbEndpoint } });
  opened.push(clients);
  const calls: string[] = [];
  clients.documents.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  return { gate: dynamoHostGate(clients.documents, engines.tableName, options), calls };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` turns on `host` through `gate`, each held `holdMs`; the start instants and the peak in flight. */
async function turns(
  gates: Array<ReturnType<typeof worker>['gate']>,
  host: string,
  policy: HostPolicy,
  perGate: number,
  holdMs: number,
) {
  const starts: number[] = [];
  let inFlight = 0;
  let peak = 0;
  await Promise.all(
    gates.flatMap((gate) =>
      Array.from({ length: perGate }, async () => {
        const release = await gate.acquire(host, policy);
        starts.push(Date.now());
        peak = Math.max(peak, ++inFlight);
        await sleep(holdMs);
        inFlight--;
        release();
      }),
    ),
  );
  return { starts: starts.sort((a, b) => a - b), peak };
}

describe('host gate in the table', () => {
  it('caps concurrency across four workers', async () => {
    const workers = Array.from({ length: 4 }, () => worker());
    const { starts, peak } = await turns(
      workers.map((w) => w.gate),
      'concurrency.test',
      { spacingMs: 0, concurrency: 2 },
      3,
      150,
    );
    expect(starts).toHaveLength(12);
    expect(peak).toBe(2);
  });

  it('holds a pause written by one worker for every other', async () => {
    const [a, b] = [worker(), worker()];
    const policy = { spacingMs: 0, concurrency: 2 };
    (await b.gate.acquire('paused.test', policy))(); // b knows the host (an idle snapshot)
    const until = Date.now() + 400;
    await a.gate.pause('paused.test', until);
    const release = await b.gate.acquire('paused.test', policy);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    release();
  });

  it('keeps a pause written after a start was booked ahead', async () => {
    const [a, b] = [worker(), worker()];
    const policy = { spacingMs: 300, concurrency: 2 };
    (await a.gate.acquire('booked.test', policy))(); // nextStart is now 300 ms ahead
    const booked = b.gate.acquire('booked.test', policy); // b books that start and waits for it
    await sleep(100);
    const until = Date.now() + 600;
    await a.gate.pause('booked.test', until);
    (await booked)();
    expect(Date.now()).toBeGreaterThanOrEqual(until);
  });

  it('refuses a pause longer than the gate waits', async () => {
    const { gate } = worker({ maxPauseWaitMs: 1000 });
    await gate.pause('long-pause.test', Date.now() + 60_000);
    await expect(gate.acquire('long-pause.test', { spacingMs: 0, concurrency: 1 })).rejects.toBeInstanceOf(HostPaused);
  });

  it("frees a crashed worker's slot when its lease ends", async () => {
    const crashed = worker({ leaseMs: 500 });
    const other = worker({ leaseMs: 500 });
    const policy = { spacingMs: 0, concurrency: 1 };
    const taken = Date.now();
    await crashed.gate.acquire('crash.test', policy); // never released
    const release = await other.gate.acquire('crash.test', policy);
    expect(Date.now() - taken).toBeGreaterThanOrEqual(450);
    release();
  });

  it('costs two writes for a lone fetch', async () => {
    const lone = worker();
    const policy = { spacingMs: 0, concurrency: 2 };
    (await lone.gate.acquire('cost.test', policy))();
    await sleep(50); // the free is sent after the release returns
    expect(lone.calls).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
  });
});
