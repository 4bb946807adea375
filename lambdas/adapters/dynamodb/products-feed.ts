// The products' change feed is spread over PRODUCT_FEED_SHARDS gsi2 partitions so no one
// partition key takes every record write. A URL always lands in the same shard (its records'
// order is one partition's order); readers read every shard and merge them by sort key
// (`<updated_at>#<hash>...`), which is the feed's order.
import { PRODUCT_FEED_SHARDS, SCHEMA, UNSHARDED_PRODUCT_FEED_PK } from './schema';

/** The shard of a URL, from the hex hash its record key already carries. */
export const productFeedShard = (urlHash: string) => parseInt(urlHash.slice(0, 8), 16) % PRODUCT_FEED_SHARDS;

/**
 * Every gsi2 partition that holds product records: the shards, and the unsharded partition of
 * records stored before the sharding (nothing is written there any more; it drains as they are
 * stored again).
 */
export const PRODUCT_FEED_PARTITIONS: ReadonlyArray<{ name: string; pk: string }> = [
  { name: 'p', pk: UNSHARDED_PRODUCT_FEED_PK },
  ...Array.from({ length: PRODUCT_FEED_SHARDS }, (_, shard) => ({
    name: `p${shard}`,
    pk: SCHEMA.product.gsi2.pk({ shard }),
  })),
];

/**
 * Several sorted lists as one, by `order` (ascending, or descending with `newestFirst`); equal
 * keys keep their list's order and then the lists' order.
 */
export function mergeByOrder<T extends { order: string }>(
  lists: ReadonlyArray<readonly T[]>,
  newestFirst = false,
): T[] {
  const tagged = lists.flatMap((list, l) => list.map((entry, i) => ({ entry, l, i })));
  const sign = newestFirst ? -1 : 1;
  tagged.sort((a, b) => {
    if (a.entry.order !== b.entry.order) return a.entry.order < b.entry.order ? -sign : sign;
    return a.l - b.l || a.i - b.i;
  });
  return tagged.map((t) => t.entry);
}
