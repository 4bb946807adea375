// Listings, collections and a crawl's working state in the single table:
//
//   listing      pk LISTING#<vendor>                  sk U#<url>          one per vendor + URL (Put after a
//                                                                          BatchGet: same content however
//                                                                          often a page is read)
//   member page  pk EXEC#<crawlId>                    sk CRAWL#MEM#<collection>#<seq>#<n>   urls of one
//                                                                          collection page as read
//   member chunk pk LMEMBERS#<vendor>#<slot>#<coll>   sk C#<k>            urls at positions k·100..k·100+99
//   collection   pk LCOLL#<vendor>                    sk C#<collection>
//   anchor       pk LANCHOR#<vendor>#<slot>#<name>    sk A#<k>            sk of the item at position
//                                                                          k·ANCHOR_EVERY; name * = all
//                                                                          listings, else a collection
//   catalog head pk CATALOG#<vendor>                  sk HEAD             live slot, totals
//   crawl plan   pk EXEC#<crawlId>                    sk CRAWL#PLAN       gzip JSON of the plan
//   page outcome pk EXEC#<crawlId>                    sk CRAWL#PAGE#<seq>#<n>
//   waiter       pk EXEC#<crawlId>                    sk CRAWL#WAITER#<extractionId>
//
// Page N of a vendor's listings: GetItem of the anchor at or before its offset, then one Query of
// the listing partition from that anchor's sort key (at most ANCHOR_EVERY + page_size items), so
// no page costs more than a constant plus its own items. Anchors are rebuilt at the end of every
// crawl into the idle slot, then the head flips; collections page their member partition the same
// way and fetch the page's listings with one BatchGet.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  ANCHOR_EVERY,
  type CatalogHead,
  type ListingStore,
  type StoredCollection,
  type StoredListing,
} from '../../ports/listings';
import type { CrawlPlan, FoundListing, Listing, PageOutcome } from '../../domain/crawl/model';
import { listingId, withOffset } from '../../domain/crawl/model';
import { deadline, storeFailure } from './keys';
import { listingFeedKeys, listingGoneItem } from './catalog-feed-keys';
import { SCHEMA } from './schema';
import { executionFromItem } from './executions';
import type { ChangeFeedStore, LogHead } from '../../ports/changes';
import { watchStateOfListing } from '../../domain/changes/model';

const MAX_ROUNDS = 8;
const POSITION_DIGITS = 9;
const ALL = '*';

/** Sort keys stop at 1 KB: long URLs keep a readable prefix and a hash. */
const urlPart = (url: string) =>
  url.length <= 700 ? url : `${url.slice(0, 600)}#${createHash('sha1').update(url).digest('hex')}`;
const urlSk = (url: string) => SCHEMA.listing.sk({ url: urlPart(url) });
const listingPk = (vendor: string) => SCHEMA.listing.pk({ vendor });
const chunkPk = (vendor: string, slot: string, collection: string) =>
  SCHEMA.listingMemberChunk.pk({ vendor, slot, collection });
const collectionPk = (vendor: string) => SCHEMA.collection.pk({ vendor });
const anchorPk = (vendor: string, slot: string, name: string) =>
  SCHEMA.listingAnchor.pk({ vendor, slot, name: name || ALL });
const anchorSk = (k: number) => SCHEMA.listingAnchor.sk({ k: String(k).padStart(POSITION_DIGITS, '0') });
/** Concurrent batch writes per call: the table's latency overlaps, not its throughput. */
const WRITE_LANES = 2;
const headKey = (vendor: string) => SCHEMA.catalogHead.key({ vendor });
const planKey = (crawlId: string) => SCHEMA.crawlPlan.key({ id: crawlId });
const outcomeKey = (crawlId: string, seq: string, n: number) =>
  SCHEMA.crawlPage.key({ id: crawlId, seq, n: String(n).padStart(6, '0') });

const outcomeItem = (crawlId: string, o: PageOutcome) => ({
  ...outcomeKey(crawlId, o.seq, o.n),
  entity: 'crawlPage',
  ...o,
});
const memberPageItem = (crawl: string, collection: string, seq: string, n: number, urls: readonly string[]) => ({
  ...SCHEMA.crawlMemberPage.key({ id: crawl, collection, seq, n: String(n).padStart(6, '0') }),
  entity: SCHEMA.crawlMemberPage.entity,
  urls_gz: gzipSync(JSON.stringify(urls)),
});
const planOf = (item: Record<string, any> | undefined): CrawlPlan | null =>
  item?.plan_gz ? (JSON.parse(gunzipSync(Buffer.from(item.plan_gz)).toString('utf8')) as CrawlPlan) : null;

