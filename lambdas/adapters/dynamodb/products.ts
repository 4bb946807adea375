// Product records in the single table:
//
//   latest record   pk PRODUCT#<sha256(url) 32 hex>  sk COUNTRY#<cc>
//                   gsi1 PRODUCTS#<vendor> / <updated_at>#<hash>#<cc>   (a vendor's feed)
//                   gsi2 PRODUCTS#<0..3> / <updated_at>#<hash>#<cc>     (the all-vendor feed,
//                   sharded by the hash: products-feed.ts)
//                   record as JSON string `product`, or gzip `product_gz` (level 1) above 1 KB
//   first-seen mark pk PRODUCT#<hash>  sk FIRST_SEEN   (single records: conditional put, who
//                   writes it first reports newProduct, so a product counts once for its vendor;
//                   extract batches: the batch claim decides which are new, then batch writes)
//   change log head watch_seq + watch on the record (its vendor's change feed, changes.ts): the
//                   observation's changes are appended to the log before the record is written
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BatchProductStore, SerializedProduct, StoredProduct } from '../../ports/products';
import { isConditionalFailure } from './keys';
import { SCHEMA } from './schema';
import { batchGet, batchPut } from './batch';
import { mergeByOrder, PRODUCT_FEED_PARTITIONS, productFeedShard } from './products-feed';
import type { ChangeFeedStore, LogHead } from '../../ports/changes';
import { watchStateOfProduct } from '../../domain/changes/model';

/** Records longer than this are stored gzipped (level 1): binary is written and parsed far faster than a long escaped string. */
const INLINE_LIMIT = 1024;
/**
 * Level 1, output in 2 KB chunks: a record (median 2.7 KB of JSON) compresses to about 1 KB, and
 * zlib's default 16 KB output chunk would be allocated for each record and kept alive by the
 * Buffer sliced from it (16 MB of external memory per 1000 records, which the GC is told about
 * and collects for); 2 KB chunks come from Node's buffer pool.
 */
const PRODUCT_GZIP = { level: 1, chunkSize: 2048 };
const MAX_FEED_ITEMS = 20_000;
/** BatchWriteItem calls at once for records and marks. */
const WRITE_LANES = 4;

/** A URL's hash, remembered for the URLs of recent batches: a stored product's URL is hashed for its record, its GSI order, its first-seen read and its mark. */
const hashes = new Map<string, string>();
function hashOf(url: string): string {
  let hash = hashes.get(url);
  if (hash === undefined) {
    if (hashes.size >= 10_000) hashes.clear();
    hash = createHash('sha256').update(url).digest('hex').slice(0, 32);
    hashes.set(url, hash);
  }
  return hash;
}
const recordKey = (url: string, country: string) =>
  SCHEMA.product.key({ urlHash: hashOf(url), country: country.toLowerCase() });

/**
 * A product's JSON as stored: the JSON itself up to INLINE_LIMIT, else its gzip, made once per
 * SerializedProduct (an extract batch's record and claim store the same bytes).
 */
export function packProduct(serialized: SerializedProduct): string | Uint8Array {
  if (serialized.json.length <= INLINE_LIMIT) return serialized.json;
  serialized.packed ??= gzipSync(serialized.json, PRODUCT_GZIP);
  return serialized.packed;
}

/** The product JSON packProduct stored. */
export const unpackProduct = (stored: string | Uint8Array): string =>
  typeof stored === 'string' ? stored : gunzipSync(stored).toString('utf8');

/** A stored product item as the record it holds (also read by the search change feed). */
export function fromItem(item: Record<string, any>): StoredProduct {
  const json = unpackProduct(typeof item.product === 'string' ? item.product : item.product_gz);
  return {
    url: item.url,
    country: item.country,
    vendor: item.vendor ?? null,
    product: JSON.parse(json),
    flags: item.flags,
    updated_at: item.updated_at,
  };
}

function toItem(record: StoredProduct, head?: LogHead): Record<string, unknown> {
  const stored = packProduct(record.serialized ?? { json: JSON.stringify(record.product) });
  const urlHash = hashOf(record.url);
  const order = { updatedAt: record.updated_at, urlHash, country: record.country };
  return {
    ...recordKey(record.url, record.country),
    entity: 'product',
    url: record.url,
    country: record.country,
    vendor: record.vendor,
    flags: record.flags,
    updated_at: record.updated_at,
    ...(typeof stored === 'string' ? { product: stored } : { product_gz: stored }),
    ...(record.vendor ? SCHEMA.product.gsi1.keys({ vendor: record.vendor, ...order }) : {}),
    ...SCHEMA.product.gsi2.keys({ ...order, shard: productFeedShard(urlHash) }),
    ...(head ? { watch_seq: head.seq, watch: JSON.stringify(head.state) } : {}),
  };
}

export const firstSeenKey = (url: string) => SCHEMA.productFirstSeen.key({ urlHash: hashOf(url) });
const firstSeenItem = (url: string, at: string) => ({
  ...firstSeenKey(url),
  url,
  first_seen_at: at,
});

/**
 * `changes`: the change feed the records' observations are appended to (prices, compare-at
 * prices, availability of the product and its variants) before each record is written.
 */
