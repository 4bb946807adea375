// The search engine over a catalog from the store simulator's generator: exact filters, ranking
// order, incremental indexing (replace, remove, extraction over listing, newest record), the
// feed, and snapshots that a new process loads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { fileSnapshotStore } from '../../lambdas/adapters/search/file-snapshot';
import { createSearchService, type SearchService } from '../../lambdas/domain/search/service';
import { listingAsProduct } from '../../lambdas/domain/search/document';
import { colourFamily } from '../../lambdas/domain/enrichment';
import type { CatalogChange } from '../../lambdas/ports/search-index';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';
import type { SearchRequest } from '../../lambdas/domain/search/api';
import {
  buildCatalog,
  recordsOf,
  simToRecord,
  catalogStores,
  type StoredChange,
  type Truth,
} from '../bench/_search-catalog';
import { rng } from '../stores';

let changes: StoredChange[];
let truths: Map<string, Truth>;
let search: SearchService;

const request = (query: string, extra: Partial<SearchRequest> = {}): SearchRequest => ({
  query,
  mode: 'understand',
  offset: 0,
  limit: 20,
  ...extra,
});

beforeAll(async () => {
  const built = await buildCatalog(40);
  changes = built.changes;
  truths = new Map(built.truths.map((t) => [t.url, t]));
  search = createSearchService({
    index: createMemoryIndex(),
    feed: null,
    records: recordsOf(changes),
    snapshots: null,
    now: Date.now,
  });
  await search.ingest(changes);
});

async function familiesOf(colours: string[]) {
  return Promise.all(colours.map((c) => colourFamily(c)));
}

