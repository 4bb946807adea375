// The gsi2 attributes that put a stored listing into the catalog's change feed (read by search):
// spread into the listing's Put. Kept apart from the feed reader so the listing adapter imports
// nothing of search.
import { createHash } from 'node:crypto';
import { LISTING_FEED_SHARDS, SCHEMA } from './schema';

export const feedUrlHash = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);
const shardOf = (vendor: string, url: string) =>
  parseInt(createHash('sha1').update(`${vendor}|${url}`).digest('hex').slice(0, 8), 16) % LISTING_FEED_SHARDS;

/** `updatedAt` is the listing's last_updated_by_service: a re-read that changes nothing keeps its place. */
export function listingFeedKeys(vendor: string, url: string, updatedAt: string): Record<'gsi2pk' | 'gsi2sk', string> {
  return SCHEMA.listing.gsi2.keys({ shard: shardOf(vendor, url), updatedAt, urlHash: feedUrlHash(url) });
}

/**
 * The marker a removed listing leaves in the feed (the listing item itself is deleted, which no
 * feed can show): same shard as the listing, so catch-up reads the two in the order they happened.
 */
export function listingGoneItem(vendor: string, url: string, goneAt: string): Record<string, string> {
  return {
    ...SCHEMA.listingGone.key({ vendor, urlHash: feedUrlHash(url) }),
    entity: SCHEMA.listingGone.entity,
    url,
    gone_at: goneAt,
    ...SCHEMA.listingGone.gsi2.keys({ shard: shardOf(vendor, url), updatedAt: goneAt, urlHash: feedUrlHash(url) }),
  };
}