export function dynamoProductStore(
  documents: DynamoDBDocumentClient,
  tableName: string,
  changes?: ChangeFeedStore,
): BatchProductStore {
  /**
   * Each record (one per key) as an item, after appending what it changed to its log: the
   * stored records' log heads are read in one BatchGet (strongly consistent, heads only).
   */
  async function observed(records: readonly StoredProduct[]): Promise<Array<Record<string, unknown>>> {
    const watched = changes ? records.filter((record) => record.vendor) : [];
    if (!watched.length) return records.map((record) => toItem(record));
    const hints = new Map(
      (
        await batchGet(
          documents,
          tableName,
          watched.map((record) => recordKey(record.url, record.country)),
          { consistent: true, projection: 'pk, sk, watch_seq, watch' },
        )
      ).map((item) => [
        `${item.pk}#${item.sk}`,
        item.watch ? { seq: Number(item.watch_seq ?? 0), state: JSON.parse(item.watch) } : null,
      ]),
    );
    const heads = await changes!.append(
      watched.map((record) => {
        const key = recordKey(record.url, record.country);
        return {
          url: record.url,
          vendor: record.vendor!,
          log: `${hashOf(record.url)}#${record.country.toLowerCase()}`,
          country: record.country.toLowerCase(),
          source: 'extraction' as const,
          hint: hints.get(`${key.pk}#${key.sk}`) ?? null,
          observed: watchStateOfProduct(record.product),
        };
      }),
    );
    const headOf = new Map(watched.map((record, i) => [record, heads[i]]));
    return records.map((record) => toItem(record, headOf.get(record)));
  }

  /** The conditional put that elects the one caller who reports the URL as new. */
  async function markFirstSeen(record: StoredProduct): Promise<boolean> {
    try {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: firstSeenItem(record.url, record.updated_at),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalFailure(error)) return false;
      throw error;
    }
  }

  /** URLs (of these) that already have a first-seen mark. */
  async function seenBefore(urls: readonly string[]): Promise<Set<string>> {
    const items = await batchGet(documents, tableName, [...new Set(urls)].map(firstSeenKey), {
      consistent: true,
      projection: '#url',
      names: { '#url': 'url' },
    });
    return new Set(items.map((item) => item.url as string));
  }

  /**
   * Items in BatchWriteItem calls of 25, up to WRITE_LANES at once: a 100-URL batch's records (and
   * then its marks) take one round trip instead of four one after another, which the last batch
   * of an extraction waits for before it can complete.
   */
  const writeAll = (items: Array<Record<string, unknown>>) => batchPut(documents, tableName, items, WRITE_LANES);

  /** One feed partition's keys, newest first, up to MAX_FEED_ITEMS. */
  async function newestKeys(index: 'gsi1' | 'gsi2', pk: string, updatedSince?: string) {
    const values: Record<string, string> = { ':pk': pk };
    let condition = `${index}pk = :pk`;
    if (updatedSince) {
      values[':since'] = updatedSince;
      condition += ` AND ${index}sk >= :since`;
    }
    const keys: Array<{ pk: string; sk: string; order: string }> = [];
    let start: Record<string, any> | undefined;
    for (let page = 0; page < 1_000 && keys.length < MAX_FEED_ITEMS; page++) {
      const out = await documents.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: index,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: values,
          ProjectionExpression: `pk, sk, ${index}sk`,
          ScanIndexForward: false,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) keys.push({ pk: item.pk, sk: item.sk, order: item[`${index}sk`] });
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return keys;
  }

  return {
    async put(record) {
      const [item] = await observed([record]);
      await documents.send(new PutCommand({ TableName: tableName, Item: item }));
      return { firstSeen: await markFirstSeen(record) };
    },

    async putAll(records) {
      // One write per 25 records; a first-seen mark is read for all at once and written (one
      // conditional put each, so racing writers still elect one) only for URLs never seen.
      const byKey = new Map(records.map((record) => [`${hashOf(record.url)}#${record.country.toLowerCase()}`, record]));
      const seen = await seenBefore(records.map((record) => record.url));
      await writeAll(await observed([...byKey.values()]));
      // Each URL reported new at most once, for its first record in the list.
      const candidates = new Map<string, StoredProduct>();
      for (const record of records)
        if (!seen.has(record.url) && !candidates.has(record.url)) candidates.set(record.url, record);
      const elected = await Promise.all(
        [...candidates.values()].map(async (record) => [record, await markFirstSeen(record)] as const),
      );
      const winners = new Set(elected.filter(([, won]) => won).map(([record]) => record));
      return records.map((record) => ({ firstSeen: winners.has(record) }));
    },

    async putRecords(records) {
      const byKey = new Map(records.map((record) => [`${hashOf(record.url)}#${record.country.toLowerCase()}`, record]));
      await writeAll(await observed([...byKey.values()]));
    },

    seenBefore,

    async markFirstSeen(marks) {
      const byUrl = new Map(marks.map((mark) => [mark.url, mark]));
      await writeAll([...byUrl.values()].map(({ url, at }) => firstSeenItem(url, at)));
    },

    async get(url, country) {
      const out = await documents.send(new GetCommand({ TableName: tableName, Key: recordKey(url, country) }));
      return out.Item ? fromItem(out.Item) : null;
    },

    async listUpdated({ vendor, updatedSince, offset, limit }) {
      // A vendor's feed is one gsi1 partition; the all-vendor feed merges the gsi2 shards.
      const index = vendor ? 'gsi1' : 'gsi2';
      const partitions = vendor ? [SCHEMA.product.gsi1.pk({ vendor })] : PRODUCT_FEED_PARTITIONS.map((p) => p.pk);
      const lists = await Promise.all(partitions.map((pk) => newestKeys(index, pk, updatedSince)));
      const merged = mergeByOrder(lists, true).slice(0, MAX_FEED_ITEMS);
      const keys = merged.slice(offset, offset + limit);
      const items = await Promise.all(
        keys.map(({ pk, sk }) => documents.send(new GetCommand({ TableName: tableName, Key: { pk, sk } }))),
      );
      return { items: items.flatMap((out) => (out.Item ? [fromItem(out.Item)] : [])), total: merged.length };
    },
  };
}
