// The catalog's change feed in the single table, read by search to stay current:
//
//   product records   gsi2 PRODUCTS#<0..3>     / <updated_at>#<urlHash>#<cc>   (SCHEMA.product)
//   listings          gsi2 LISTINGS#<0..3>     / <last_updated>#<urlHash>      (SCHEMA.listingFeed)
//
// A read queries each partition for sort keys after its cursor, oldest first, with keys-only
// attributes, and merges them in sort-key order: a partition that stopped at its page limit
// bounds the read (nothing after its last key is returned from any partition), so reads one
// after another are in order as a whole and skip nothing. Then it reads the full items of the
// changes the index does not already hold. A
// cursor never passes "now minus LAG": writes are stamped before they land (a batch can take a
// second or two), so the last seconds are read again next time and a late write is never
// skipped; the index ignores what it already holds without reading its record again.
import { BatchGetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CatalogChange, CatalogFeed, CatalogRecords } from '../../ports/search-index';
import type { ProductRecord } from '../../domain/extraction/types';
import { listingAsProduct } from '../../domain/search/document';
import { vendorKey } from '../../domain/extraction/url';
import { fromItem } from './products';
import { LISTING_FEED_SHARDS, SCHEMA } from './schema';
import { mergeByOrder, PRODUCT_FEED_PARTITIONS } from './products-feed';

import { feedUrlHash } from './catalog-feed-keys';

export { listingFeedKeys } from './catalog-feed-keys';

/** How far behind "now" a cursor stays, so writes stamped earlier but landing later are still read. */
export const FEED_LAG_MS = 5_000;
const MAX_ROUNDS = 8;

interface Partition {
  name: string;
  pk: string;
  source: CatalogChange['source'];
}

const PARTITIONS: Partition[] = [
  ...PRODUCT_FEED_PARTITIONS.map((p) => ({ ...p, source: 'extraction' as const })),
  ...Array.from({ length: LISTING_FEED_SHARDS }, (_, shard) => ({
    name: `l${shard}`,
    pk: SCHEMA.listing.gsi2.pk({ shard }),
    source: 'listing' as const,
  })),
];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** BatchGet of any number of keys, retrying unprocessed ones with backoff. */
async function getAll(
  documents: DynamoDBDocumentClient,
  tableName: string,
  keys: Array<{ pk: string; sk: string }>,
): Promise<Array<Record<string, any>>> {
  const found: Array<Record<string, any>> = [];
  for (let i = 0; i < keys.length; i += 100) {
    let chunk: Array<Record<string, string>> = keys.slice(i, i + 100);
    for (let round = 0; chunk.length; round++) {
      if (round >= MAX_ROUNDS) throw new Error('The table kept refusing reads (unprocessed keys)');
      if (round) await pause(50 * 2 ** round);
      const out = await documents.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: chunk } } }));
      found.push(...(out.Responses?.[tableName] ?? []));
      chunk = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof chunk;
    }
  }
  return found;
}

function changeOf(
  partition: Pick<Partition, 'source'>,
  item: Record<string, any>,
): Omit<CatalogChange, 'product'> | null {
  if (partition.source === 'extraction') {
    const vendor = item.vendor ?? vendorKey(item.url);
    if (!vendor || !item.url || !item.updated_at) return null;
    return { source: 'extraction', url: item.url, vendor, updatedAt: item.updated_at, country: item.country ?? null };
  }
  if (item.entity === SCHEMA.listingGone.entity) {
    const vendor =
      typeof item.pk === 'string' ? item.pk.slice(SCHEMA.listingGone.pk({ vendor: '_' }).length - 1) : null;
    if (!vendor || !item.url || !item.gone_at) return null;
    return { source: 'listing', url: item.url, vendor, updatedAt: item.gone_at, country: null, removed: true };
  }
  const vendor = typeof item.pk === 'string' ? item.pk.slice(SCHEMA.listing.pk({ vendor: '_' }).length - 1) : null;
  if (!vendor || !item.url || !item.last_updated) return null;
  return { source: 'listing', url: item.url, vendor, updatedAt: item.last_updated, country: null };
}

function productOf(partition: Pick<Partition, 'source'>, item: Record<string, any>): ProductRecord {
  if (partition.source === 'extraction') return fromItem(item).product;
  return listingAsProduct({
    id: item.id,
    url: item.url,
    name: item.name ?? '',
    images: JSON.parse(item.images ?? '[]'),
    price: JSON.parse(item.price ?? '{"currency":null,"current_value":null,"compare_at_value":null}'),
    vendor: item.vendor ?? '',
    last_updated_by_service: item.last_updated,
  });
}

/**
 * A stored product, listing or removed-listing marker as the change it is (what the stream
 * indexer reads by key); null for any other item or one it cannot read.
 */
export function catalogChangeOf(item: Record<string, any>): CatalogChange | null {
  const source =
    item.entity === SCHEMA.product.entity
      ? 'extraction'
      : item.entity === SCHEMA.listing.entity || item.entity === SCHEMA.listingGone.entity
        ? 'listing'
        : null;
  if (!source) return null;
  const change = changeOf({ source }, item);
  if (!change) return null;
  if (change.removed) return { ...change, product: null };
  try {
    return { ...change, product: productOf({ source }, item) };
  } catch {
    return null;
  }
}

