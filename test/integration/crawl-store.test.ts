// The listing store and the end of a crawl on the embedded DynamoDB: one item per vendor + URL
// however often (and however concurrently) a page is written, first_seen kept and last_updated
// moved only on change, the removal by a complete re-crawl, the exact max_listings cut, paging
// across anchors equal to the URL-ordered list, collection totals, and a batch counted once when
// delivered twice. (A crawl past its deadline: execution-reaper.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { loadConfig } from '../../lambdas/config';
import { createContainer, type Container } from '../../lambdas/composition/container';
import { crawlOf } from '../../lambdas/composition/crawl';
import { crawlStepsOf } from '../../lambdas/composition/crawl-steps';
import { executionsOf } from '../../lambdas/composition/executions';
import type { CrawlPlan, FoundListing } from '../../lambdas/domain/crawl/model';

let engines: Engines;
let deps: Container;
let clock = Date.parse('2026-01-01T00:00:00.000Z');

beforeAll(async () => {
  engines = await startEngines();
  const config = loadConfig({
    PDS_TABLE_NAME: engines.tableName,
    PDS_DYNAMODB_ENDPOINT: engines.dynamodbEndpoint,
    PDS_SQS_ENDPOINT: engines.sqsEndpoint,
    AWS_REGION: 'us-east-1',
  });
  deps = createContainer(config, { clock: { now: () => new Date(clock) } });
}, 60_000);

afterAll(async () => {
  deps?.dispose();
  await engines?.stop();
});

const listing = (vendor: string, i: number, price = 10 + i): FoundListing => ({
  url: `https://${vendor}/products/p-${String(i).padStart(4, '0')}`,
  name: `Product ${i}`,
  images: [{ id: `img-${i}`, url: `https://${vendor}/cdn/${i}.png`, width: 800, height: 600, position: 1 }],
  price: { currency: 'USD', current_value: price, compare_at_value: null },
});
const tick = (ms = 1000) => (clock += ms);
const iso = () => new Date(clock).toISOString();
/** A Shopify crawl's plan in its first wave, before any sequence is known. */
const shopifyPlan = (crawlId: string, vendor: string, displayName: string): CrawlPlan => ({
  crawlId,
  vendor,
  displayName,
  origin: `https://${vendor}`,
  method: 'shopify-json',
  fallbacks: [],
  currency: 'USD',
  maxListings: null,
  countryCode: 'us',
  collections: [],
  sequences: [],
  wave: 1,
  collectionSitemaps: [],
  productSitemaps: [],
  incomplete: false,
});

async function allUrls(vendor: string, pageSize: number, collection?: string): Promise<string[]> {
  const urls: string[] = [];
  for (let page = 1; page <= 1000; page++) {
    const got = await crawlOf(deps).catalog.listings({
      vendor,
      page,
      pageSize,
      collectionUrls: collection ? [collection] : undefined,
    });
    urls.push(...got.items.map((l) => l.url));
    if (!got.pagination.has_next) break;
  }
  return urls;
}

