// The catalog change feed over the embedded DynamoDB: products stored by extractions and
// listings stored by crawls become searchable within seconds through the container's search
// (no table scan: the gsi2 feed partitions since the cursor), an extracted record wins over a
// listing of the same URL, a write stamped before the cursor still arrives, and a new process
// starts from the saved snapshot's cursor instead of the beginning. The products' feed is spread
// over several partitions and read back merged, in order and complete.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { loadConfig } from '../../lambdas/config';
import { createContainer, installContainer, type Container } from '../../lambdas/composition/container';
import { productCatalogOf } from '../../lambdas/composition/catalog';
import { searchOf } from '../../lambdas/composition/search';
import { handler as indexerHandler } from '../../lambdas/workers/search-indexer';
import { dynamoListingStore } from '../../lambdas/adapters/dynamodb/listings';
import { dynamoCatalogFeed, dynamoCatalogRecords } from '../../lambdas/adapters/dynamodb/catalog-feed';
import { dynamoProductStore } from '../../lambdas/adapters/dynamodb/products';
import { PRODUCT_FEED_PARTITIONS } from '../../lambdas/adapters/dynamodb/products-feed';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { fileSnapshotStore } from '../../lambdas/adapters/search/file-snapshot';
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { createSearchService } from '../../lambdas/domain/search/service';
import type { CatalogFeed } from '../../lambdas/ports/search-index';
import type { ExtractOptions } from '../../lambdas/domain/extraction/types';
import { SEARCH_SNAPSHOT_KEY } from '../../lambdas/composition/search';
import { catalogStores, enrichedRecord } from '../bench/_search-catalog';

let engines: Engines;
let dataDir: string;
let container: Container;

const options = {
  countryCode: 'us',
  enableEnrichment: true,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
} as ExtractOptions;

beforeAll(async () => {
  engines = await startEngines();
  dataDir = mkdtempSync(join(tmpdir(), 'pds-search-feed-'));
  container = createContainer(
    loadConfig({
      PDS_TABLE_NAME: engines.tableName,
      PDS_DYNAMODB_ENDPOINT: engines.dynamodbEndpoint,
      PDS_DATA_DIR: dataDir,
      AWS_REGION: 'us-east-1',
    }),
  );
}, 30_000);