describe('request filters are exact', () => {
  it('every hit of 60 random filter combinations satisfies every filter, and totals count them all', async () => {
    const random = rng('search-filters');
    const brands = ['Northwind', 'Acme Goods', 'Bluefin', 'Oak & Ash', 'Kestrel', 'Lumen'];
    const words = ['hoodie', 'mug', 'tee', 'sneakers', 'lamp', 'headphones', '', 'cotton', 'classic'];
    let checked = 0;
    for (let round = 0; round < 60; round++) {
      const filters: NonNullable<SearchRequest['filters']> = {};
      if (random() < 0.5) filters.minPrice = Math.floor(random() * 60);
      if (random() < 0.5) filters.maxPrice = (filters.minPrice ?? 0) + Math.floor(random() * 150);
      if (random() < 0.4) filters.isAvailable = random() < 0.7;
      if (random() < 0.4) filters.brands = [brands[Math.floor(random() * brands.length)].toUpperCase()];
      if (random() < 0.4) filters.attributes = { color: [['navy', 'Red', 'olive', 'blue'][Math.floor(random() * 4)]] };
      if (random() < 0.2) filters.vendor = 'jsonld-shop.test';
      const query = words[Math.floor(random() * words.length)];
      for (const mode of ['understand', 'keywords'] as const) {
        const result = await search.search(request(query, { mode, filters, limit: 100 }));
        expect(result.total).toBeGreaterThanOrEqual(result.hits.length);
        if (result.total <= 100) expect(result.hits.length).toBe(result.total);
        for (const { item } of result.hits) {
          const truth = truths.get(item.url)!;
          if (filters.minPrice !== undefined) expect(truth.price).toBeGreaterThanOrEqual(filters.minPrice);
          if (filters.maxPrice !== undefined) expect(truth.price).toBeLessThanOrEqual(filters.maxPrice);
          if (filters.isAvailable !== undefined) expect(truth.available).toBe(filters.isAvailable);
          if (filters.brands) expect(truth.brand.toUpperCase()).toBe(filters.brands[0]);
          if (filters.vendor) expect(item.vendor).toBe(filters.vendor);
          if (filters.attributes) {
            const wanted = filters.attributes.color[0].toLowerCase();
            const labels = truth.colours.map((c) => c.toLowerCase());
            expect([...labels, ...(await familiesOf(truth.colours))]).toContain(wanted);
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('query constraints and request filters combine: both hold', async () => {
    const result = await search.search(request('hoodie under 70', { filters: { minPrice: 50 }, limit: 100 }));
    expect(result.total).toBeGreaterThan(0);
    for (const { item } of result.hits) {
      const truth = truths.get(item.url)!;
      expect(truth.type).toBe('Hoodies');
      expect(truth.price).toBeGreaterThanOrEqual(50);
      expect(truth.price).toBeLessThanOrEqual(70);
    }
    const none = await search.search(request('Northwind mug', { filters: { brands: ['Lumen'] } }));
    expect(none.total).toBe(0);
  });
});

describe('understood constraints', () => {
  it('negated colours, stated brands, stock and price hold for every hit', async () => {
    const result = await search.search(request('Kestrel tee not black in stock under 40', { limit: 100 }));
    expect(result.total).toBeGreaterThan(0);
    for (const { item } of result.hits) {
      const truth = truths.get(item.url)!;
      expect(truth).toMatchObject({ brand: 'Kestrel', type: 'T-Shirts', available: true });
      expect(truth.price).toBeLessThanOrEqual(40);
      expect(truth.colours[0]).not.toBe('Black');
    }
  });

  it('a colour asked for ranks products in that colour first', async () => {
    const result = await search.search(request('navy hoodie', { limit: 10 }));
    const top = result.hits.map((h) => truths.get(h.item.url)!);
    expect(top.every((t) => t.type === 'Hoodies' && t.colours.includes('Navy'))).toBe(true);
    // Keyword mode sees no colour in the titles: its order ignores it.
    const plain = await search.search(request('navy hoodie', { mode: 'keywords', limit: 10 }));
    expect(plain.understood.colours).toEqual([]);
  });

  it('synonyms and typos find the same products', async () => {
    const sneakers = await search.search(request('sneakers', { limit: 5 }));
    const trainers = await search.search(request('trainers', { limit: 5 }));
    const typo = await search.search(request('sneekers', { limit: 5 }));
    expect(trainers.total).toBe(sneakers.total);
    expect(typo.total).toBe(sneakers.total);
    const cups = await search.search(request('cup', { limit: 50 }));
    expect(cups.total).toBeGreaterThan(0);
    expect(cups.hits.every((h) => truths.get(h.item.url)!.type === 'Mugs')).toBe(true);
    // Keyword mode has no synonyms: no product says "cup".
    expect((await search.search(request('cup', { mode: 'keywords' }))).total).toBe(0);
  });

  it('pages never overlap and add up to the total', async () => {
    const all = await search.search(request('mug', { limit: 100 }));
    const seen = new Set<string>();
    for (let offset = 0; offset < all.total; offset += 7) {
      const page = await search.search(request('mug', { offset, limit: 7 }));
      for (const hit of page.hits) {
        expect(seen.has(hit.item.key)).toBe(false);
        seen.add(hit.item.key);
      }
    }
    expect(seen.size).toBe(all.total);
    expect([...seen]).toEqual(all.hits.map((h) => h.item.key).slice(0, seen.size));
  });
});

function product(overrides: Partial<ProductRecord>): ProductRecord {
  const [store] = catalogStores(1);
  return { ...simToRecord(store, store.product(0)), options: [], variants: [], tags: [], ...overrides };
}

const change = (url: string, p: Partial<ProductRecord>, extra: Partial<CatalogChange> = {}): CatalogChange => ({
  source: 'extraction',
  url,
  vendor: 'shop.test',
  updatedAt: '2026-02-01T00:00:00.000Z',
  country: 'us',
  product: product({ url, ...p }),
  ...extra,
});

function freshService(seed: CatalogChange[] = []) {
  const records = new Map<string, CatalogChange>();
  const service = createSearchService({
    index: createMemoryIndex(),
    feed: null,
    records: {
      get: async (ref) =>
        records.get(ref.url)?.product
          ? { product: records.get(ref.url)!.product!, updatedAt: records.get(ref.url)!.updatedAt }
          : null,
    },
    snapshots: null,
    now: Date.now,
  });
  const ingest = async (list: CatalogChange[]) => {
    for (const c of list)
      if (c.source === 'extraction' && (!records.has(c.url) || records.get(c.url)!.updatedAt <= c.updatedAt))
        records.set(c.url, c);
    return service.ingest(list);
  };
  return { service, ingest, ready: ingest(seed) };
}

describe('ranking order', () => {
  it('a title match outranks a description-only match, and brand/category fields count above description', async () => {
    const { service, ingest } = freshService();
    await ingest([
      change('https://shop.test/a', {
        title: 'Plain Cotton Shirt',
        description: 'Goes well with a linen blazer.',
        brand: 'Acme',
      }),
      change('https://shop.test/b', { title: 'Linen Blazer', description: 'A summer jacket.', brand: 'Acme' }),
      change('https://shop.test/c', { title: 'Summer Jacket', description: 'Light.', brand: 'Linen House' }),
    ]);
    const hits = (await service.search(request('linen', { mode: 'keywords' }))).hits.map((h) => h.item.url);
    expect(hits).toEqual(['https://shop.test/b', 'https://shop.test/c', 'https://shop.test/a']);
  });

  it('availability and complete data break ties; gender and category boost', async () => {
    const { service, ingest } = freshService();
    await ingest([
      change('https://shop.test/out', { title: 'Trail Runner', is_available: false }),
      change('https://shop.test/in', { title: 'Trail Runner', is_available: true }),
      change('https://shop.test/sparse', { title: 'Trail Runner', is_available: true, images: [], description: null }),
      change('https://shop.test/women', { title: 'Trail Runner', is_available: true, attributes: { gender: 'women' } }),
    ]);
    const order = (await service.search(request('runner', { limit: 10 }))).hits.map((h) => h.item.url);
    expect(order.indexOf('https://shop.test/in')).toBeLessThan(order.indexOf('https://shop.test/out'));
    expect(order.indexOf('https://shop.test/in')).toBeLessThan(order.indexOf('https://shop.test/sparse'));
    const women = (await service.search(request("women's runner", { limit: 10 }))).hits.map((h) => h.item.url);
    expect(women[0]).toBe('https://shop.test/women');
    const men = (await service.search(request("men's runner", { limit: 10 }))).hits.map((h) => h.item.url);
    expect(men).not.toContain('https://shop.test/women');
  });

  it('a brand name that is mostly a word here boosts its brand but filters nothing; a real brand filters', async () => {
    const { service, ingest } = freshService();
    await ingest([
      change('https://shop.test/a1', { title: 'Apple Corer', brand: 'Kitchenly' }),
      change('https://shop.test/a2', { title: 'Apple Slicer', brand: 'Kitchenly' }),
      change('https://shop.test/a3', { title: 'Apple Peeler', brand: 'Kitchenly' }),
      change('https://shop.test/a4', { title: 'Slicer', brand: 'Apple' }),
      change('https://shop.test/k1', { title: 'Garlic Press', brand: 'Kitchenly' }),
    ]);
    const apple = await service.search(request('apple slicer'));
    expect(apple.understood.brands).toEqual([]);
    expect(apple.hits.map((h) => h.item.url).sort()).toEqual(['https://shop.test/a2', 'https://shop.test/a4']);
    const kitchenly = await service.search(request('kitchenly slicer'));
    expect(kitchenly.understood.brands).toEqual(['kitchenly']);
    expect(kitchenly.hits.map((h) => h.item.url)).toEqual(['https://shop.test/a2']);
  });

  it('"wine glasses" finds wine glasses before red glasses', async () => {
    const { service, ingest } = freshService();
    await ingest([
      change('https://shop.test/g1', {
        title: 'Reading Glasses',
        attributes: { color: { iscc_family: 'red', merchant_label: 'Red' } },
      }),
      change('https://shop.test/g2', { title: 'Crystal Wine Glasses, Set of 4' }),
      change('https://shop.test/g3', { title: 'Sun Glasses' }),
    ]);
    const hits = (await service.search(request('wine glasses'))).hits.map((h) => h.item.url);
    expect(hits[0]).toBe('https://shop.test/g2');
    expect(hits).toHaveLength(3);
  });

  it('a negated phrase drops products that have all of it, not those with one of its words', async () => {
    const { service, ingest } = freshService();
    await ingest([
      change('https://shop.test/b1', { title: 'Weighted Blanket with Glass Beads' }),
      change('https://shop.test/b2', { title: 'Weighted Blanket with Plastic Pellets' }),
      change('https://shop.test/b3', { title: 'Weighted Blanket, Glass Free', description: 'No beads.' }),
    ]);
    const result = await service.search(request('weighted blanket without glass beads'));
    expect(result.hits.map((h) => h.item.url).sort()).toEqual(['https://shop.test/b2', 'https://shop.test/b3']);
    const avoid = await service.search(request('weighted blanket', { profile: { avoid: ['plastic pellets'] } }));
    expect(avoid.hits.map((h) => h.item.url).sort()).toEqual(['https://shop.test/b1', 'https://shop.test/b3']);
  });

  it('a profile: in_stock_only and avoid are hard rules, colours and activities boost', async () => {
    const { service, ingest } = freshService();
    await ingest([
      change('https://shop.test/1', {
        title: 'Wool Jacket',
        is_available: true,
        attributes: { color: { iscc_family: 'black', merchant_label: 'Black' } },
      }),
      change('https://shop.test/2', {
        title: 'Leather Jacket',
        is_available: true,
        attributes: { color: { iscc_family: 'brown', merchant_label: 'Tan' } },
      }),
      change('https://shop.test/3', {
        title: 'Rain Jacket for hiking',
        is_available: true,
        attributes: { color: { iscc_family: 'green', merchant_label: 'Green' } },
      }),
      change('https://shop.test/4', {
        title: 'Down Jacket',
        is_available: false,
        attributes: { color: { iscc_family: 'green', merchant_label: 'Green' } },
      }),
    ]);
    const result = await service.search(
      request('jacket', {
        profile: { inStockOnly: true, avoid: ['leather', 'black'], colours: ['green'], activities: ['hiking'] },
      }),
    );
    expect(result.hits.map((h) => h.item.url)).toEqual(['https://shop.test/3']);
  });
});

describe('incremental indexing', () => {
  it('replaces a product, removes nothing else, and the newest record wins across countries', async () => {
    const { service, ingest } = freshService([
      change('https://shop.test/x', { title: 'Blue Vase' }),
      change('https://shop.test/y', { title: 'Green Vase' }),
    ]);
    await ingest([]);
    expect((await service.search(request('vase'))).total).toBe(2);
    await ingest([change('https://shop.test/x', { title: 'Blue Bowl' }, { updatedAt: '2026-02-02T00:00:00.000Z' })]);
    expect((await service.search(request('vase'))).hits.map((h) => h.item.url)).toEqual(['https://shop.test/y']);
    expect((await service.search(request('bowl'))).hits.map((h) => h.item.product.title)).toEqual(['Blue Bowl']);
    // An older record (another country, stored earlier) does not replace a newer one.
    await ingest([
      change('https://shop.test/x', { title: 'Blue Vase' }, { updatedAt: '2026-01-15T00:00:00.000Z', country: 'de' }),
    ]);
    expect((await service.search(request('bowl'))).total).toBe(1);
  });

  it('an extracted record wins over a listing of the same URL, whichever arrives first', async () => {
    const listing = (url: string, name: string): CatalogChange => ({
      source: 'listing',
      url,
      vendor: 'shop.test',
      updatedAt: '2026-03-01T00:00:00.000Z',
      country: null,
      product: listingAsProduct({
        id: 'l1',
        url,
        name,
        images: [],
        price: { currency: 'USD', current_value: 10, compare_at_value: null },
        vendor: 'Shop',
        last_updated_by_service: '2026-03-01T00:00:00.000+00:00',
      }),
    });
    const { service, ingest } = freshService();
    await ingest([listing('https://shop.test/p', 'Teapot listing')]);
    expect((await service.search(request('teapot'))).hits[0].item.source).toBe('listing');
    await ingest([change('https://www.shop.test/p/', { title: 'Teapot', description: 'Cast iron teapot.' })]);
    let hits = (await service.search(request('teapot'))).hits;
    expect(hits.map((h) => h.item.source)).toEqual(['extraction']);
    await ingest([listing('https://shop.test/p', 'Teapot listing renamed')]);
    hits = (await service.search(request('teapot'))).hits;
    expect(hits.map((h) => [h.item.source, h.item.product.title])).toEqual([['extraction', 'Teapot']]);
  });

  it('a removed listing leaves search; a removal never drops an extracted record or a newer listing', async () => {
    const listing = (url: string, name: string, at: string): CatalogChange => ({
      source: 'listing',
      url,
      vendor: 'shop.test',
      updatedAt: at,
      country: null,
      product: listingAsProduct({
        id: url,
        url,
        name,
        images: [],
        price: { currency: 'USD', current_value: 5, compare_at_value: null },
        vendor: 'Shop',
        last_updated_by_service: at,
      }),
    });
    const gone = (url: string, at: string): CatalogChange => ({
      source: 'listing',
      url,
      vendor: 'shop.test',
      updatedAt: at,
      country: null,
      product: null,
      removed: true,
    });
    const { service, ingest } = freshService();
    await ingest([
      listing('https://shop.test/kite-a', 'Red Kite', '2026-03-01T00:00:00.000Z'),
      listing('https://shop.test/kite-b', 'Blue Kite', '2026-03-01T00:00:00.000Z'),
      change('https://shop.test/kite-c', { title: 'Green Kite' }),
    ]);
    expect((await service.search(request('kite'))).total).toBe(3);
    await ingest([
      gone('https://shop.test/kite-a', '2026-03-02T00:00:00.000Z'),
      gone('https://shop.test/kite-c', '2026-03-02T00:00:00.000Z'),
    ]);
    expect((await service.search(request('kite'))).hits.map((h) => h.item.product.title).sort()).toEqual([
      'Blue Kite',
      'Green Kite',
    ]);
    // Found again later: back in search. A stale removal (older than the listing) changes nothing.
    await ingest([
      listing('https://shop.test/kite-a', 'Red Kite', '2026-03-03T00:00:00.000Z'),
      gone('https://shop.test/kite-a', '2026-03-02T12:00:00.000Z'),
    ]);
    expect((await service.search(request('kite'))).total).toBe(3);
    // Listing then its removal in one batch, in feed order: gone.
    await ingest([
      listing('https://shop.test/kite-d', 'Yellow Kite', '2026-03-04T00:00:00.000Z'),
      gone('https://shop.test/kite-d', '2026-03-04T00:00:01.000Z'),
    ]);
    expect((await service.search(request('yellow kite'))).hits.map((h) => h.item.url)).not.toContain(
      'https://shop.test/kite-d',
    );
  });

  it('compacts tombstones without losing live documents', () => {
    const index = createMemoryIndex();
    const docs = changes.slice(0, 300);
    return (async () => {
      const { toSearchDocument } = await import('../../lambdas/domain/search/document');
      const built = await Promise.all(docs.map(toSearchDocument));
      index.upsert(built);
      for (let round = 0; round < 6; round++)
        index.upsert(built.map((d) => ({ ...d, updatedAt: `2027-01-0${round + 1}T00:00:00.000Z` })));
      expect(index.size()).toBe(300);
      expect(index.stats().tombstones).toBeLessThan(1024 + 300);
      const hits = index.search({
        groups: [{ variants: [{ term: 'mug', weight: 1 }], maxTypos: 0 }],
        relax: false,
        filter: {},
        boosts: null,
        offset: 0,
        limit: 1000,
      });
      expect(hits.total).toBe(built.filter((d) => /mug/i.test(d.text.title)).length);
    })();
  });
});

describe('feed', () => {
  it('most recently updated first, by vendor and since a date, paged', async () => {
    const all = await search.feed({ offset: 0, limit: 100 });
    expect(all.total).toBe(changes.length);
    const dates = all.items.map((i) => i.updatedAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    const vendor = await search.feed({ vendor: 'woo-home.test', offset: 0, limit: 100 });
    expect(vendor.total).toBe(40);
    expect(vendor.items.every((i) => i.vendor === 'woo-home.test')).toBe(true);
    const since = changes[changes.length - 10].updatedAt;
    const recent = await search.feed({ updatedSince: since, offset: 5, limit: 100 });
    expect(recent.total).toBe(10);
    expect(recent.items).toHaveLength(5);
  });
});

describe('snapshots', () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'pds-search-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a new process loads the saved index and answers the same', async () => {
    const store = fileSnapshotStore(join(dir, 'search', 'index.json.gz'));
    const first = createSearchService({
      index: createMemoryIndex(),
      feed: null,
      records: recordsOf(changes),
      snapshots: store,
      now: Date.now,
      saveEveryMs: 0,
    });
    await first.ingest(changes.slice(0, 200));
    // Replaced documents leave tombstones: the snapshot carries only the live ones.
    await first.ingest(
      changes.slice(0, 20).map((c) => ({
        ...c,
        updatedAt: '2027-01-01T00:00:00.000Z',
        product: { ...c.product, title: `${c.product.title} Reissue` },
      })),
    );
    await first.save();
    const second = createSearchService({
      index: createMemoryIndex(),
      feed: null,
      records: recordsOf(changes),
      snapshots: store,
      now: Date.now,
    });
    expect((await second.search(request('reissue', { limit: 50 }))).total).toBe(20);
    for (const query of ['navy hoodie under 60', 'Northwind mug', 'lamp', 'reissue tee', 'sneekers']) {
      const a = await first.search(request(query));
      const b = await second.search(request(query));
      expect(b.total).toBe(a.total);
      expect(b.hits.map((h) => h.item.key)).toEqual(a.hits.map((h) => h.item.key));
    }
  });

  it('a damaged snapshot is ignored, not fatal', async () => {
    const path = join(dir, 'broken.json.gz');
    writeFileSync(path, 'not gzip');
    const lines: string[] = [];
    const service = createSearchService({
      index: createMemoryIndex(),
      feed: null,
      records: recordsOf(changes),
      snapshots: fileSnapshotStore(path),
      now: Date.now,
      log: (l) => lines.push(l),
    });
    expect((await service.search(request('mug'))).total).toBe(0);
    expect(lines.join()).toMatch(/snapshot unreadable/);
  });
});
