// The vendor summaries of the vendors routes are computed once per cached vendor list (its
// staleness bound, VENDOR_LIST_TTL_MS), not per request: same list, same summaries; a new list
// (time passed, or a write through the store) gives new summaries with the new data. The store is
// an in-memory VendorStore (the port), the clock is injected: nothing here waits on time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VendorStore } from '../../lambdas/ports/vendors';
import type { VendorRecord } from '../../lambdas/domain/vendors/model';
import type { MerchantDirectory } from '../../lambdas/domain/affiliate/merchants';
import { VENDOR_LIST_TTL_MS, withVendorListCache } from '../../lambdas/domain/vendors/list-cache';
import { knownVendorSummaries, listVendorSummaries } from '../../lambdas/domain/vendors/service';

function memoryStore(records: VendorRecord[]) {
  let reads = 0;
  const store: VendorStore = {
    async recordProductSeen(event) {
      records.push({
        vendor: event.vendor,
        displayName: event.vendor,
        productCount: 1,
        latestProductUpdate: event.updatedAt,
      });
    },
    recordProductsSeen: async () => undefined,
    recordListings: async () => undefined,
    async listAll() {
      reads++;
      return records.map((r) => ({ ...r }));
    },
    get: async () => null,
  };
  return { store, reads: () => reads };
}

function countingMerchants(): MerchantDirectory & { checks: () => number } {
  let checks = 0;
  return {
    merchantFor: () => null,
    isMerchant(host) {
      checks++;
      return host.startsWith('merchant');
    },
    checks: () => checks,
  };
}

const record = (vendor: string, productCount: number): VendorRecord => ({
  vendor,
  displayName: vendor,
  productCount,
  latestProductUpdate: '2026-01-01T00:00:00.000Z',
});

describe('vendor summaries', () => {
  it('are computed once per cached list and shared until the list is read again', async () => {
    let now = 1_000_000;
    const memory = memoryStore([record('merchant-a.example', 3), record('shop-b.example', 5)]);
    const vendors = withVendorListCache(memory.store, { clock: () => now });
    const merchants = countingMerchants();

    const first = await listVendorSummaries(vendors, merchants);
    expect(first).toEqual([
      {
        vendor: 'merchant-a.example',
        latest_product_update_by_service: '2026-01-01T00:00:00.000Z',
        product_count: 3,
        in_affiliate_network: true,
      },
      {
        vendor: 'shop-b.example',
        latest_product_update_by_service: '2026-01-01T00:00:00.000Z',
        product_count: 5,
        in_affiliate_network: false,
      },
    ]);
    for (let i = 0; i < 20; i++) expect(await listVendorSummaries(vendors, merchants)).toBe(first);
    expect(merchants.checks()).toBe(2);
    expect(memory.reads()).toBe(1);
    // Shared values are frozen: a caller cannot change what the next request gets.
    expect(Object.isFrozen(first)).toBe(true);

    // Past the list's staleness bound: read again, summarized again.
    now += VENDOR_LIST_TTL_MS + 1;
    const second = await listVendorSummaries(vendors, merchants);
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(memory.reads()).toBe(2);
    expect(merchants.checks()).toBe(4);
  });

  it('show a write through the store at once', async () => {
    const memory = memoryStore([record('shop-a.example', 1)]);
    const vendors = withVendorListCache(memory.store, { clock: () => 0 });
    const merchants = countingMerchants();
    expect(await listVendorSummaries(vendors, merchants)).toHaveLength(1);
    await vendors.recordProductSeen({ vendor: 'shop-c.example', newProduct: true, updatedAt: '2026-02-01T00:00:00Z' });
    const after = await listVendorSummaries(vendors, merchants);
    expect(after.map((s) => s.vendor)).toEqual(['shop-a.example', 'shop-c.example']);
  });

  it('are answered without waiting while the list is cached, with the same refresh ahead and bound', async () => {
    let now = 2_000_000;
    const memory = memoryStore([record('shop-a.example', 1)]);
    const vendors = withVendorListCache(memory.store, { clock: () => now });
    const merchants = countingMerchants();
    // Nothing cached yet: the waiting path must read.
    expect(knownVendorSummaries(vendors, merchants)).toBeUndefined();
    const listed = await listVendorSummaries(vendors, merchants);
    expect(knownVendorSummaries(vendors, merchants)).toBe(listed);
    expect(memory.reads()).toBe(1);
    // Second half of the period: still answered at once, the next read starts behind it.
    now += VENDOR_LIST_TTL_MS / 2;
    expect(knownVendorSummaries(vendors, merchants)).toBe(listed);
    expect(memory.reads()).toBe(2);
    // A write through the store: nothing cached until the next read.
    await vendors.recordProductSeen({ vendor: 'shop-c.example', newProduct: true, updatedAt: '2026-02-01T00:00:00Z' });
    expect(knownVendorSummaries(vendors, merchants)).toBeUndefined();
    // Past the bound without a read: never served.
    const fresh = await listVendorSummaries(vendors, merchants);
    expect(fresh.map((s) => s.vendor)).toEqual(['shop-a.example', 'shop-c.example']);
    now += VENDOR_LIST_TTL_MS + 1;
    expect(knownVendorSummaries(vendors, merchants)).toBeUndefined();
    // A store without the cache never answers without reading.
    expect(knownVendorSummaries(memory.store, merchants)).toBeUndefined();
  });

  it('are not remembered for a store without the list cache (nothing bounds their staleness)', async () => {
    const memory = memoryStore([record('shop-a.example', 1)]);
    const merchants = countingMerchants();
    await listVendorSummaries(memory.store, merchants);
    await listVendorSummaries(memory.store, merchants);
    expect(merchants.checks()).toBe(2);
  });
});

describe('vendor list kept warm', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is read again on its own for a while after its last use, then no more, within the same bound', async () => {
    vi.useFakeTimers({ now: 5_000_000 });
    const memory = memoryStore([record('shop-a.example', 1)]);
    const vendors = withVendorListCache(memory.store, { keepWarmMs: 3000, clock: () => Date.now() });
    await vendors.listAll();
    expect(memory.reads()).toBe(1);
    // No calls: the refresh still comes when due (half the period), so a caller back after
    // the period finds a fresh list and does not wait.
    await vi.advanceTimersByTimeAsync(VENDOR_LIST_TTL_MS / 2 + 1);
    expect(memory.reads()).toBe(2);
    await vi.advanceTimersByTimeAsync(VENDOR_LIST_TTL_MS);
    expect(vendors.peekAll?.()).toBeDefined();
    const atUse = memory.reads();
    // Past keepWarmMs after that last use: the reads stop.
    await vi.advanceTimersByTimeAsync(3000 + VENDOR_LIST_TTL_MS);
    const stopped = memory.reads();
    expect(stopped).toBeGreaterThan(atUse);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(memory.reads()).toBe(stopped);
    // And nothing stale is served: the next call reads.
    expect(vendors.peekAll?.()).toBeUndefined();
    await vendors.listAll();
    expect(memory.reads()).toBe(stopped + 1);
  });

  it('is off with a test clock unless asked for', async () => {
    vi.useFakeTimers({ now: 6_000_000 });
    const memory = memoryStore([record('shop-a.example', 1)]);
    const vendors = withVendorListCache(memory.store, { clock: () => Date.now() });
    await vendors.listAll();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(memory.reads()).toBe(1);
  });
});
