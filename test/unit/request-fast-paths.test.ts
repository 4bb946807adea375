// The request path's answers without waiting give what the waiting paths give: a key in steady
// use is known from the key cache (refresh ahead and revocation as before), the usage meter has
// nothing to wait for when it writes behind, per-request metric dimensions are made once, and no
// request line is made when the log level drops it.
import { afterEach, describe, expect, it } from 'vitest';
import { withKeyCache } from '../../lambdas/domain/accounts/cache';
import { authenticateKey, knownPrincipal } from '../../lambdas/domain/accounts/service';
import { hashKey, type ApiKeyRecord } from '../../lambdas/domain/accounts/keys';
import type { AccountStore } from '../../lambdas/ports/accounts';
import { createUsageMeter } from '../../lambdas/domain/usage/meter';
import { tallyMetrics } from '../../lambdas/adapters/metrics';
import { recordRequest } from '../../lambdas/observability/api-metrics';
import { requestLogWanted, setRequestLogSink } from '../../lambdas/http/log';
import { setLogLevel } from '../../lambdas/observability/logger';

const KEY = 'fast-path-key-0123456789';

/** An account store over a map, counting reads. */
function memoryStore(records: ApiKeyRecord[]) {
  const byHash = new Map(records.map((record) => [record.keyHash, record]));
  let reads = 0;
  const store: AccountStore = {
    findKeyByHash: async (keyHash) => {
      reads++;
      return byHash.get(keyHash) ?? null;
    },
    putKey: async () => true,
    listKeys: async () => [...byHash.values()],
    revokeKey: async (keyId, at) => {
      for (const record of byHash.values()) {
        if (record.keyId !== keyId) continue;
        const revoked = { ...record, revokedAt: at };
        byHash.set(record.keyHash, revoked);
        return revoked;
      }
      return null;
    },
    getOrganization: async () => null,
    ensureOrganization: async () => undefined,
    setOrganizationRateLimit: async () => undefined,
    claimDevelopmentKey: async () => true,
  };
  return { store, reads: () => reads };
}

const record: ApiKeyRecord = {
  keyId: 'key-1',
  keyHash: hashKey(KEY),
  org: 'acme',
  scopes: ['catalog', 'usage'],
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('known principal', () => {
  it('answers a cached key at once, as authenticateKey does, and refreshes ahead on the same clock', async () => {
    let now = 1_000_000;
    const { store, reads } = memoryStore([record]);
    const cached = withKeyCache(store, { ttlMs: 5000, clock: () => now });
    // Unknown to the memo and the cache: the waiting path must run.
    expect(knownPrincipal(cached, KEY)).toBeUndefined();
    const principal = await authenticateKey(cached, KEY);
    expect(principal).toEqual({ org: 'acme', keyId: 'key-1', scopes: ['catalog', 'usage'] });
    expect(reads()).toBe(1);
    // Now known: the same principal without a read, and the same object every call.
    expect(knownPrincipal(cached, KEY)).toEqual(principal);
    expect(knownPrincipal(cached, KEY)).toBe(knownPrincipal(cached, KEY));
    expect(reads()).toBe(1);
    // Second half of the period: still answered at once, the next read starts behind it.
    now += 3000;
    expect(knownPrincipal(cached, KEY)).toEqual(principal);
    expect(reads()).toBe(2);
    // Expired (counted from the refresh's start, 3 s ago, plus 5 s): the waiting path again.
    now += 5001;
    expect(knownPrincipal(cached, KEY)).toBeUndefined();
    // A made-up key is never answered without the store.
    expect(knownPrincipal(cached, 'made-up-key-0123456789')).toBeUndefined();
  });

  it('refuses a key revoked through the cache at once', async () => {
    const { store } = memoryStore([{ ...record, keyId: 'key-2', keyHash: hashKey(`${KEY}-2`) }]);
    const cached = withKeyCache(store);
    expect(await authenticateKey(cached, `${KEY}-2`)).not.toBeNull();
    expect(knownPrincipal(cached, `${KEY}-2`)).not.toBeUndefined();
    await cached.revokeKey('key-2', '2026-01-02T00:00:00.000Z');
    // The cache forgot it: the waiting path reads the revoked record and refuses.
    expect(knownPrincipal(cached, `${KEY}-2`)).toBeUndefined();
    expect(await authenticateKey(cached, `${KEY}-2`)).toBeNull();
  });

  it('is never answered by a store without a cache', async () => {
    const { store, reads } = memoryStore([{ ...record, keyId: 'key-3', keyHash: hashKey(`${KEY}-3`) }]);
    expect(await authenticateKey(store, `${KEY}-3`)).not.toBeNull();
    expect(knownPrincipal(store, `${KEY}-3`)).toBeUndefined();
    expect(reads()).toBe(1);
  });
});

describe('usage meter', () => {
  it('gives nothing to wait for when it writes behind, a promise when awaited', async () => {
    const added: number[] = [];
    const behind = createUsageMeter(async (_o, _p, _b, calls) => void added.push(calls), { writeBehindMs: 60_000 });
    expect(behind.record('acme', '/v2/vendors', new Date())).toBeUndefined();
    expect(behind.record('acme', '/v2/vendors', new Date())).toBeUndefined();
    await behind.flush();
    expect(added).toEqual([2]);
    const awaited = createUsageMeter(async (_o, _p, _b, calls) => void added.push(calls));
    const pending = awaited.record('acme', '/v2/vendors', new Date());
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    expect(added).toEqual([2, 1]);
  });
});

describe('request metrics', () => {
  it('counts per family and error class with dimensions made once, under the same keys as before', () => {
    const tally = tallyMetrics();
    recordRequest(tally, 'v2', 200, 3);
    recordRequest(tally, 'v2', 404, 2);
    recordRequest(tally, 'v2', 503, 1);
    recordRequest(tally, 'legacy', 429, 4);
    recordRequest(tally, 'public', 200, 1);
    // A caller passing fresh (unfrozen) dimensions lands on the same keys.
    tally.count('ApiRequests', 1, { family: 'v2' });
    expect(Object.fromEntries(tally.totals())).toEqual({
      'ApiRequests{family=v2}': 4,
      'ApiLatency{family=v2}': 6,
      'ApiErrors{family=v2,class=4xx}': 1,
      'ApiErrors{family=v2,class=5xx}': 1,
      'ApiRequests{family=legacy}': 1,
      'ApiLatency{family=legacy}': 4,
      'ApiErrors{family=legacy,class=4xx}': 1,
    });
  });
});

describe('request log level', () => {
  afterEach(() => {
    setLogLevel('info');
    setRequestLogSink(null);
  });

  it('makes no request line the logger would drop', () => {
    setLogLevel('warn');
    expect(requestLogWanted('info')).toBe(false);
    expect(requestLogWanted('warn')).toBe(true);
    expect(requestLogWanted('error')).toBe(true);
    setLogLevel('info');
    expect(requestLogWanted('info')).toBe(true);
    // A test's own sink sees every line.
    setLogLevel('error');
    setRequestLogSink(() => undefined);
    expect(requestLogWanted('info')).toBe(true);
  });
});
