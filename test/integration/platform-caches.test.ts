// The per-process shortcuts of the authenticated path, on the embedded DynamoDB: the key cache
// (revocation bound), usage group commit (exact counts, fewer writes), the vendor list cache
// and the rate limiter's local refusals. Clocks are injected, so nothing here waits on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoAccountStore } from '../../lambdas/adapters/dynamodb/accounts';
import { dynamoUsageStore } from '../../lambdas/adapters/dynamodb/usage';
import { dynamoVendorStore } from '../../lambdas/adapters/dynamodb/vendors';
import { dynamoRateLimitStore } from '../../lambdas/adapters/dynamodb/ratelimit';
import { authenticateKey, createKey } from '../../lambdas/domain/accounts/service';
import { withKeyCache } from '../../lambdas/domain/accounts/cache';
import { createUsageMeter } from '../../lambdas/domain/usage/meter';
import { withVendorListCache } from '../../lambdas/domain/vendors/list-cache';

let engines: Engines;
const opened: AwsClients[] = [];
beforeAll(async () => {
  engines = await startEngines();
});
afterAll(async () => {
  for (const clients of opened) clients.dynamodb.destroy();
  await engines?.stop();
});

/** A client of its own (as another process would have), counting the commands it sends. */
function connect(tableName = engines.tableName) {
  const clients = createClients({ ...loadConfig({}), endpoints: { dynamodb: engines.dynamodbEndpoint } });
  opened.push(clients);
  const sent: string[] = [];
  clients.documents.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  return { documents: clients.documents, tableName, sent };
}

describe('key cache', () => {
  it('answers repeated lookups from memory; a revocation elsewhere takes effect after the TTL, here at once', async () => {
    let now = 1_000_000;
    const here = connect();
    const cached = withKeyCache(dynamoAccountStore(here.documents, here.tableName), {
      ttlMs: 5_000,
      negativeTtlMs: 1_000,
      clock: () => now,
    });
    const elsewhere = dynamoAccountStore(connect().documents, engines.tableName);

    const first = await createKey(elsewhere, { org: 'cache-org' });
    here.sent.length = 0;
    const principals = await Promise.all(Array.from({ length: 10 }, () => authenticateKey(cached, first.key)));
    expect(principals.every((p) => p?.keyId === first.keyId)).toBe(true);
    expect(here.sent).toEqual(['GetItemCommand']); // ten concurrent calls, one read

    await elsewhere.revokeKey(first.keyId, new Date(now).toISOString());
    now += 4_999;
    expect(await authenticateKey(cached, first.key)).not.toBeNull(); // within the stated bound
    now += 2;
    expect(await authenticateKey(cached, first.key)).toBeNull();

    const second = await createKey(cached, { org: 'cache-org' });
    expect(await authenticateKey(cached, second.key)).not.toBeNull();
    await cached.revokeKey(second.keyId, new Date(now).toISOString());
    expect(await authenticateKey(cached, second.key)).toBeNull(); // through this store: at once
  });

  it('remembers unknown keys only briefly, and forgets them when the key is created here', async () => {
    let now = 2_000_000;
    const cached = withKeyCache(dynamoAccountStore(connect().documents, engines.tableName), {
      negativeTtlMs: 1_000,
      clock: () => now,
    });
    const elsewhere = dynamoAccountStore(connect().documents, engines.tableName);
    const key = 'pds_cache-test-key-created-later-0001';
    expect(await authenticateKey(cached, key)).toBeNull();
    await createKey(elsewhere, { org: 'late-org', key });
    expect(await authenticateKey(cached, key)).toBeNull(); // the unknown answer is still fresh
    now += 1_001;
    expect(await authenticateKey(cached, key)).toMatchObject({ org: 'late-org' });

    const other = 'pds_cache-test-key-created-here-0002';
    expect(await authenticateKey(cached, other)).toBeNull();
    await createKey(cached, { org: 'late-org', key: other });
    expect(await authenticateKey(cached, other)).toMatchObject({ org: 'late-org' });
  });
});

