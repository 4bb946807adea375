// Rate-limit leases on the embedded DynamoDB (adapters/dynamodb/ratelimit.ts): a fast bucket under
// concurrent calls takes tokens ahead and spends them without round trips, yet what it admits
// never breaks the limit. Calls carry a virtual clock (their arrival instants), so the check does
// not depend on how fast this machine is: the admitted arrivals, in order, must be admissible one
// by one by the reference model (domain/ratelimit/policy.ts `decide`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoRateLimitStore, LEASE_MAX_MS, LEASE_MS, leaseMsOf } from '../../lambdas/adapters/dynamodb/ratelimit';
import { decide, type RateLimitPolicy } from '../../lambdas/domain/ratelimit/policy';

let engines: Engines;
const opened: AwsClients[] = [];
beforeAll(async () => {
  engines = await startEngines();
});
afterAll(async () => {
  for (const clients of opened) clients.dynamodb.destroy();
  await engines?.stop();
});

/** A store with a client of its own (as another process would have), counting its updates. */
function storeFor() {
  const clients = createClients({ ...loadConfig({}), endpoints: { dynamodb: engines.dynamodbEndpoint } });
  opened.push(clients);
  let updates = 0;
  clients.documents.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateCommand') updates++;
      return next(args);
    },
    { step: 'initialize', name: 'countUpdates' },
  );
  // Calls are judged at their virtual arrival instants: a retry on a loaded machine must not move
  // its instant by real milliseconds the admitted list below would not know about.
  const store = dynamoRateLimitStore(clients.documents, engines.tableName, { elapsedClock: () => 0 });
  return { store, updates: () => updates };
}

/** Deterministic pseudo-random wave sizes (no Math.random: a failure must reproduce). */
function sizes(count: number, max: number, seed: number): number[] {
  let x = seed;
  return Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return 1 + (x % max);
  });
}

/** Every admitted arrival, in order, replayed through the reference model: none may be refused. */
function conforms(policy: RateLimitPolicy, admittedAt: number[]): boolean {
  let tat: number | undefined;
  for (const at of [...admittedAt].sort((a, b) => a - b)) {
    const step = decide(policy, tat, at);
    if (!step.decision.allowed) return false;
    tat = step.tat;
  }
  return true;
}

