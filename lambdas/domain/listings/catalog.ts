// Listings and collections as the API serves them (v1 POST and v2 GET share these), and the end
// of a crawl: the cut to max_listings, the removal of what a complete re-crawl no longer finds,
// exact collection totals, and the sparse anchors that make page N cost O(page size). Streams
// the vendor's items a page at a time (100,000 listings are held in memory as URLs only).
import { notFound } from '../errors';
import { vendorKey } from '../extraction/url';
import { pagination, type Pagination } from '../executions/service';
import { collectionKey, withOffset, type Collection, type Listing } from '../crawl/model';
import { ANCHOR_EVERY, type CatalogHead, type ListingStore, type StoredCollection } from '../../ports/listings';
import type { VendorStore } from '../../ports/vendors';

/** Union of several collections (v1 collection_urls) reads each one whole: bounded per collection. */
const MAX_UNION_ITEMS = 200_000;

export interface CatalogDeps {
  store: ListingStore;
  vendors: VendorStore;
  now?: () => Date;
}

export interface RebuildRequest {
  vendor: string;
  displayName: string;
  crawlId: string;
  /** Every page was read: listings, members and collections this crawl did not see are removed. */
  complete: boolean;
  /** Keep exactly this many of the crawl's listings (lowest discovery order first). */
  maxListings: number | null;
}

export interface RebuildResult {
  listings_total: number;
  /** Listings this crawl found (after the max_listings cut). */
  listings_found: number;
  collections_total: number;
  created: number;
  removed: number;
}

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

export type Catalog = ReturnType<typeof createCatalog>;

/** The vendor key of what a caller sent (host or URL); the text itself when it is no host. */
export const vendorOf = (raw: string) => vendorKey(raw) ?? raw.trim().toLowerCase();

