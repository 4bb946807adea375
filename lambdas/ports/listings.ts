// Where listings, collections and a crawl's working state live. The DynamoDB adapter keeps one
// item per vendor + listing URL (written idempotently: the same page read twice writes the same
// item) in a partition sorted by URL, and sparse anchors rebuilt when a crawl ends (the sort key
// of every ANCHOR_EVERY-th item), so page N of a vendor is one GetItem and one Query of at most
// ANCHOR_EVERY + page_size items, whatever N is.
import type { CrawlPlan, FoundListing, Listing, PageOutcome } from '../domain/crawl/model';
import type { Execution } from '../domain/executions/model';

/** One collection page's product URLs as a crawl read it. */
export interface MemberPage {
  collection: string;
  seq: string;
  n: number;
  urls: readonly string[];
}

/** Positions between two anchors: bounds what a page read may skip. */
export const ANCHOR_EVERY = 100;

/** What the end of a crawl needs of a stored listing (read without its data). */
export interface ListingMark {
  url: string;
  /** Opaque position of the item in its partition (for anchors). */
  cursor: string;
  crawl: string;
  order: number;
  first_crawl: string;
}

export interface StoredListing extends Listing {
  /** Opaque position of the item in its partition (for anchors). */
  cursor: string;
  /** Hash of the store's data (name, images, price): last_updated_by_service moves when it changes. */
  hash: string;
  /** The crawl that last saw it, and its discovery order in that crawl. */
  crawl: string;
  order: number;
  /** The crawl that first saw it. */
  first_crawl: string;
}

export interface StoredCollection {
  key: string;
  id: string;
  url: string;
  title: string | null;
  statedCount: number | null;
  /** Exact count of its listings as of the last index rebuild. */
  products_total: number;
  last_updated_by_service: string;
  crawl: string;
}

/** The vendor's catalog head: which index slot is live and how large each index is. */
export interface CatalogHead {
  vendor: string;
  /** Live slot of the positional index ('a' | 'b'). */
  slot: 'a' | 'b';
  /** Listings in the live index. */
  total: number;
  /** Anchors (listings, name '') or member chunks (a collection key) per index: `<slot>#<name>` -> count. */
  sizes: Record<string, number>;
  /** The store's name as the crawl found it (listings' `vendor`). */
  displayName: string;
  /** Collection key -> listings in its live index. */
  collections: Record<string, number>;
  /** The crawl whose end built the live index. */
  crawl: string;
  updated_at: string;
}

export interface ListingStore {
  // ---- writes of a running crawl ----
  /**
   * Upserts listings seen by `crawl`: a new URL gets first_seen = last_updated = now; a known one
   * keeps first_seen and moves last_updated only when its data changed. Returns how many were new.
   */
  upsert(
    vendor: string,
    displayName: string,
    crawl: string,
    items: ReadonlyArray<{ listing: FoundListing; order: number }>,
    now: string,
    /** The vendor had no listing when the crawl began: what it finds is not announced as new to the change feed. */
    options?: { firstCrawl?: boolean },
  ): Promise<{ created: number }>;
  /** One collection page's product URLs as `crawl` read it (one item per page: a re-read overwrites it). */
  putMemberPage(crawl: string, collection: string, seq: string, n: number, urls: readonly string[]): Promise<void>;
  putCollections(vendor: string, collections: readonly StoredCollection[]): Promise<void>;
  /**
   * What a batch of listing pages leaves besides its listings: its collection pages' URLs
   * (as putMemberPage) and its page outcomes (as putOutcomes), together in batch writes of 25.
   */
  putPageResults(crawlId: string, members: readonly MemberPage[], outcomes: readonly PageOutcome[]): Promise<void>;

  // ---- a crawl's working state ----
  getPlan(crawlId: string): Promise<CrawlPlan | null>;
  /** The plan and the crawl's execution item (null when missing) in one read (one BatchGet). */
  getPlanAndExecution(crawlId: string): Promise<{ plan: CrawlPlan | null; execution: Execution | null }>;
  putPlan(plan: CrawlPlan): Promise<void>;
  putOutcomes(crawlId: string, outcomes: readonly PageOutcome[]): Promise<void>;
  getOutcomes(crawlId: string, pages: ReadonlyArray<{ seq: string; n: number }>): Promise<PageOutcome[]>;

  /** Vendor-mode extractions waiting for a crawl (settled when it ends). */
  addWaiter(crawlId: string, executionId: string): Promise<void>;
  waiters(crawlId: string): Promise<string[]>;

  // ---- the end of a crawl: streaming passes over the vendor's items ----
  /** Every listing of the vendor in URL order, a page at a time (marks only: no names, images or prices). */
  listingPages(vendor: string): AsyncIterable<ListingMark[]>;
  removeListings(vendor: string, urls: readonly string[]): Promise<void>;
  /** The stored listings of these URLs (missing ones left out). */
  getListings(vendor: string, urls: readonly string[]): Promise<StoredListing[]>;
  /** Every URL the crawl's pages of a collection listed (any order, duplicates possible). */
  crawlMembers(crawl: string, collection: string): Promise<string[]>;
  /** A collection's members as the live index holds them (in order), from `chunks` chunks of ANCHOR_EVERY. */
  memberChunks(vendor: string, slot: 'a' | 'b', collection: string, chunks: number): Promise<string[]>;
  /** Writes a collection's members in chunks of ANCHOR_EVERY into a slot; deletes chunks beyond them. */
  putMemberChunks(
    vendor: string,
    slot: 'a' | 'b',
    collection: string,
    urls: readonly string[],
    previousChunks: number,
  ): Promise<void>;
  collections(vendor: string): Promise<StoredCollection[]>;
  removeCollections(vendor: string, keys: readonly string[]): Promise<void>;
  /** Replaces the anchors of an index (name '' = every listing, else a collection): cursors of positions 0, ANCHOR_EVERY, 2·ANCHOR_EVERY... */
  putAnchors(
    vendor: string,
    slot: 'a' | 'b',
    name: string,
    cursors: readonly string[],
    previousCount: number,
  ): Promise<void>;
  putHead(head: CatalogHead): Promise<void>;

  // ---- reads behind the API ----
  head(vendor: string): Promise<CatalogHead | null>;
  /** `limit` listings from position `offset` of an index: an anchor GetItem and one Query (plus one BatchGet for a collection). */
  readPage(vendor: string, head: CatalogHead, name: string, offset: number, limit: number): Promise<Listing[]>;
}
