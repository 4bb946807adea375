// The crawl's vocabulary: methods (best first), listings and collections as discovered, the
// listing-page work items the state machine fans out, and the rules the API reports by.
import type { Execution } from '../executions/model';
import { uuidV5 } from '../extraction/ids';

/** Crawl methods, best first; a method whose fast path is refused falls back to the next. */
export type CrawlMethod = 'shopify-json' | 'woo-store-api' | 'sitemap' | 'html';

/** The four steps an operator sees (state names of statemachines/crawl.asl.json) and the API reports, in order. */
export const CRAWL_STEPS = [
  'Determining crawl method',
  'Discovering collections',
  'Analyzing collections',
  'Extracting listings',
] as const;

/** Listing pages per SQS message (one Map iteration). */
export const PAGES_PER_BATCH = 4;
/** Pages planned ahead for a paged source whose end is unknown (it ends at a short page). */
export const WAVE_PAGES = 8;
/** Hard bound on the pages one sequence may take, whatever the store claims. */
export const MAX_PAGES_PER_SEQUENCE = 5_000;
/** Hard bound on planning rounds (waves) of one crawl. */
export const MAX_WAVES = 2_000;
/** Collections one crawl reads (pages of collection lists are bounded by it too). */
export const MAX_COLLECTIONS = 2_000;

export const SHOPIFY_PAGE_SIZE = 250;
export const WOO_PAGE_SIZE = 100;

export interface ListingImage {
  id: string;
  url: string;
  width: number | null;
  height: number | null;
  position: number;
}

export interface ListingPrice {
  currency: string | null;
  current_value: number | null;
  compare_at_value: number | null;
}

/** A listing as a page shows it (store data only; service timestamps are added by the store). */
export interface FoundListing {
  url: string;
  /** As the store states it (card, markup, platform JSON, image title); null when it states none. */
  name: string | null;
  images: ListingImage[];
  price: ListingPrice;
}

/** A listing as stored and served. */
export interface Listing extends FoundListing {
  id: string;
  vendor: string;
  first_seen_by_service: string;
  last_updated_by_service: string;
}

/** A collection as discovered; products_total is exact once its pages were read. */
export interface FoundCollection {
  /** Normalised URL (see collectionKey), the collection's identity within the vendor. */
  key: string;
  url: string;
  title: string | null;
  /** What the store states (Shopify products_count, Woo count); null when it says nothing. */
  statedCount: number | null;
}

export interface Collection {
  id: string;
  url: string;
  products_total: number;
  last_updated_by_service: string;
}

/** Kinds of listing page a worker knows how to read ('product': product pages of sitemap listings, see below). */
export type PageKind = 'shopify-products' | 'woo-products' | 'sitemap' | 'html' | 'product';

/**
 * Product pages read per 'product' task. A sitemap states no price and rarely a name: the
 * listings a sitemap adds (no category page of the crawl lists them) have their own product
 * pages' structured data read, this many per task.
 */
export const PRODUCT_PAGES_PER_TASK = 10;
/** The product-page sequence that reads what sitemap sequence `seq` added. */
export const productSequenceOf = (seq: string) => `${seq}p`;
/**
 * The URLs of product-page task `n` of sequence `seq`, kept by the sitemap page that found them
 * as the crawl's member page of this pseudo-collection (no collection key starts with '#').
 */
export const productPagesKey = (seq: string, n: number) => `#product-pages/${seq}/${n}`;

/**
 * A paged source of listings: the store's product list (primary: its listings count as found)
 * or one collection's product list (its listings are the collection's members).
 */
export interface Sequence {
  id: string;
  kind: PageKind;
  /** Collection key when the pages list one collection's products. */
  collection: string | null;
  primary: boolean;
  /** Shopify/Woo: URL of page 1 without the page parameter; sitemap: the child sitemap; html: page 1. */
  url: string;
  pageSize: number;
  /** Exact page count when the store states it (or 1 for a sitemap child); else null. */
  knownPages: number | null;
  /** Pages planned so far (1..planned). */
  planned: number;
  /** First page of the last wave planned for it (the planner reads those pages' outcomes). */
  from: number;
  open: boolean;
  /** html: the next page's URL from the last page read (rel=next), when known. */
  next: string | null;
  /**
   * html: how page N's URL is made once page 1's next link showed it (?page=N or /page/N/); the
   * pages are then planned ahead like an API's instead of one link at a time.
   */
  template?: 'query' | 'path' | null;
  /** Pages the store's own counts suggest (Shopify: its largest collection): planned in the first wave. */
  hintPages?: number;
  /** product: the product pages it reads (the listings its sitemap added). */
  listings?: number;
  /** Sort prefix of its listings' discovery order (for an exact max_listings cut). */
  order: number;
}