describe('listing store', () => {
  it('writes one item per vendor + URL however often and concurrently a page is delivered', async () => {
    const vendor = 'idem.test';
    const items = Array.from({ length: 60 }, (_, i) => ({ listing: listing(vendor, i), order: i }));
    const results = await Promise.all(
      [1, 2, 3].map(() => crawlOf(deps).store.upsert(vendor, 'Idem', 'crawl-idem-test-000000000001', items, iso())),
    );
    expect(results.every((r) => r.created === 60 || r.created < 60)).toBe(true);
    const rebuilt = await crawlOf(deps).catalog.rebuild({
      vendor,
      displayName: 'Idem',
      crawlId: 'crawl-idem-test-000000000001',
      complete: true,
      maxListings: null,
    });
    expect(rebuilt.listings_total).toBe(60);
    const urls = await allUrls(vendor, 7);
    expect(urls.length).toBe(60);
    expect(new Set(urls).size).toBe(60);
  });

  it("a vendor's first crawl delivered twice: the later delivery keeps what the first wrote (first_seen, last_updated)", async () => {
    const vendor = 'twice.test';
    const crawlId = 'crawl-twice-test-000000000001';
    const items = Array.from({ length: 30 }, (_, i) => ({ listing: listing(vendor, i), order: i }));
    await crawlOf(deps).store.upsert(vendor, 'Twice', crawlId, items, iso(), { firstCrawl: true });
    await crawlOf(deps).catalog.rebuild({ vendor, displayName: 'Twice', crawlId, complete: true, maxListings: null });
    const first = (await crawlOf(deps).catalog.listings({ vendor, page: 1, pageSize: 100 })).items;
    tick(5_000);
    // SQS delivers the batch again, and this delivery ends after the first (and the crawl) did.
    await crawlOf(deps).store.upsert(vendor, 'Twice', crawlId, items, iso(), { firstCrawl: true });
    const again = new Map(
      (await crawlOf(deps).catalog.listings({ vendor, page: 1, pageSize: 100 })).items.map((l) => [l.url, l]),
    );
    expect(first).toHaveLength(30);
    for (const l of first) {
      expect(again.get(l.url)!.first_seen_by_service, l.url).toBe(l.first_seen_by_service);
      expect(again.get(l.url)!.last_updated_by_service, l.url).toBe(l.last_updated_by_service);
    }
  });

  it('keeps first_seen, moves last_updated only on change, removes what a complete re-crawl did not find', async () => {
    const vendor = 'recrawl.test';
    const first = Array.from({ length: 250 }, (_, i) => ({ listing: listing(vendor, i), order: i }));
    await crawlOf(deps).store.upsert(vendor, 'Recrawl', 'crawl-recrawl-test-000000000001', first, iso());
    await crawlOf(deps).catalog.rebuild({
      vendor,
      displayName: 'Recrawl',
      crawlId: 'crawl-recrawl-test-000000000001',
      complete: true,
      maxListings: null,
    });
    const before = new Map(
      (await crawlOf(deps).catalog.listings({ vendor, page: 1, pageSize: 100 })).items.map((l) => [l.url, l]),
    );
    tick(60_000);
    // Second crawl: product 0 gone, product 1 repriced, the rest unchanged.
    const second = first
      .filter((x) => x.listing.url !== listing(vendor, 0).url)
      .map((x) => (x.listing.url === listing(vendor, 1).url ? { ...x, listing: listing(vendor, 1, 99) } : x));
    await crawlOf(deps).store.upsert(vendor, 'Recrawl', 'crawl-recrawl-test-000000000002', second, iso());
    const result = await crawlOf(deps).catalog.rebuild({
      vendor,
      displayName: 'Recrawl',
      crawlId: 'crawl-recrawl-test-000000000002',
      complete: true,
      maxListings: null,
    });
    expect(result).toMatchObject({ listings_total: 249, listings_found: 249, removed: 1, created: 0 });
    const after = await crawlOf(deps).catalog.listings({ vendor, page: 1, pageSize: 100 });
    expect(after.pagination.total_items).toBe(249);
    const repriced = after.items.find((l) => l.url === listing(vendor, 1).url)!;
    expect(repriced.price.current_value).toBe(99);
    expect(repriced.first_seen_by_service).toBe(before.get(repriced.url)!.first_seen_by_service);
    expect(repriced.last_updated_by_service > before.get(repriced.url)!.last_updated_by_service).toBe(true);
    const same = after.items.find((l) => l.url === listing(vendor, 2).url)!;
    expect(same.last_updated_by_service).toBe(before.get(same.url)!.last_updated_by_service);
    expect(same.first_seen_by_service).toMatch(/\+00:00$/);
  });

  it('pages across anchors exactly like slicing the URL-ordered list (page sizes 1, 7, 100)', async () => {
    const vendor = 'paging.test';
    const items = Array.from({ length: 333 }, (_, i) => ({ listing: listing(vendor, (i * 38) % 333), order: i }));
    await crawlOf(deps).store.upsert(vendor, 'Paging', 'crawl-paging-test-000000000001', items, iso());
    await crawlOf(deps).catalog.rebuild({
      vendor,
      displayName: 'Paging',
      crawlId: 'crawl-paging-test-000000000001',
      complete: true,
      maxListings: null,
    });
    const sorted = items.map((x) => x.listing.url).sort();
    expect(await allUrls(vendor, 100)).toEqual(sorted);
    expect(await allUrls(vendor, 7)).toEqual(sorted);
    for (const page of [1, 100, 101, 200, 333]) {
      const got = await crawlOf(deps).catalog.listings({ vendor, page, pageSize: 1 });
      expect(got.items.map((l) => l.url)).toEqual([sorted[page - 1]]);
    }
    expect((await crawlOf(deps).catalog.listings({ vendor, page: 334, pageSize: 1 })).items).toEqual([]);
  });

  it('cuts to max_listings exactly by discovery order, and collections count only listed members', async () => {
    const vendor = 'maxcut.test';
    const crawlId = 'crawl-maxcut-test-000000000001';
    const items = Array.from({ length: 40 }, (_, i) => ({ listing: listing(vendor, i), order: 1000 - i }));
    await crawlOf(deps).store.upsert(vendor, 'Max', crawlId, items, iso());
    await crawlOf(deps).store.putCollections(vendor, [
      {
        key: `${vendor}/collections/all`,
        id: 'c1',
        url: `https://${vendor}/collections/all`,
        title: 'All',
        statedCount: 40,
        products_total: 0,
        last_updated_by_service: iso(),
        crawl: crawlId,
      },
    ]);
    await crawlOf(deps).store.putMemberPage(
      crawlId,
      `${vendor}/collections/all`,
      'c0',
      1,
      items.map((x) => x.listing.url),
    );
    const result = await crawlOf(deps).catalog.rebuild({
      vendor,
      displayName: 'Max',
      crawlId,
      complete: false,
      maxListings: 5,
    });
    expect(result.listings_total).toBe(5);
    // The highest order values were discovered last: the kept five are the last five indexes.
    expect((await allUrls(vendor, 100)).sort()).toEqual([35, 36, 37, 38, 39].map((i) => listing(vendor, i).url));
    const collections = await crawlOf(deps).catalog.collections({ vendor, page: 1, pageSize: 10 });
    expect(collections.items.map((c) => c.products_total)).toEqual([5]);
    // DECISIONS: last_updated_by_service carries an explicit +00:00 offset, on collections as on listings.
    expect(collections.items[0].last_updated_by_service).toBe(iso().replace('Z', '+00:00'));
    const [served] = (await crawlOf(deps).catalog.listings({ vendor, page: 1, pageSize: 1 })).items;
    expect(served.first_seen_by_service).toMatch(/\.\d{3}\+00:00$/);
    expect(served.last_updated_by_service).toMatch(/\.\d{3}\+00:00$/);
    expect((await allUrls(vendor, 2, `http://www.${vendor}/collections/all/?x=1`)).length).toBe(5);
  });
});