describe('rate-limit leases', () => {
  it('admit a fast bucket within the limit with fewer updates than admissions', async () => {
    const { store, updates } = storeFor();
    const policy = { ratePerSecond: 1000, burst: 400 };
    const t0 = 1_800_000_000_000;
    const admittedAt: number[] = [];
    let refused = 0;
    // 60 waves 5 ms apart of 1..40 concurrent calls: up to 8000/s against 1000/s.
    const waves = sizes(60, 40, 7);
    for (const [w, size] of waves.entries()) {
      const at = t0 + w * 5;
      const decisions = await Promise.all(Array.from({ length: size }, () => store.take('lease-a', policy, at)));
      for (const d of decisions) {
        if (d.allowed) admittedAt.push(at);
        else refused++;
      }
    }
    const calls = waves.reduce((a, b) => a + b, 0);
    expect(admittedAt.length + refused).toBe(calls);
    expect(conforms(policy, admittedAt)).toBe(true);
    // The first burst alone is 400 calls; a lease's booking costs at most LEASE_MS of refill.
    expect(admittedAt.length).toBeGreaterThanOrEqual(Math.min(calls, policy.burst - LEASE_MS));
    expect(updates()).toBeLessThan(admittedAt.length / 2);
  });

  it('keep the limit across processes sharing the bucket', async () => {
    const stores = [storeFor(), storeFor(), storeFor()];
    const policy = { ratePerSecond: 2000, burst: 200 };
    const t0 = 1_800_000_100_000;
    const admittedAt: number[] = [];
    // The processes take turns (one wave each) so no call loses a race and retries later than
    // its arrival: every admission happens at its own instant.
    const waves = sizes(90, 30, 11);
    for (const [w, size] of waves.entries()) {
      const at = t0 + w * 2;
      const { store } = stores[w % 3];
      const decisions = await Promise.all(Array.from({ length: size }, () => store.take('lease-b', policy, at)));
      for (const d of decisions) if (d.allowed) admittedAt.push(at);
    }
    expect(conforms(policy, admittedAt)).toBe(true);
    expect(admittedAt.length).toBeGreaterThan(policy.burst / 2);
  });

  it('never lease for a slow bucket: its admissions match the reference model call for call', async () => {
    const { store } = storeFor();
    const policy = { ratePerSecond: 20, burst: 40 };
    const t0 = 1_800_000_200_000;
    let tat: number | undefined;
    for (const [w, size] of sizes(20, 10, 3).entries()) {
      const at = t0 + w * 30;
      const decisions = await Promise.all(Array.from({ length: size }, () => store.take('lease-c', policy, at)));
      let admitted = 0;
      for (let i = 0; i < size; i++) {
        const step = decide(policy, tat, at);
        if (step.decision.allowed) {
          admitted++;
          tat = step.tat;
        }
      }
      expect(decisions.filter((d) => d.allowed)).toHaveLength(admitted);
    }
  });

  it('last longer for a bucket with room to spare, so steady traffic rarely updates the table', async () => {
    // 1/16 of the burst's refill, between 50 ms and 1 s.
    expect(leaseMsOf({ ratePerSecond: 1000, burst: 400 })).toBe(LEASE_MS);
    expect(leaseMsOf({ ratePerSecond: 100_000, burst: 1_000_000 })).toBe(625);
    expect(leaseMsOf({ ratePerSecond: 1_000_000, burst: 100_000_000 })).toBe(LEASE_MAX_MS);
    const { store, updates } = storeFor();
    const policy = { ratePerSecond: 100_000, burst: 1_000_000 };
    const t0 = 1_800_000_300_000;
    const admittedAt: number[] = [];
    // 100 waves 10 ms apart (1 s) of 1..16 concurrent calls: far below the rate.
    const waves = sizes(100, 16, 5);
    for (const [w, size] of waves.entries()) {
      const at = t0 + w * 10;
      const decisions = await Promise.all(Array.from({ length: size }, () => store.take('lease-d', policy, at)));
      for (const d of decisions) if (d.allowed) admittedAt.push(at);
    }
    expect(admittedAt).toHaveLength(waves.reduce((a, b) => a + b, 0));
    expect(conforms(policy, admittedAt)).toBe(true);
    // 50 ms leases would need at least one update per 50 ms (20 over the second).
    expect(updates()).toBeLessThan(12);
  });

  it('serve a one-at-a-time caller of a fast bucket without a table update per call', async () => {
    const { store, updates } = storeFor();
    const policy = { ratePerSecond: 100_000, burst: 1_000_000 };
    const t0 = 1_800_000_400_000;
    const admittedAt: number[] = [];
    // 100 calls one after another, 5 ms apart: each alone, never a group.
    for (let i = 0; i < 100; i++) {
      const at = t0 + i * 5;
      if ((await store.take('lease-e', policy, at)).allowed) admittedAt.push(at);
    }
    expect(admittedAt).toHaveLength(100);
    expect(conforms(policy, admittedAt)).toBe(true);
    expect(updates()).toBeLessThan(10);
  });

  it('answer a call a lease covers as a value, without a promise to wait on', async () => {
    const { store } = storeFor();
    const policy = { ratePerSecond: 100_000, burst: 1_000_000 };
    const t0 = 1_800_000_500_000;
    // The first call takes the table's answer (and a token ahead).
    const first = store.take('lease-f', policy, t0);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual({ allowed: true, retryAfterSeconds: 0 });
    // The next one spends the leased token: a decision at once (its renewal runs behind it).
    const second = store.take('lease-f', policy, t0 + 1);
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toEqual({ allowed: true, retryAfterSeconds: 0 });
  });
});