export function dynamoCatalogFeed(
  documents: DynamoDBDocumentClient,
  tableName: string,
  now: () => number = Date.now,
): CatalogFeed {
  /** One partition's keys after its cursor, oldest first. */
  async function keysAfter(partition: Partition, after: string | null, limit: number) {
    const out = await documents.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk > :after' : 'gsi2pk = :pk',
        ExpressionAttributeValues: after ? { ':pk': partition.pk, ':after': after } : { ':pk': partition.pk },
        ExpressionAttributeNames: { '#url': 'url', '#country': 'country' },
        ProjectionExpression: 'pk, sk, gsi2sk, #url, vendor, updated_at, last_updated, #country, entity, gone_at',
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    return { items: out.Items ?? [], full: !!out.LastEvaluatedKey };
  }

  type Entry =
    | { order: string; change: CatalogChange }
    | { order: string; partition: Partition; pk: string; sk: string };

  /** The merged entries with the records they need read; unreadable or moved-on records are left out. */
  async function withRecords(entries: Entry[]): Promise<CatalogChange[]> {
    const wanted = entries.flatMap((entry) => ('pk' in entry ? [{ pk: entry.pk, sk: entry.sk }] : []));
    const full = new Map(
      (await getAll(documents, tableName, wanted)).map((item) => [`${item.pk}\u0000${item.sk}`, item]),
    );
    const changes: CatalogChange[] = [];
    for (const entry of entries) {
      if (!('pk' in entry)) {
        changes.push(entry.change);
        continue;
      }
      const item = full.get(`${entry.pk}\u0000${entry.sk}`);
      const change = item ? changeOf(entry.partition, item) : null;
      // Gone or moved on since the keys were read: the feed shows it again where it is now.
      if (!item || !change || change.removed) continue;
      try {
        changes.push({ ...change, product: productOf(entry.partition, item) });
      } catch {
        // An unreadable record is left out of search rather than stopping the feed.
      }
    }
    return changes;
  }

  return {
    async read(cursorText, { limit, skip }) {
      const cursors: Record<string, string | null> = cursorText ? JSON.parse(cursorText) : {};
      const ceiling = new Date(now() - FEED_LAG_MS).toISOString();
      const perPartition = Math.max(50, Math.ceil(limit / PARTITIONS.length));
      const pages = await Promise.all(
        PARTITIONS.map((partition) => keysAfter(partition, cursors[partition.name] ?? null, perPartition)),
      );
      // The lowest last key of the partitions with more to read: past it, another partition may
      // still hold earlier changes, so nothing past it is returned this time.
      const bound = pages.reduce<string | null>((low, page) => {
        const last = page.full ? (page.items[page.items.length - 1]?.gsi2sk as string) : null;
        return last && (low === null || last < low) ? last : low;
      }, null);
      let more = false;
      const lists = PARTITIONS.map((partition, p) => {
        const after = cursors[partition.name] ?? null;
        const items = bound === null ? pages[p].items : pages[p].items.filter((item) => item.gsi2sk <= bound);
        const last = items.length ? (items[items.length - 1].gsi2sk as string) : after;
        // Past the ceiling only recent writes remain: the next catch-up reads them.
        if (last && last > ceiling) cursors[partition.name] = after && after > ceiling ? after : ceiling;
        else {
          cursors[partition.name] = last;
          if (pages[p].full || items.length < pages[p].items.length) more = true;
        }
        const entries: Entry[] = [];
        for (const item of items) {
          const change = changeOf(partition, item);
          if (!change || skip?.(change)) continue;
          // A removal as it is (its keys say it all), a stored item once its record is read.
          if (change.removed) entries.push({ order: item.gsi2sk, change: { ...change, product: null } });
          else entries.push({ order: item.gsi2sk, partition, pk: item.pk, sk: item.sk });
        }
        return entries;
      });
      const changes = await withRecords(mergeByOrder(lists));
      return { changes, cursor: JSON.stringify(cursors), more };
    },
  };
}

/**
 * The full records behind extraction documents. Reads asked for in the same tick (a page of
 * hits) go out as one BatchGet instead of one GetItem each.
 */
export function dynamoCatalogRecords(documents: DynamoDBDocumentClient, tableName: string): CatalogRecords {
  type Wanted = {
    key: { pk: string; sk: string };
    resolve: (value: Awaited<ReturnType<CatalogRecords['get']>>) => void;
    reject: (error: unknown) => void;
  };
  let pending: Wanted[] = [];
  async function flush() {
    const batch = pending;
    pending = [];
    try {
      const unique = [...new Map(batch.map((w) => [`${w.key.pk}\u0000${w.key.sk}`, w.key])).values()];
      const items = new Map(
        (await getAll(documents, tableName, unique)).map((item) => [`${item.pk}\u0000${item.sk}`, item]),
      );
      for (const wanted of batch) {
        const item = items.get(`${wanted.key.pk}\u0000${wanted.key.sk}`);
        if (!item) wanted.resolve(null);
        else {
          const stored = fromItem(item);
          wanted.resolve({ product: stored.product, updatedAt: stored.updated_at });
        }
      }
    } catch (error) {
      for (const wanted of batch) wanted.reject(error);
    }
  }
  return {
    get(ref) {
      return new Promise((resolve, reject) => {
        pending.push({
          key: SCHEMA.product.key({ urlHash: feedUrlHash(ref.url), country: ref.country.toLowerCase() }),
          resolve,
          reject,
        });
        if (pending.length === 1) queueMicrotask(() => void flush());
      });
    },
  };
}