describe('crawl steps', () => {
  it('counts a batch once when its message is delivered twice', async () => {
    const started = await executionsOf(deps).create({
      org: 'o',
      kind: 'crawl',
      subject: 'twice.test',
      options: { vendor: 'twice.test', origin: 'https://twice.test' },
      deadlineSeconds: 600,
      workflow: null,
    });
    await executionsOf(deps).markRunning(started.id);
    await crawlOf(deps).store.putPlan(shopifyPlan(started.id, 'twice.test', 'Twice'));
    // One page of a host that does not resolve: read (failed, for good), recorded, counted once.
    const page = {
      seq: 'p',
      n: 1,
      url: 'https://twice.test/products.json?limit=250&page=1',
      kind: 'shopify-products' as const,
      collection: null,
      primary: true,
      pageSize: 250,
      order: 0,
    };
    const message = { crawlId: started.id, wave: 1, batch: { id: 'w1-0', pages: [page] } };
    const first = await crawlStepsOf(deps).processBatch(message);
    const second = await crawlStepsOf(deps).processBatch(message);
    expect([first.counted, second.counted]).toEqual([true, false]);
    expect((await executionsOf(deps).get(started.id))!.counters).toMatchObject({ pages: 1, pages_failed: 1 });
    const [outcome] = await crawlOf(deps).store.getOutcomes(started.id, [{ seq: 'p', n: 1 }]);
    expect(outcome).toMatchObject({ failed: true, count: 0 });
  });

  it('a dead-lettered batch is accounted: its pages recorded failed, the crawl incomplete, nothing removed', async () => {
    const vendor = 'lost.test';
    await crawlOf(deps).store.upsert(
      vendor,
      'Lost',
      'crawl-lost-test-000000000001',
      [0, 1].map((i) => ({ listing: listing(vendor, i), order: i })),
      iso(),
    );
    await crawlOf(deps).catalog.rebuild({
      vendor,
      displayName: 'Lost',
      crawlId: 'crawl-lost-test-000000000001',
      complete: true,
      maxListings: null,
    });
    const started = await executionsOf(deps).create({
      org: 'o',
      kind: 'crawl',
      subject: vendor,
      options: { vendor, origin: `https://${vendor}` },
      deadlineSeconds: 600,
      workflow: null,
    });
    await executionsOf(deps).markRunning(started.id);
    await crawlOf(deps).store.putPlan(shopifyPlan(started.id, vendor, 'Lost'));
    await crawlOf(deps).store.upsert(vendor, 'Lost', started.id, [{ listing: listing(vendor, 0), order: 0 }], iso());
    const page = {
      seq: 'p',
      n: 2,
      url: `https://${vendor}/products.json?page=2`,
      kind: 'shopify-products' as const,
      collection: null,
      primary: true,
      pageSize: 250,
      order: 250,
    };
    const message = { crawlId: started.id, wave: 1, batch: { id: 'w1-1', pages: [page] } };
    expect(await crawlStepsOf(deps).abandonBatch(message)).toEqual({ abandoned: 1 });
    expect(await crawlStepsOf(deps).abandonBatch(message)).toEqual({ abandoned: 0 });
    expect((await executionsOf(deps).get(started.id))!.counters).toMatchObject({ batches_lost: 1, pages_failed: 1 });
    expect(await crawlStepsOf(deps).finalize({ crawlId: started.id })).toMatchObject({ status: 'completed' });
    // Incomplete: product 1, not seen by this crawl, stays listed.
    expect((await allUrls(vendor, 10)).sort()).toEqual([0, 1].map((i) => listing(vendor, i).url));
  });
});