export const listingHash = (listing: FoundListing) =>
  createHash('sha1')
    .update(JSON.stringify([listing.name, listing.images, listing.price]))
    .digest('hex');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const served = (item: Record<string, any>): Listing => ({
  id: item.id,
  url: item.url,
  name: item.name,
  images: JSON.parse(item.images ?? '[]'),
  price: JSON.parse(item.price ?? '{"currency":null,"current_value":null,"compare_at_value":null}'),
  vendor: item.vendor,
  first_seen_by_service: item.first_seen,
  last_updated_by_service: item.last_updated,
});

const storedListing = (item: Record<string, any>): StoredListing => ({
  ...served(item),
  cursor: item.sk,
  hash: item.hash,
  crawl: item.crawl,
  order: Number(item.order ?? 0),
  first_crawl: item.first_crawl ?? item.crawl,
});

/** A listing's change log (changes.ts): its URL's hash, apart from the URL's product records. */
const listingLog = (url: string) => `${createHash('sha256').update(url).digest('hex').slice(0, 32)}#listing`;
const headOf = (item: Record<string, any> | undefined): LogHead | null =>
  item?.watch ? { seq: Number(item.watch_seq ?? 0), state: JSON.parse(item.watch) } : null;

/**
 * `changes`: the change feed a re-crawl's observations go to (a listing found, gone, or priced
 * anew), appended before the listings are written or removed.
 */