describe('usage meter', () => {
  it('counts every concurrent call exactly, in fewer writes than calls', async () => {
    const db = connect();
    const store = dynamoUsageStore(db.documents, db.tableName);
    const meter = createUsageMeter(store.add);
    const at = new Date('2026-03-01T10:15:00Z');
    db.sent.length = 0;
    const paths = ['/v2/vendors', '/v2/usage', '/api/search'];
    await Promise.all(Array.from({ length: 300 }, (_, i) => meter.record('meter-org', paths[i % 3], at)));
    const rows = await store.read('meter-org', null);
    expect(Object.fromEntries(rows.map((r) => [r.path, r.calls]))).toEqual({
      '/v2/vendors': 100,
      '/v2/usage': 100,
      '/api/search': 100,
    });
    const writes = db.sent.filter((c) => c === 'UpdateItemCommand').length;
    expect(writes).toBeGreaterThanOrEqual(3);
    expect(writes).toBeLessThan(300);

    // Calls one after another (as in a Lambda): one write each.
    db.sent.length = 0;
    for (let i = 0; i < 3; i++) await meter.record('meter-org', '/v2/vendors', at);
    expect(db.sent.filter((c) => c === 'UpdateItemCommand')).toHaveLength(3);
    expect((await store.read('meter-org', null)).find((r) => r.path === '/v2/vendors')?.calls).toBe(103);
  });

  it('rejects every call of a failed write', async () => {
    const missing = connect('no-such-table');
    const meter = createUsageMeter(dynamoUsageStore(missing.documents, missing.tableName).add);
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => meter.record('x', '/v2/vendors', new Date())),
    );
    expect(results.map((r) => r.status)).toEqual(Array(5).fill('rejected'));
  });
});

describe('vendor list cache', () => {
  it('reads the list once per TTL; writes here show at once, writes elsewhere after the TTL', async () => {
    let now = 3_000_000;
    const here = connect();
    const cached = withVendorListCache(dynamoVendorStore(here.documents, here.tableName), {
      ttlMs: 1_000,
      clock: () => now,
    });
    const elsewhere = dynamoVendorStore(connect().documents, engines.tableName);
    const seen = (vendor: string) => ({ vendor, newProduct: true, updatedAt: '2026-01-01T00:00:00.000Z' });

    await cached.recordProductSeen(seen('cache-a.example'));
    here.sent.length = 0;
    const lists = await Promise.all(Array.from({ length: 5 }, () => cached.listAll()));
    expect(lists.every((l) => l.some((v) => v.vendor === 'cache-a.example'))).toBe(true);
    expect(here.sent).toEqual(['QueryCommand']);

    await elsewhere.recordProductSeen(seen('cache-b.example'));
    expect((await cached.listAll()).some((v) => v.vendor === 'cache-b.example')).toBe(false);
    now += 1_001;
    expect((await cached.listAll()).some((v) => v.vendor === 'cache-b.example')).toBe(true);

    await cached.recordProductSeen(seen('cache-c.example'));
    expect((await cached.listAll()).some((v) => v.vendor === 'cache-c.example')).toBe(true);
  });
});

describe('rate limiter round trips', () => {
  // The calls are judged at the instants the test gives; the time a retry takes on a loaded
  // machine would move them on (the store's elapsedClock), so it is frozen.
  it('admits with one update per call and refuses a full bucket without asking the table', async () => {
    const db = connect();
    const store = dynamoRateLimitStore(db.documents, db.tableName, { elapsedClock: () => 0 });
    const policy = { ratePerSecond: 1, burst: 3 };
    const now = 1_700_000_300_000;
    db.sent.length = 0;
    for (let i = 0; i < 3; i++) expect((await store.take('bucket-rt', policy, now + i)).allowed).toBe(true);
    expect(db.sent).toEqual(['UpdateItemCommand', 'UpdateItemCommand', 'UpdateItemCommand']);
    db.sent.length = 0;
    expect(await store.take('bucket-rt', policy, now + 10)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(db.sent).toEqual([]);
    // Once time has refilled a token, the table is asked again.
    expect((await store.take('bucket-rt', policy, now + 1_500)).allowed).toBe(true);
    expect(db.sent).toEqual(['UpdateItemCommand']);
  });

  it('takes the tokens of calls waiting on one bucket in one update, never more than the bucket holds', async () => {
    const db = connect();
    const store = dynamoRateLimitStore(db.documents, db.tableName, { elapsedClock: () => 0 });
    const policy = { ratePerSecond: 1, burst: 12 };
    const now = 1_700_000_400_000;
    db.sent.length = 0;
    const first = await Promise.all(Array.from({ length: 10 }, () => store.take('bucket-group', policy, now)));
    expect(first.every((d) => d.allowed)).toBe(true);
    expect(db.sent.length).toBeLessThan(10); // one alone, then the nine that waited together
    const second = await Promise.all(Array.from({ length: 10 }, () => store.take('bucket-group', policy, now)));
    expect(second.filter((d) => d.allowed)).toHaveLength(2);
    expect(second.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds >= 1)).toBe(true);
  });
});