describe('a page batch of a crawl', () => {
  it('reads its plan and execution in one BatchGet, and writes its collection pages and outcomes together', async () => {
    const crawlId = 'crawl-batch-io-test-000000000001';
    await executionsOf(deps).create({
      org: 'org-batch-io',
      kind: 'crawl',
      subject: 'batch-io.test',
      id: crawlId,
      options: { vendor: 'batch-io.test' },
      deadlineSeconds: 600,
    });
    const plan = shopifyPlan(crawlId, 'batch-io.test', 'Batch IO');
    await crawlOf(deps).store.putPlan(plan);
    const read = await crawlOf(deps).store.getPlanAndExecution(crawlId);
    expect(read.plan).toEqual(plan);
    expect(read.execution).toEqual(await executionsOf(deps).get(crawlId));
    expect(await crawlOf(deps).store.getPlanAndExecution('crawl-missing-test-000000000001')).toEqual({
      plan: null,
      execution: null,
    });

    // 30 collection pages and 30 outcomes: 60 items, three BatchWriteItem calls of at most 25.
    const members = Array.from({ length: 30 }, (_, n) => ({
      collection: n % 2 ? 'odd' : 'even',
      seq: n % 2 ? 'c1' : 'c0',
      n: n + 1,
      urls: [`https://batch-io.test/products/p-${n}`, `https://batch-io.test/products/q-${n}`],
    }));
    const outcomes = members.map(({ seq, n }) => ({ seq, n, count: 2, full: false, next: null, failed: false }));
    await crawlOf(deps).store.putPageResults(crawlId, members, outcomes);
    expect((await crawlOf(deps).store.crawlMembers(crawlId, 'odd')).sort()).toEqual(
      members
        .filter((m) => m.collection === 'odd')
        .flatMap((m) => m.urls)
        .sort(),
    );
    expect((await crawlOf(deps).store.crawlMembers(crawlId, 'even')).length).toBe(30);
    const stored = await crawlOf(deps).store.getOutcomes(crawlId, outcomes);
    expect(stored.sort((a, b) => a.n - b.n)).toEqual(outcomes);
  });
});
