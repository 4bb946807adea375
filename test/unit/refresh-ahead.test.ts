// Refresh ahead in the request path's caches (key lookups, the vendor list): a call in the second
// half of an entry's period is answered from the cache at once while the next read runs in the
// background, so steady traffic never waits for a read; the staleness bound still holds (an entry
// counts from its read's start, and an expired entry is never served, even while its refresh
// hangs). In-memory stores with reads the test settles by hand; the clock is injected.
import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../lambdas/ports/accounts';
import type { VendorStore } from '../../lambdas/ports/vendors';
import type { ApiKeyRecord } from '../../lambdas/domain/accounts/keys';
import type { VendorRecord } from '../../lambdas/domain/vendors/model';
import { withKeyCache } from '../../lambdas/domain/accounts/cache';
import { withVendorListCache } from '../../lambdas/domain/vendors/list-cache';

/** Reads that stay pending until the test settles them, in order. */
function pendingReads<T>() {
  const waiting: Array<(value: T) => void> = [];
  return {
    read: () => new Promise<T>((resolve) => waiting.push(resolve)),
    count: () => waiting.length,
    settle: (index: number, value: T) => waiting[index](value),
  };
}

const settled = async <T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> => {
  let state: { done: boolean; value?: T } = { done: false };
  promise.then((value) => (state = { done: true, value }));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return state;
};

/** Every microtask chain started so far has run. */
const drained = () => new Promise((resolve) => setImmediate(resolve));

const vendor = (name: string): VendorRecord => ({
  vendor: name,
  displayName: name,
  productCount: 1,
  latestProductUpdate: '2026-01-01T00:00:00.000Z',
});

describe('vendor list refresh ahead', () => {
  it('answers from the list while it reads the next one, and never serves an expired list', async () => {
    let now = 0;
    const reads = pendingReads<VendorRecord[]>();
    const store = { listAll: reads.read } as unknown as VendorStore;
    const cached = withVendorListCache(store, { ttlMs: 1000, clock: () => now });

    const first = cached.listAll();
    reads.settle(0, [vendor('a.example')]);
    expect((await first).map((v) => v.vendor)).toEqual(['a.example']);

    now = 400; // first half: no read
    expect((await settled(cached.listAll())).done).toBe(true);
    expect(reads.count()).toBe(1);

    now = 600; // second half: answered at once, the next read starts
    const during = await settled(cached.listAll());
    expect(during.done).toBe(true);
    expect(during.value?.map((v) => v.vendor)).toEqual(['a.example']);
    expect(reads.count()).toBe(2);
    reads.settle(1, [vendor('a.example'), vendor('b.example')]);
    await drained();
    now = 700;
    expect((await cached.listAll()).map((v) => v.vendor)).toEqual(['a.example', 'b.example']);

    // That list counts from its read's start (600): it expires at 1600 even if its refresh hangs.
    now = 1200;
    await cached.listAll(); // starts a refresh that never returns
    expect(reads.count()).toBe(3);
    now = 1600;
    expect((await settled(cached.listAll())).done).toBe(false); // waits for the read, no stale answer
  });
});

describe('key cache refresh ahead', () => {
  const record: ApiKeyRecord = {
    keyId: 'k1',
    keyHash: 'h1',
    org: 'org',
    scopes: ['catalog'],
    createdAt: '2026-01-01T00:00:00.000Z',
  };

  it('keeps a key in steady use answered at once, and sees its revocation within the bound', async () => {
    let now = 0;
    const reads = pendingReads<ApiKeyRecord | null>();
    const store = { findKeyByHash: reads.read } as unknown as AccountStore;
    const cached = withKeyCache(store, { ttlMs: 5000, clock: () => now });

    const first = cached.findKeyByHash('h1');
    reads.settle(0, record);
    expect(await first).toEqual(record);

    now = 3000; // second half: answered from the cache, refreshed in the background
    expect((await settled(cached.findKeyByHash('h1'))).value).toEqual(record);
    expect(reads.count()).toBe(2);
    // Revoked elsewhere; the background read sees it.
    reads.settle(1, { ...record, revokedAt: '2026-01-01T00:00:03.000Z' });
    await drained();
    now = 3100;
    expect((await cached.findKeyByHash('h1'))?.revokedAt).toBeDefined();

    // Unknown keys are not refreshed ahead: they are asked again only once their short entry ends.
    const unknown = cached.findKeyByHash('nope');
    reads.settle(2, null);
    expect(await unknown).toBeNull();
    now = 3100 + 900;
    expect(await cached.findKeyByHash('nope')).toBeNull();
    expect(reads.count()).toBe(3);
  });
});