export function dynamoListingStore(
  documents: DynamoDBDocumentClient,
  tableName: string,
  changes?: ChangeFeedStore,
): ListingStore {
  /** The listings' logs after these observations (`null`: gone), in order; none without a change feed. */
  async function observe(
    vendor: string,
    found: ReadonlyArray<{ url: string; listing: FoundListing | null; before?: Record<string, any> }>,
    announceNew: boolean,
  ): Promise<Array<LogHead | undefined>> {
    if (!changes) return found.map(() => undefined);
    return changes.append(
      found.map(({ url, listing, before }) => ({
        url,
        vendor,
        log: listingLog(url),
        country: null,
        source: 'crawl' as const,
        hint: headOf(before),
        observed: watchStateOfListing(listing),
        announceNew,
      })),
    );
  }

  async function writeChunk(first: Array<Record<string, unknown>>): Promise<void> {
    let chunk = first;
    for (let round = 0; chunk.length; round++) {
      if (round >= MAX_ROUNDS) throw new Error('The table kept refusing writes (unprocessed items)');
      if (round) await pause(50 * 2 ** round);
      const out = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: chunk as any } }));
      chunk = (out.UnprocessedItems?.[tableName] ?? []) as typeof chunk;
    }
  }

  async function writeAll(requests: Array<Record<string, unknown>>): Promise<void> {
    const chunks: Array<Array<Record<string, unknown>>> = [];
    for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(WRITE_LANES, chunks.length) }, async () => {
        while (next < chunks.length) await writeChunk(chunks[next++]);
      }),
    );
  }

  async function getAll(keys: Array<{ pk: string; sk: string }>): Promise<Array<Record<string, any>>> {
    const found: Array<Record<string, any>> = [];
    for (let i = 0; i < keys.length; i += 100) {
      let chunk: Array<Record<string, string>> = keys.slice(i, i + 100);
      for (let round = 0; chunk.length; round++) {
        if (round >= MAX_ROUNDS) throw new Error('The table kept refusing reads (unprocessed keys)');
        if (round) await pause(50 * 2 ** round);
        const out = await documents.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: chunk, ConsistentRead: true } } }),
        );
        found.push(...(out.Responses?.[tableName] ?? []));
        chunk = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof chunk;
      }
    }
    return found;
  }

  async function* queryPages(
    pk: string,
    prefix: string,
    only?: { projection: string; names: Record<string, string> },
  ): AsyncIterable<Array<Record<string, any>>> {
    let start: Record<string, any> | undefined;
    for (let page = 0; page < 1_000_000; page++) {
      const out = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
          ...(only ? { ProjectionExpression: only.projection, ExpressionAttributeNames: only.names } : {}),
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      if (out.Items?.length) yield out.Items;
      start = out.LastEvaluatedKey;
      if (!start) return;
    }
  }

  const deleteKeys = (keys: Array<{ pk: string; sk: string }>) =>
    writeAll(keys.map((Key) => ({ DeleteRequest: { Key } })));

  return {
    async upsert(vendor, displayName, crawl, items, now, options = {}) {
      // One item per URL: the last occurrence in this call wins (same crawl, same data).
      const byUrl = new Map<string, { listing: FoundListing; order: number }>();
      for (const item of items) if (!byUrl.has(item.listing.url)) byUrl.set(item.listing.url, item);
      const unique = [...byUrl.values()];
      const existing = new Map<string, Record<string, any>>();
      // Read back even on a vendor's first crawl: a batch SQS delivers twice may write again after
      // the first delivery, and must keep what that one wrote (first_seen, last_updated).
      for (const item of await getAll(unique.map(({ listing }) => ({ pk: listingPk(vendor), sk: urlSk(listing.url) }))))
        existing.set(item.url, item);
      let created = 0;
      // A vendor's first crawl finds its listings; a re-crawl's new ones appeared.
      const heads = await observe(
        vendor,
        unique.map(({ listing }) => ({ url: listing.url, listing, before: existing.get(listing.url) })),
        !options.firstCrawl,
      );
      const puts = unique.map(({ listing, order }, i) => {
        const before = existing.get(listing.url);
        const head = heads[i];
        const hash = listingHash(listing);
        if (!before) created++;
        const changed = !before || before.hash !== hash;
        const lastUpdated: string = changed ? now : before.last_updated;
        return {
          PutRequest: {
            Item: {
              pk: listingPk(vendor),
              sk: urlSk(listing.url),
              entity: SCHEMA.listing.entity,
              // The catalog's change feed (search catches up from it); an unchanged re-read keeps its place.
              ...listingFeedKeys(vendor, listing.url, lastUpdated),
              id: before?.id ?? listingId(vendor, listing.url),
              url: listing.url,
              name: listing.name,
              images: JSON.stringify(listing.images),
              price: JSON.stringify(listing.price),
              vendor: displayName,
              hash,
              first_seen: before?.first_seen ?? now,
              last_updated: lastUpdated,
              // A re-read by the same crawl keeps the first order it was given.
              order: before?.crawl === crawl ? Math.min(Number(before.order), order) : order,
              crawl,
              first_crawl: before?.first_crawl ?? crawl,
              ...(head ? { watch_seq: head.seq, watch: JSON.stringify(head.state) } : {}),
            },
          },
        };
      });
      await writeAll(puts);
      return { created };
    },

    async putMemberPage(crawl, collection, seq, n, urls) {
      await documents.send(
        new PutCommand({ TableName: tableName, Item: memberPageItem(crawl, collection, seq, n, urls) }),
      );
    },

    async putPageResults(crawlId, members, outcomes) {
      await writeAll([
        ...members.map(({ collection, seq, n, urls }) => ({
          PutRequest: { Item: memberPageItem(crawlId, collection, seq, n, urls) },
        })),
        ...outcomes.map((o) => ({ PutRequest: { Item: outcomeItem(crawlId, o) } })),
      ]);
    },

    async crawlMembers(crawl, collection) {
      const urls: string[] = [];
      for await (const items of queryPages(`EXEC#${crawl}`, `CRAWL#MEM#${collection}#`)) {
        for (const item of items)
          urls.push(...(JSON.parse(gunzipSync(Buffer.from(item.urls_gz)).toString('utf8')) as string[]));
      }
      return urls;
    },

    async memberChunks(vendor, slot, collection, chunks) {
      const items = await getAll(
        Array.from({ length: chunks }, (_, k) => ({ pk: chunkPk(vendor, slot, collection), sk: anchorSk(k) })),
      );
      items.sort((a, b) => (a.sk < b.sk ? -1 : 1));
      return items.flatMap((item) => JSON.parse(item.urls) as string[]);
    },

    async putMemberChunks(vendor, slot, collection, urls, previousChunks) {
      const pk = chunkPk(vendor, slot, collection);
      const puts: Array<Record<string, unknown>> = [];
      for (let k = 0; k * ANCHOR_EVERY < urls.length; k++) {
        puts.push({
          PutRequest: {
            Item: {
              pk,
              sk: anchorSk(k),
              entity: 'listingMemberChunk',
              urls: JSON.stringify(urls.slice(k * ANCHOR_EVERY, (k + 1) * ANCHOR_EVERY)),
            },
          },
        });
      }
      const deletes: Array<Record<string, unknown>> = [];
      for (let k = puts.length; k < previousChunks; k++)
        deletes.push({ DeleteRequest: { Key: { pk, sk: anchorSk(k) } } });
      await writeAll([...puts, ...deletes]);
    },

    async putCollections(vendor, collections) {
      await writeAll(
        collections.map((c) => ({
          PutRequest: {
            Item: {
              pk: collectionPk(vendor),
              sk: `C#${c.key}`,
              entity: 'collection',
              key: c.key,
              id: c.id,
              url: c.url,
              title: c.title,
              stated: c.statedCount,
              products_total: c.products_total,
              last_updated: c.last_updated_by_service,
              crawl: c.crawl,
            },
          },
        })),
      );
    },

    async getPlan(crawlId) {
      const out = await documents.send(
        new GetCommand({ TableName: tableName, Key: planKey(crawlId), ConsistentRead: true }),
      );
      return planOf(out.Item);
    },

    async getPlanAndExecution(crawlId) {
      // The plan shares the execution's partition (EXEC#<id>): one BatchGet reads both.
      const executionKey = SCHEMA.execution.key({ id: crawlId });
      const items = await getAll([planKey(crawlId), executionKey]);
      const executionItem = items.find((item) => item.sk === executionKey.sk);
      return {
        plan: planOf(items.find((item) => item.sk === planKey(crawlId).sk)),
        execution: executionItem ? executionFromItem(executionItem) : null,
      };
    },

    async putPlan(plan) {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...planKey(plan.crawlId),
            entity: 'crawlPlan',
            wave: plan.wave,
            plan_gz: gzipSync(JSON.stringify(plan)),
          },
        }),
      );
    },

    async putOutcomes(crawlId, outcomes) {
      await writeAll(outcomes.map((o) => ({ PutRequest: { Item: outcomeItem(crawlId, o) } })));
    },

    async getOutcomes(crawlId, pages) {
      const items = await getAll(pages.map(({ seq, n }) => outcomeKey(crawlId, seq, n)));
      return items.map((item) => ({
        seq: item.seq,
        n: Number(item.n),
        count: Number(item.count),
        full: item.full === true,
        next: item.next ?? null,
        failed: item.failed === true,
      }));
    },

    async addWaiter(crawlId, executionId) {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...SCHEMA.crawlWaiter.key({ id: crawlId, executionId }),
            entity: SCHEMA.crawlWaiter.entity,
            execution_id: executionId,
          },
        }),
      );
    },

    async waiters(crawlId) {
      const ids: string[] = [];
      for await (const items of queryPages(`EXEC#${crawlId}`, 'CRAWL#WAITER#'))
        ids.push(...items.map((item) => item.execution_id as string));
      return ids;
    },

    async *listingPages(vendor) {
      const marks = { projection: 'sk, #url, crawl, #order, first_crawl', names: { '#url': 'url', '#order': 'order' } };
      for await (const items of queryPages(listingPk(vendor), 'U#', marks)) {
        yield items.map((item) => ({
          url: item.url,
          cursor: item.sk,
          crawl: item.crawl,
          order: Number(item.order ?? 0),
          first_crawl: item.first_crawl ?? item.crawl,
        }));
      }
    },

    getListings: async (vendor, urls) =>
      (await getAll([...new Set(urls)].map((url) => ({ pk: listingPk(vendor), sk: urlSk(url) })))).map(storedListing),

    async removeListings(vendor, urls) {
      if (changes) {
        const stored = await getAll([...new Set(urls)].map((url) => ({ pk: listingPk(vendor), sk: urlSk(url) })));
        await observe(
          vendor,
          stored.map((item) => ({ url: item.url as string, listing: null, before: item })),
          false,
        );
      }
      await deleteKeys(urls.map((url) => ({ pk: listingPk(vendor), sk: urlSk(url) })));
      // The catalog's change feed cannot show a deleted item: a marker tells search to drop it.
      const goneAt = new Date().toISOString();
      await writeAll(urls.map((url) => ({ PutRequest: { Item: listingGoneItem(vendor, url, goneAt) } })));
    },

    async collections(vendor) {
      try {
        const all: StoredCollection[] = [];
        for await (const items of queryPages(collectionPk(vendor), 'C#')) {
          for (const item of items) {
            all.push({
              key: item.key,
              id: item.id,
              url: item.url,
              title: item.title ?? null,
              statedCount: item.stated ?? null,
              products_total: Number(item.products_total ?? 0),
              last_updated_by_service: item.last_updated,
              crawl: item.crawl,
            });
          }
        }
        return all;
      } catch (error) {
        throw storeFailure(error);
      }
    },

    removeCollections: (vendor, keys) => deleteKeys(keys.map((key) => ({ pk: collectionPk(vendor), sk: `C#${key}` }))),

    async putAnchors(vendor, slot, name, cursors, previousCount) {
      const pk = anchorPk(vendor, slot, name);
      const puts = cursors.map((cursor, k) => ({
        PutRequest: { Item: { pk, sk: anchorSk(k), entity: 'listingAnchor', at: cursor } },
      }));
      const deletes: Array<Record<string, unknown>> = [];
      for (let k = cursors.length; k < previousCount; k++)
        deletes.push({ DeleteRequest: { Key: { pk, sk: anchorSk(k) } } });
      await writeAll([...puts, ...deletes]);
    },

    async putHead(head) {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...headKey(head.vendor), entity: 'catalogHead', head: JSON.stringify(head) },
        }),
      );
    },

    async head(vendor) {
      try {
        const out = await documents.send(new GetCommand({ TableName: tableName, Key: headKey(vendor) }), deadline());
        return out.Item?.head ? (JSON.parse(out.Item.head) as CatalogHead) : null;
      } catch (error) {
        throw storeFailure(error);
      }
    },

    async readPage(vendor, head, name, offset, limit) {
      if (limit <= 0) return [];
      try {
        let items: Array<Record<string, any>>;
        if (name) {
          // A collection: the member chunks holding [offset, offset + limit), then its listings in one BatchGet.
          const first = Math.floor(offset / ANCHOR_EVERY);
          const last = Math.floor((offset + limit - 1) / ANCHOR_EVERY);
          const chunks = await getAll(
            Array.from({ length: last - first + 1 }, (_, i) => ({
              pk: chunkPk(vendor, head.slot, name),
              sk: anchorSk(first + i),
            })),
          );
          chunks.sort((a, b) => (a.sk < b.sk ? -1 : 1));
          const urls = chunks
            .flatMap((c) => JSON.parse(c.urls) as string[])
            .slice(offset - first * ANCHOR_EVERY, offset - first * ANCHOR_EVERY + limit);
          items = urls.map((url) => ({ url }));
          const found = await getAll(urls.map((url) => ({ pk: listingPk(vendor), sk: urlSk(url) })));
          const byUrl = new Map(found.map((item) => [item.url as string, item]));
          return urls.flatMap((url) => {
            const listing = byUrl.get(url);
            if (!listing) return [];
            const l = served(listing);
            return [
              {
                ...l,
                vendor: head.displayName || l.vendor,
                first_seen_by_service: withOffset(l.first_seen_by_service),
                last_updated_by_service: withOffset(l.last_updated_by_service),
              },
            ];
          });
        }
        // The anchor at or before the offset: the Query starts there and skips at most ANCHOR_EVERY - 1 items.
        const k = Math.floor(offset / ANCHOR_EVERY);
        const anchor = await documents.send(
          new GetCommand({ TableName: tableName, Key: { pk: anchorPk(vendor, head.slot, ''), sk: anchorSk(k) } }),
          deadline(),
        );
        const from: string | undefined = anchor.Item?.at;
        if (!from) return [];
        const skip = offset - k * ANCHOR_EVERY;
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk >= :from',
            ExpressionAttributeValues: { ':pk': listingPk(vendor), ':from': from },
            Limit: skip + limit,
          }),
          deadline(),
        );
        items = (out.Items ?? []).slice(skip, skip + limit);
        const listings = items;
        const byUrl = new Map(listings.map((item) => [item.url as string, item]));
        // Members keep their URL order; a member whose listing is gone is left out.
        return items.flatMap((item) => {
          const listing = byUrl.get(item.url);
          if (!listing) return [];
          const l = served(listing);
          return [
            {
              ...l,
              vendor: head.displayName || l.vendor,
              first_seen_by_service: withOffset(l.first_seen_by_service),
              last_updated_by_service: withOffset(l.last_updated_by_service),
            },
          ];
        });
      } catch (error) {
        throw storeFailure(error);
      }
    },
  };
}