/** One listing page to read: a work item of "Extracting listings". */
export interface PageTask {
  seq: string;
  n: number;
  url: string;
  kind: PageKind;
  collection: string | null;
  primary: boolean;
  pageSize: number;
  /** Discovery order of the page's first listing; its i-th listing gets order + i. */
  order: number;
}

export interface PageBatch {
  /** Stable per wave and position: a retried planner yields the same ids. */
  id: string;
  pages: PageTask[];
}

/** What a page gave (kept per page so the planner knows where each sequence ends). */
export interface PageOutcome {
  seq: string;
  n: number;
  /** Listings on the page (after de-duplication within the page). */
  count: number;
  /** The page was full (a paged source continues) . */
  full: boolean;
  /** html: the next page (rel=next or ?page=N+1 link), or null. */
  next: string | null;
  /** The page could not be read (refused, 4xx, 5xx after retries, unparsable). */
  failed: boolean;
}

export interface CrawlPlan {
  crawlId: string;
  vendor: string;
  displayName: string;
  origin: string;
  method: CrawlMethod;
  /** Why earlier methods were not used (fast path refused, disallowed...). */
  fallbacks: string[];
  currency: string | null;
  maxListings: number | null;
  countryCode: string;
  collections: FoundCollection[];
  sequences: Sequence[];
  wave: number;
  /** Child sitemaps listing collections (sitemap method). */
  collectionSitemaps: string[];
  /** Child sitemaps listing products (sitemap method). */
  productSitemaps: string[];
  /** A page failed or a batch was lost: the crawl is not complete, so nothing is removed. */
  incomplete: boolean;
  /** Woo: the product count the store states (X-WP-Total). */
  primaryCount?: number | null;
  /** The vendor had no listings (no catalog head) when this crawl began. */
  fresh?: boolean;
}

/** The store's identity in ids and listings: the vendor key's deterministic UUID per URL. */
export const listingId = (vendor: string, url: string) => uuidV5(`listing:${vendor}:${url}`);
export const collectionId = (vendor: string, key: string) => uuidV5(`collection:${vendor}:${key}`);

/**
 * A collection URL's identity: scheme, `www.`, trailing slash, query and fragment ignored, host
 * and path compared case-insensitively ("https://www.Shop.test/collections/Shirts/?page=2#x" and
 * "http://shop.test/collections/shirts" are one collection). Null when it is not a URL.
 */
export function collectionKey(raw: string): string | null {
  const text = String(raw ?? '').trim();
  if (!text) return null;
  // A scheme other than http(s) ("mailto:", "javascript:") is no collection; "host:port/..." is.
  const scheme = /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(text);
  if (scheme && !/^https?$/i.test(scheme[1])) return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  if (!host) return null;
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep the raw path
  }
  path = path.replace(/\/+$/, '').toLowerCase();
  return `${host}${path}`;
}

/** Credits of a crawl (DECISIONS): 1 at start, plus 1 per 100 listings found. */
export const crawlCredits = (listingsFound: number) => 1 + Math.floor(Math.max(0, listingsFound) / 100);

/** ISO 8601 with milliseconds and an explicit +00:00 offset (DECISIONS, listing timestamps). */
export const withOffset = (iso: string) => iso.replace(/Z$/, '+00:00');

/** A crawl execution's options as the steps and the API read them. */
export interface CrawlOptions {
  vendor: string;
  origin: string;
  maxListings: number | null;
  countryCode: string;
}

export function crawlOptionsOf(execution: Execution): CrawlOptions {
  const o = execution.options;
  const vendor = String(o.vendor ?? '');
  return {
    vendor,
    origin: typeof o.origin === 'string' ? o.origin : `https://${vendor}`,
    maxListings: typeof o.maxListings === 'number' ? o.maxListings : null,
    countryCode: typeof o.countryCode === 'string' ? o.countryCode : 'us',
  };
}
