// The DynamoDB token bucket under contention from several independent clients (as from many
// Lambdas): never more admissions than the bucket holds, and refill by elapsed time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoRateLimitStore } from '../../lambdas/adapters/dynamodb/ratelimit';
import { decide } from '../../lambdas/domain/ratelimit/policy';

let engines: Engines;
beforeAll(async () => {
  engines = await startEngines();
});
afterAll(async () => engines?.stop());

const storeFor = () => {
  const clients = createClients({ ...loadConfig({}), endpoints: { dynamodb: engines.dynamodbEndpoint } });
  return dynamoRateLimitStore(clients.documents, engines.tableName);
};

describe('dynamo rate limit store', () => {
  it('admits exactly `burst` calls at one instant across three concurrent clients', async () => {
    const stores = [storeFor(), storeFor(), storeFor()];
    const policy = { ratePerSecond: 10, burst: 12 };
    const now = 1_700_000_000_000;
    const began = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => stores[i % 3].take('bucket-a', policy, now)),
    );
    // A call that loses a race retries with its clock moved on by the real time spent (the
    // bucket refills meanwhile), so a slow machine may admit one more per 100 ms elapsed.
    const refilled = Math.floor((Date.now() - began) / (1000 / policy.ratePerSecond));
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBeGreaterThanOrEqual(12);
    expect(allowed).toBeLessThanOrEqual(12 + refilled);
    for (const d of decisions.filter((d) => !d.allowed)) expect(d.retryAfterSeconds).toBe(1);
  });

  it('refills with time like the reference model', async () => {
    const store = storeFor();
    const policy = { ratePerSecond: 2, burst: 3 };
    const t0 = 1_700_000_100_000;
    let tat: number | undefined;
    // Calls at chosen instants, compared with the pure model step by step.
    for (const offset of [0, 0, 0, 0, 400, 500, 1000, 1000, 5000, 5000, 5000, 5000]) {
      const expected = decide(policy, tat, t0 + offset);
      const actual = await store.take('bucket-b', policy, t0 + offset);
      expect(actual).toEqual(expected.decision);
      if (expected.decision.allowed) tat = expected.tat;
    }
  });

  it('tells how long to wait when refused', async () => {
    const store = storeFor();
    const policy = { ratePerSecond: 0.5, burst: 1 };
    const now = 1_700_000_200_000;
    expect((await store.take('bucket-c', policy, now)).allowed).toBe(true);
    expect(await store.take('bucket-c', policy, now)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect((await store.take('bucket-c', policy, now + 2000)).allowed).toBe(true);
  });
});