afterAll(async () => {
  container?.dispose();
  await engines?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Searches until `found` holds or `ms` pass (the catch-up runs at most once a second). */
async function eventually<T>(run: () => Promise<T>, found: (value: T) => boolean, ms = 8_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await run();
  while (!found(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    value = await run();
  }
  return value;
}

const [store] = catalogStores(60);

describe('search catches up with the table', () => {
  it('extracted products are searchable within seconds, with their full records', async () => {
    const items = [];
    for (let i = 0; i < 40; i++) {
      const p = store.product(i);
      items.push({ url: p.url, product: await enrichedRecord(store, p) });
    }
    await productCatalogOf(container).rememberAll(items, options);
    const hoodies = items.filter((i) => /hoodie/i.test(i.product.title ?? ''));
    expect(hoodies.length).toBeGreaterThan(0);
    const result = await eventually(
      () => searchOf(container).search({ query: 'hoodie', mode: 'understand', offset: 0, limit: 50 }),
      (r) => r.total === hoodies.length,
    );
    expect(result.total).toBe(hoodies.length);
    expect(result.hits.map((h) => h.item.url).sort()).toEqual(hoodies.map((h) => h.url).sort());
    // Hits carry the stored record, not the index's projection.
    expect(result.hits[0].item.product.variants.length).toBeGreaterThan(0);
    expect(result.hits[0].item.source).toBe('extraction');

    // A product stored later appears without a restart.
    const later = store.product(50);
    await productCatalogOf(container).remember(later.url, options, {
      ...(await enrichedRecord(store, later)),
      title: 'Zeppelin Teapot',
    });
    const teapot = await eventually(
      () => searchOf(container).search({ query: 'zeppelin', mode: 'keywords', offset: 0, limit: 5 }),
      (r) => r.total === 1,
    );
    expect(teapot.hits.map((h) => h.item.url)).toEqual([later.url]);
  }, 30_000);

  it('crawled listings are searchable, and an extraction of the same URL replaces its listing', async () => {
    const listings = dynamoListingStore(container.clients.documents, engines.tableName);
    const url = 'https://listing-only.test/products/quokka-lamp';
    const now = new Date().toISOString();
    await listings.upsert(
      'listing-only.test',
      'Listing Only',
      'crawl-listing-only-test-000000000001',
      [
        {
          listing: {
            url,
            name: 'Quokka Lamp',
            images: [{ id: 'i1', url: 'https://listing-only.test/q.jpg', width: null, height: null, position: 1 }],
            price: { currency: 'USD', current_value: 42, compare_at_value: null },
          },
          order: 0,
        },
      ],
      now,
    );
    const listed = await eventually(
      () => searchOf(container).search({ query: 'quokka lamp', mode: 'understand', offset: 0, limit: 5 }),
      (r) => r.total === 1,
    );
    expect(listed.hits[0].item).toMatchObject({ source: 'listing', vendor: 'listing-only.test', url });
    expect(listed.hits[0].item.product).toMatchObject({
      title: 'Quokka Lamp',
      price: { current_value: 42 },
      description: null,
    });

    const record = {
      ...(await enrichedRecord(store, store.product(55))),
      url,
      title: 'Quokka Lamp',
      description: 'A brass desk lamp shaped like a quokka.',
    };
    await productCatalogOf(container).remember(url, options, record);
    const extracted = await eventually(
      () => searchOf(container).search({ query: 'quokka lamp', mode: 'understand', offset: 0, limit: 5 }),
      (r) => r.hits[0]?.item.source === 'extraction',
    );
    expect(extracted.total).toBe(1);
    expect(extracted.hits[0].item.product.description).toMatch(/brass desk lamp/);
  }, 30_000);

  it('a listing a re-crawl removes leaves search', async () => {
    const listings = dynamoListingStore(container.clients.documents, engines.tableName);
    const url = 'https://listing-only.test/products/wombat-mug';
    await listings.upsert(
      'listing-only.test',
      'Listing Only',
      'crawl-listing-only-test-000000000002',
      [
        {
          listing: {
            url,
            name: 'Wombat Mug',
            images: [],
            price: { currency: 'USD', current_value: 12, compare_at_value: null },
          },
          order: 1,
        },
      ],
      new Date().toISOString(),
    );
    await eventually(
      () => searchOf(container).search({ query: 'wombat', mode: 'keywords', offset: 0, limit: 5 }),
      (r) => r.total === 1,
    );
    await listings.removeListings('listing-only.test', [url]);
    const after = await eventually(
      () => searchOf(container).search({ query: 'wombat', mode: 'keywords', offset: 0, limit: 5 }),
      (r) => r.total === 0,
    );
    expect(after.total).toBe(0);
  }, 30_000);

  it('a write stamped before the cursor (landing late) is still read', async () => {
    await searchOf(container).refresh({ force: true });
    const p = store.product(51);
    // Stored with an instant a second in the past, after the last catch-up moved the cursor.
    await dynamoProductStore(container.clients.documents, engines.tableName).put({
      url: p.url,
      country: 'us',
      vendor: store.host,
      product: { ...(await enrichedRecord(store, p)), title: 'Latecomer Kettle' },
      flags: { enrichment: true, reviews: false, image_tags: false, similar_products: false },
      updated_at: new Date(Date.now() - 1_000).toISOString(),
    });
    const late = await eventually(
      () => searchOf(container).search({ query: 'latecomer kettle', mode: 'keywords', offset: 0, limit: 5 }),
      (r) => r.total === 1,
    );
    expect(late.total).toBe(1);
  }, 30_000);

  it('the feed serves the newest first from the index', async () => {
    const feed = await searchOf(container).feed({ offset: 0, limit: 3 });
    expect(feed.total).toBeGreaterThanOrEqual(43);
    const dates = feed.items.map((i) => i.updatedAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    const vendor = await searchOf(container).feed({ vendor: 'listing-only.test', offset: 0, limit: 10 });
    expect(vendor.items.map((i) => i.source)).toEqual(['extraction']);
  });

  it('a new process starts from the saved snapshot and reads only what came after', async () => {
    await searchOf(container).refresh({ force: true });
    await searchOf(container).save();
    const saved = searchOf(container).cursor();
    expect(saved).not.toBeNull();

    const reads: Array<string | null> = [];
    const real = dynamoCatalogFeed(container.clients.documents, engines.tableName);
    const counting: CatalogFeed = {
      read: (cursor, opts) => {
        reads.push(cursor);
        return real.read(cursor, opts);
      },
    };
    const next = createSearchService({
      index: createMemoryIndex(),
      feed: counting,
      records: dynamoCatalogRecords(container.clients.documents, engines.tableName),
      snapshots: fileSnapshotStore(join(dataDir, SEARCH_SNAPSHOT_KEY)),
      now: Date.now,
    });
    const result = await next.search({ query: 'hoodie', mode: 'understand', offset: 0, limit: 50 });
    expect(reads[0]).toBe(saved);
    const before = await searchOf(container).search({ query: 'hoodie', mode: 'understand', offset: 0, limit: 50 });
    expect(result.total).toBe(before.total);
    expect(result.hits.map((h) => h.item.key)).toEqual(before.hits.map((h) => h.item.key));
  }, 30_000);

  it('the indexer worker (woken by the stream on AWS) catches up and writes the snapshot a new process starts from', async () => {
    const indexerDir = mkdtempSync(join(tmpdir(), 'pds-search-indexer-'));
    const indexer = createContainer(
      loadConfig({
        PDS_TABLE_NAME: engines.tableName,
        PDS_DYNAMODB_ENDPOINT: engines.dynamodbEndpoint,
        PDS_DATA_DIR: indexerDir,
        AWS_REGION: 'us-east-1',
      }),
    );
    installContainer(indexer);
    try {
      const first = await indexerHandler({ Records: [] });
      expect(first.changed).toBeGreaterThanOrEqual(43);
      // Nothing new: nothing rewritten.
      expect((await indexerHandler({ Records: [] })).changed).toBe(0);
      const reader = createSearchService({
        index: createMemoryIndex(),
        feed: null,
        records: dynamoCatalogRecords(container.clients.documents, engines.tableName),
        snapshots: fileSnapshotStore(join(indexerDir, SEARCH_SNAPSHOT_KEY)),
        now: Date.now,
      });
      const fromSnapshot = await reader.search({ query: 'quokka lamp', mode: 'understand', offset: 0, limit: 5 });
      expect(fromSnapshot.hits.map((h) => [h.item.source, h.item.product.title])).toEqual([
        ['extraction', 'Quokka Lamp'],
      ]);
      expect(
        (await reader.search({ query: 'hoodie', mode: 'understand', offset: 0, limit: 50 })).total,
      ).toBeGreaterThan(0);
    } finally {
      installContainer(undefined);
      rmSync(indexerDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('the products feed is sharded', () => {
  const vendor = 'sharded-feed.test';
  const base = Date.parse('2020-01-01T00:00:00.000Z');
  const at = (second: number) => new Date(base + second * 1000).toISOString();

  it('records spread over several gsi2 partitions; the feed reads them merged in order, each once, across reads', async () => {
    const { documents } = container.clients;
    const template = await enrichedRecord(store, store.product(1));
    // 300 records and 120 listings, their instants interleaved (every fourth second a listing batch).
    const records = Array.from({ length: 300 }, (_, i) => ({
      url: `https://${vendor}/products/item-${i}`,
      country: 'us',
      vendor,
      product: { ...template, title: `Sharded Item ${i}` },
      flags: { enrichment: true, reviews: false, image_tags: false, similar_products: false },
      updated_at: at(i + Math.floor(i / 3)),
    }));
    await dynamoProductStore(documents, engines.tableName).putRecords(records);
    const listings = dynamoListingStore(documents, engines.tableName);
    for (let batch = 0; batch < 40; batch++) {
      const items = Array.from({ length: 3 }, (_, k) => ({
        listing: {
          url: `https://${vendor}/products/listed-${batch}-${k}`,
          name: `Listed ${batch} ${k}`,
          images: [],
          price: { currency: 'USD', current_value: 10, compare_at_value: null },
        },
        order: batch * 3 + k,
      }));
      await listings.upsert(
        vendor,
        'Sharded',
        `crawl-sharded-feed-${String(batch).padStart(20, '0')}`,
        items,
        at(batch * 10 + 2),
      );
    }

    // No one partition key holds the records.
    const perPartition = new Map<string, number>();
    for (const partition of PRODUCT_FEED_PARTITIONS) {
      const out = await documents.send(
        new QueryCommand({
          TableName: engines.tableName,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk AND begins_with(gsi2sk, :year)',
          ExpressionAttributeValues: { ':pk': partition.pk, ':year': '2020-' },
          Select: 'COUNT',
        }),
      );
      perPartition.set(partition.name, out.Count ?? 0);
    }
    expect(perPartition.get('p')).toBe(0);
    const shards = [...perPartition].filter(([name]) => name !== 'p').map(([, count]) => count);
    expect(shards.length).toBeGreaterThanOrEqual(4);
    expect(Math.min(...shards)).toBeGreaterThan(30);
    expect(shards.reduce((a, b) => a + b, 0)).toBe(300);

    // Read in small pages (each partition 50 keys a read) with the cursor a year past these writes.
    const feed = dynamoCatalogFeed(documents, engines.tableName, () => Date.parse('2021-01-01T00:00:00.000Z'));
    const seen: Array<{ url: string; updatedAt: string; source: string }> = [];
    let cursor: string | null = null;
    let reads = 0;
    while (reads < 60) {
      reads++;
      const read = await feed.read(cursor, { limit: 20 });
      for (const change of read.changes)
        if (change.vendor === vendor)
          seen.push({ url: change.url, updatedAt: change.updatedAt, source: change.source });
      cursor = read.cursor;
      if (!read.more) break;
    }
    expect(reads).toBeGreaterThan(1);
    expect(reads).toBeLessThan(60);
    const instants = seen.map((change) => change.updatedAt);
    expect(instants).toEqual([...instants].sort());
    expect(new Set(seen.map((change) => change.url)).size).toBe(seen.length);
    expect(seen.filter((change) => change.source === 'extraction')).toHaveLength(300);
    expect(seen.filter((change) => change.source === 'listing')).toHaveLength(120);
  }, 30_000);

  it('the all-vendor list merges the shards newest first, paged without a gap or a repeat', async () => {
    const catalog = dynamoProductStore(container.clients.documents, engines.tableName);
    const all = await catalog.listUpdated({ offset: 0, limit: 1000 });
    expect(all.total).toBe(all.items.length);
    expect(all.items.filter((item) => item.vendor === vendor)).toHaveLength(300);
    const instants = all.items.map((item) => item.updated_at);
    expect(instants).toEqual([...instants].sort().reverse());
    const paged = [];
    for (let offset = 0; offset < all.total; offset += 90)
      paged.push(...(await catalog.listUpdated({ offset, limit: 90 })).items);
    expect(paged.map((item) => `${item.url} ${item.country}`)).toEqual(
      all.items.map((item) => `${item.url} ${item.country}`),
    );
  }, 30_000);
});