export function createCatalog(deps: CatalogDeps) {
  const { store } = deps;
  const now = deps.now ?? (() => new Date());

  async function knownHead(vendor: string): Promise<CatalogHead | null> {
    const head = await store.head(vendor);
    if (head) return head;
    if (await deps.vendors.get(vendor)) return null;
    throw notFound(`Vendor ${vendor} is not known to the service; start a crawl of it first`);
  }

  /**
   * Step 1 of a rebuild, max_listings: keep the first N the crawl found (by discovery order);
   * listings it created beyond them are removed, older ones stay as they were listed before.
   * Returns the URLs cut (created or not), which the sweep no longer counts as found.
   */
  async function trimToMaxListings(request: RebuildRequest): Promise<Set<string>> {
    const { vendor, crawlId } = request;
    const trimmed = new Set<string>();
    if (request.maxListings === null) return trimmed;
    const mine: Array<{ order: number; url: string; created: boolean }> = [];
    for await (const page of store.listingPages(vendor)) {
      for (const l of page)
        if (l.crawl === crawlId) mine.push({ order: l.order, url: l.url, created: l.first_crawl === crawlId });
    }
    if (mine.length > request.maxListings) {
      mine.sort((a, b) => a.order - b.order || (a.url < b.url ? -1 : 1));
      const extra = mine.slice(request.maxListings);
      for (const e of extra) trimmed.add(e.url);
      await store.removeListings(
        vendor,
        extra.filter((e) => e.created).map((e) => e.url),
      );
    }
    return trimmed;
  }

  /**
   * Step 2, one pass over the listings in URL order: a complete crawl removes what it did not
   * see; every ANCHOR_EVERY-th listing kept becomes an anchor of the idle slot.
   */
  async function sweepListings(request: RebuildRequest, trimmed: Set<string>) {
    const { vendor, crawlId } = request;
    const present = new Set<string>();
    const anchors: string[] = [];
    let found = 0;
    let created = 0;
    let removed = 0;
    for await (const page of store.listingPages(vendor)) {
      const stale: string[] = [];
      for (const l of page) {
        if (trimmed.has(l.url) && l.first_crawl === crawlId) continue; // removed in step 1
        if (request.complete && l.crawl !== crawlId) {
          stale.push(l.url);
          continue;
        }
        if (l.crawl === crawlId && !trimmed.has(l.url)) {
          found++;
          if (l.first_crawl === crawlId) created++;
        }
        if (present.size % ANCHOR_EVERY === 0) anchors.push(l.cursor);
        present.add(l.url);
      }
      if (stale.length) {
        await store.removeListings(vendor, stale);
        removed += stale.length;
      }
    }
    return { present, anchors, found, created, removed };
  }

  /**
   * Step 3, collections: the members this crawl's pages listed (plus, when the crawl did not
   * finish, those listed before) that are listings, in URL order, written to the idle `slot`;
   * products_total is exactly what paging by the collection shows. A complete crawl drops the
   * collections it did not see. `sizes` (chunk counts per slot and collection) is updated.
   */
  async function rebuildCollections(
    request: RebuildRequest,
    head: CatalogHead | null,
    slot: 'a' | 'b',
    sizes: Record<string, number>,
    present: Set<string>,
    stamp: string,
  ): Promise<{ collectionTotals: Record<string, number>; survivors: StoredCollection[] }> {
    const { vendor, crawlId } = request;
    const collectionTotals: Record<string, number> = {};
    const survivors: StoredCollection[] = [];
    const gone: StoredCollection[] = [];
    for (const collection of await store.collections(vendor)) {
      if (request.complete && collection.crawl !== crawlId) gone.push(collection);
      else survivors.push(collection);
    }
    for (const collection of survivors) {
      const members = new Set(await store.crawlMembers(crawlId, collection.key));
      const liveChunks = head ? (head.sizes[`${head.slot}#${collection.key}`] ?? 0) : 0;
      if (!request.complete && head && liveChunks)
        for (const url of await store.memberChunks(vendor, head.slot, collection.key, liveChunks)) members.add(url);
      const urls = [...members].filter((url) => present.has(url)).sort();
      await store.putMemberChunks(vendor, slot, collection.key, urls, sizes[`${slot}#${collection.key}`] ?? 0);
      sizes[`${slot}#${collection.key}`] = Math.ceil(urls.length / ANCHOR_EVERY);
      collectionTotals[collection.key] = urls.length;
      collection.products_total = urls.length;
      collection.last_updated_by_service = stamp;
    }
    await store.putCollections(vendor, survivors);
    for (const collection of gone) {
      for (const s of ['a', 'b'] as const) {
        await store.putMemberChunks(vendor, s, collection.key, [], sizes[`${s}#${collection.key}`] ?? 0);
        delete sizes[`${s}#${collection.key}`];
      }
    }
    await store.removeCollections(
      vendor,
      gone.map((c) => c.key),
    );
    return { collectionTotals, survivors };
  }

  return {
    /** The end of a crawl (completed, cancelled or failed): what it found becomes what is served. */
    async rebuild(request: RebuildRequest): Promise<RebuildResult> {
      const { vendor, crawlId } = request;
      const stamp = now().toISOString();
      const trimmed = await trimToMaxListings(request);
      // The sweep and the collections are written to the slot readers are not on.
      const head = await store.head(vendor);
      const slot: 'a' | 'b' = head?.slot === 'a' ? 'b' : 'a';
      const sizes: Record<string, number> = { ...(head?.sizes ?? {}) };
      const { present, anchors, found, created, removed } = await sweepListings(request, trimmed);
      const total = present.size;
      await store.putAnchors(vendor, slot, '', anchors, sizes[`${slot}#`] ?? 0);
      sizes[`${slot}#`] = anchors.length;
      const { collectionTotals, survivors } = await rebuildCollections(request, head, slot, sizes, present, stamp);

      // 4. Flip: readers move to the new slot in one write.
      await store.putHead({
        vendor,
        slot,
        total,
        sizes,
        collections: collectionTotals,
        crawl: crawlId,
        updated_at: stamp,
        displayName: request.displayName,
      });
      if (total > 0 || found > 0) {
        await deps.vendors.recordListings({
          vendor,
          displayName: request.displayName,
          listings: total,
          updatedAt: stamp,
        });
      }
      return { listings_total: total, listings_found: found, collections_total: survivors.length, created, removed };
    },

    /** A vendor's listings, optionally only those of some collections (URLs normalised). */
    async listings(request: {
      vendor: string;
      page: number;
      pageSize: number;
      collectionUrls?: readonly string[];
    }): Promise<Page<Listing>> {
      const vendor = vendorOf(request.vendor);
      const head = await knownHead(vendor);
      const { page, pageSize } = request;
      const offset = (page - 1) * pageSize;
      if (!head) return { items: [], pagination: pagination(page, pageSize, 0) };
      const keys = [
        ...new Set(
          (request.collectionUrls ?? []).map((url) => collectionKey(url)).filter((k): k is string => k !== null),
        ),
      ];
      if (request.collectionUrls?.length && !keys.length)
        return { items: [], pagination: pagination(page, pageSize, 0) };
      if (keys.length <= 1) {
        const name = keys[0] ?? '';
        // Own keys only: a collection URL like "__proto__" must not read Object.prototype.
        const total = name ? (Object.hasOwn(head.collections, name) ? head.collections[name]! : 0) : head.total;
        const items =
          offset < total ? await store.readPage(vendor, head, name, offset, Math.min(pageSize, total - offset)) : [];
        return { items, pagination: pagination(page, pageSize, total) };
      }
      // Several collections: their union in URL order (each collection's index read whole).
      const union = new Map<string, Listing>();
      for (const key of keys) {
        const size = Math.min(Object.hasOwn(head.collections, key) ? head.collections[key]! : 0, MAX_UNION_ITEMS);
        if (!size) continue;
        for (let offset = 0; offset < size; offset += 100)
          for (const l of await store.readPage(vendor, head, key, offset, Math.min(100, size - offset)))
            union.set(l.url, l);
      }
      const all = [...union.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
      return { items: all.slice(offset, offset + pageSize), pagination: pagination(page, pageSize, all.length) };
    },

    /** A vendor's collections, highest products_total first (then by URL). */
    async collections(request: { vendor: string; page: number; pageSize: number }): Promise<Page<Collection>> {
      const vendor = vendorOf(request.vendor);
      const head = await knownHead(vendor);
      const { page, pageSize } = request;
      if (!head) return { items: [], pagination: pagination(page, pageSize, 0) };
      const all = (await store.collections(vendor))
        .filter((c) => c.key in head.collections)
        .map((c) => ({ ...c, products_total: Object.hasOwn(head.collections, c.key) ? head.collections[c.key]! : 0 }))
        .sort((a, b) => b.products_total - a.products_total || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
      const items = all.slice((page - 1) * pageSize, page * pageSize).map((c) => ({
        id: c.id,
        url: c.url,
        products_total: c.products_total,
        // DECISIONS: every last_updated_by_service carries +00:00 (stored, like listings', in Z).
        last_updated_by_service: withOffset(c.last_updated_by_service),
      }));
      return { items, pagination: pagination(page, pageSize, all.length) };
    },

    /** URLs of the vendor's listings, first `limit` in index order (vendor-mode extraction). */
    async listingUrls(vendor: string, limit: number): Promise<{ total: number; urls: string[] }> {
      const head = await store.head(vendor);
      if (!head) return { total: 0, urls: [] };
      const urls: string[] = [];
      for (let offset = 0; offset < Math.min(limit, head.total); offset += 100) {
        const items = await store.readPage(
          vendor,
          head,
          '',
          offset,
          Math.min(100, limit - offset, head.total - offset),
        );
        urls.push(...items.map((l) => l.url));
        if (!items.length) break;
      }
      return { total: head.total, urls };
    },
  };
}
