// The extract worker's product records: written while the batch still extracts (every 100 at
// once as they come, the rest at close), distinct instants in the order added, new
// products decided by the first-seen marks read, vendors told in the order batches were opened.
import { describe, expect, it } from 'vitest';
import { createProductCatalog } from '../../lambdas/domain/products/catalog';
import type { BatchProductStore, StoredProduct } from '../../lambdas/ports/products';
import type { VendorStore } from '../../lambdas/ports/vendors';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';
import { PLAIN_OPTIONS } from '../fakes/extract-options';

const OPTIONS = PLAIN_OPTIONS;
const product = (url: string) => ({ url, title: url }) as unknown as ProductRecord;

function memoryStore(options: { failWrite?: number } = {}) {
  const writes: StoredProduct[][] = [];
  const marks: string[] = [];
  const store = {
    async putRecords(records: StoredProduct[]) {
      writes.push(records);
      if (writes.length === options.failWrite) throw new Error('table unavailable');
    },
    async markFirstSeen(list: ReadonlyArray<{ url: string }>) {
      marks.push(...list.map((m) => m.url));
    },
    async listUpdated() {
      return { items: [], total: 0 };
    },
  } as unknown as BatchProductStore;
  return { store, writes, marks };
}

function memoryVendors() {
  const told: Array<{ vendor: string; newProducts: number; updatedAt: string }> = [];
  const vendors = {
    async recordProductsSeen(event: { vendor: string; newProducts: number; updatedAt: string }) {
      told.push({ vendor: event.vendor, newProducts: event.newProducts, updatedAt: event.updatedAt });
    },
  } as unknown as VendorStore;
  return { vendors, told };
}

describe('extract batch records', () => {
  it('writes every 100 records as they are added and the rest at close, with distinct instants in order', async () => {
    const { store, writes, marks } = memoryStore();
    const { vendors, told } = memoryVendors();
    const catalog = createProductCatalog({ store, vendors, now: () => new Date('2026-01-01T00:00:00.000Z') });
    const recorder = catalog.openBatch(240, OPTIONS);
    const urls = Array.from({ length: 230 }, (_, i) => `https://a-shop.test/p/${i}`);
    for (const url of urls.slice(0, 100)) recorder.add({ url, product: product(url) });
    // The first 100 are on their way before the batch has finished extracting.
    expect(writes.map((w) => w.length)).toEqual([100]);
    for (const url of urls.slice(100)) recorder.add({ url, product: product(url) });
    expect(writes.map((w) => w.length)).toEqual([100, 100]);
    const stored = await recorder.close(new Set([urls[1]]));
    expect(writes.map((w) => w.length)).toEqual([100, 100, 30]);
    const instants = writes.flat().map((r) => r.updated_at);
    expect(instants).toEqual(urls.map((_, i) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i).toISOString()));
    expect(stored.products.filter((p) => !p.isNew).map((p) => p.url)).toEqual([urls[1]]);
    await stored.publish(true);
    expect(marks).toHaveLength(229);
    expect(told).toEqual([{ vendor: 'a-shop.test', newProducts: 229, updatedAt: instants[229] }]);
  });

  it('never takes more records than it reserved, fails close when a write failed, and frees the next batch', async () => {
    const { store } = memoryStore({ failWrite: 1 });
    const { vendors, told } = memoryVendors();
    const catalog = createProductCatalog({ store, vendors, now: () => new Date('2026-01-01T00:00:00.000Z') });
    const first = catalog.openBatch(1, OPTIONS);
    const second = catalog.openBatch(1, OPTIONS);
    first.add({ url: 'https://a-shop.test/1', product: product('https://a-shop.test/1') });
    expect(() => first.add({ url: 'https://a-shop.test/2', product: product('https://a-shop.test/2') })).toThrow(
      /opened for 1 records/,
    );
    await expect(first.close(new Set())).rejects.toThrow('table unavailable');
    // The failed batch ended its turn: the next one tells its vendor instead of waiting for ever.
    second.add({ url: 'https://b-shop.test/1', product: product('https://b-shop.test/1') });
    await (await second.close(new Set())).publish(true);
    expect(told.map((t) => t.vendor)).toEqual(['b-shop.test']);
  });
});
