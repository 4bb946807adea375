// Ground truth of the crawl stores: which products a store lists, its collections and their exact
// members. Membership is arithmetic (collection k = products start, start+stride, ... size of them),
// so a store of 100,000 products answers page N of any collection in O(page size) and holds nothing
// but the few products a test removed or changed.
import { buildStore, type Markup, type SimProduct, type StoreModel, type StoreSpec } from './catalog';

/** How a crawl store exposes its catalog (the crawl methods, best first). */
export type CrawlKind = 'shopify' | 'woocommerce' | 'sitemap' | 'html';

/** What is special about a crawl store. */
export type CrawlTwist =
  | 'none'
  /** robots.txt forbids the platform API (the fast path); sitemaps are allowed. */
  | 'robots-forbid-api'
  /** The platform JSON answers 401/404; sitemaps and HTML work. */
  | 'api-locked'
  /** The first request of every JSON listing URL answers 429 with Retry-After. */
  | 'throttled'
  /** Past the last page, Shopify JSON repeats the last page instead of answering an empty one (dedupe by id to stop). */
  | 'repeating-pages'
  /** HTML categories page as /page/N/ with numbered links only: no rel=next, no "Next" label. */
  | 'numbered-pages'
  /**
   * The sitemaps list products that no category page shows (the last fifth of the catalog); their
   * product pages state name and price in JSON-LD, microdata or og: meta, or in none of them.
   */
  | 'uncovered-products';

export interface CrawlStoreSpec extends StoreSpec {
  kind: CrawlKind;
  twist: CrawlTwist;
  /** Products when `storeSizes` does not say otherwise. */
  defaultSize: number;
  /** Products per HTML collection page. */
  htmlPageSize: number;
  /** URLs per product sitemap child. */
  sitemapChildSize: number;
}

export const CRAWL_STORE_SPECS: CrawlStoreSpec[] = [
  {
    host: 'shopify-collections.test',
    name: 'Shopify Collections',
    flavor: 'shopify',
    markup: 'jsonld',
    kind: 'shopify',
    twist: 'none',
    defaultSize: 1200,
    htmlPageSize: 48,
    sitemapChildSize: 5000,
  },
  {
    host: 'shopify-huge.test',
    name: 'Shopify Huge',
    flavor: 'shopify',
    markup: 'jsonld',
    kind: 'shopify',
    twist: 'none',
    defaultSize: 100_000,
    htmlPageSize: 48,
    sitemapChildSize: 5000,
  },
  {
    host: 'shopify-locked.test',
    name: 'Shopify Locked',
    flavor: 'shopify',
    markup: 'jsonld',
    kind: 'shopify',
    twist: 'api-locked',
    defaultSize: 300,
    htmlPageSize: 48,
    sitemapChildSize: 5000,
  },
  {
    host: 'shopify-robots.test',
    name: 'Shopify Robots',
    flavor: 'shopify',
    markup: 'jsonld',
    kind: 'shopify',
    twist: 'robots-forbid-api',
    defaultSize: 300,
    htmlPageSize: 48,
    sitemapChildSize: 5000,
  },
  {
    host: 'shopify-throttled.test',
    name: 'Shopify Throttled',
    flavor: 'shopify',
    markup: 'jsonld',
    kind: 'shopify',
    twist: 'throttled',
    defaultSize: 600,
    htmlPageSize: 48,
    sitemapChildSize: 5000,
  },
  {
    host: 'shopify-repeating.test',
    name: 'Shopify Repeating',
    flavor: 'shopify',
    markup: 'jsonld',
    kind: 'shopify',
    twist: 'repeating-pages',
    defaultSize: 600,
    htmlPageSize: 48,
    sitemapChildSize: 5000,
  },
  {
    host: 'woo-categories.test',
    name: 'Woo Categories',
    flavor: 'woocommerce',
    markup: 'jsonld',
    kind: 'woocommerce',
    twist: 'none',
    defaultSize: 450,
    htmlPageSize: 24,
    sitemapChildSize: 1000,
  },
  {
    host: 'woo-robots.test',
    name: 'Woo Robots',
    flavor: 'woocommerce',
    markup: 'jsonld',
    kind: 'woocommerce',
    twist: 'robots-forbid-api',
    defaultSize: 250,
    htmlPageSize: 24,
    sitemapChildSize: 1000,
  },
  {
    host: 'sitemap-only.test',
    name: 'Sitemap Only',
    flavor: 'generic',
    markup: 'jsonld',
    kind: 'sitemap',
    twist: 'none',
    defaultSize: 1200,
    htmlPageSize: 48,
    sitemapChildSize: 500,
  },
  {
    host: 'sitemap-uncovered.test',
    name: 'Sitemap Uncovered',
    flavor: 'generic',
    markup: 'jsonld',
    kind: 'sitemap',
    twist: 'uncovered-products',
    defaultSize: 120,
    htmlPageSize: 24,
    sitemapChildSize: 50,
  },
  {
    host: 'html-only.test',
    name: 'HTML Only',
    flavor: 'generic',
    markup: 'jsonld',
    kind: 'html',
    twist: 'none',
    defaultSize: 300,
    htmlPageSize: 24,
    sitemapChildSize: 500,
  },
  {
    host: 'html-numbered.test',
    name: 'HTML Numbered',
    flavor: 'generic',
    markup: 'jsonld',
    kind: 'html',
    twist: 'numbered-pages',
    defaultSize: 300,
    htmlPageSize: 20,
    sitemapChildSize: 500,
  },
];

/** Products start, start + stride, ... (size of them) before removals. */
interface Rule {
  start: number;
  stride: number;
  size: number;
}

/** The collections of a store of n products: many sizes, overlapping, together covering every product. */
function collectionPlan(n: number): Array<{ handle: string; title: string; rule: Rule }> {
  const homeStart = Math.floor((n * 40) / 100);
  const staffStart = n >= 600 ? 100 : 0;
  return [
    { handle: 'tops', title: 'Tops', rule: { start: 0, stride: 1, size: Math.ceil((n * 55) / 100) } },
    { handle: 'home-living', title: 'Home & Living', rule: { start: homeStart, stride: 1, size: n - homeStart } },
    { handle: 'sale', title: 'Sale', rule: { start: 1, stride: 3, size: n > 1 ? Math.ceil((n - 1) / 3) : 0 } },
    { handle: 'bestsellers', title: 'Bestsellers', rule: { start: 0, stride: 10, size: Math.ceil(n / 10) } },
    {
      handle: 'new-arrivals',
      title: 'New Arrivals',
      rule: { start: n - Math.min(37, n), stride: 1, size: Math.min(37, n) },
    },
    // Exactly one full Shopify page when the store is big enough: the next page is empty.
    {
      handle: 'staff-picks',
      title: 'Staff Picks',
      rule: { start: staffStart, stride: 2, size: Math.min(250, Math.ceil((n - staffStart) / 2)) },
    },
    { handle: 'gift-ideas', title: 'Gift Ideas', rule: { start: Math.floor(n / 2), stride: 1, size: Math.min(1, n) } },
    { handle: 'archive', title: 'Archive', rule: { start: 0, stride: 1, size: 0 } },
  ];
}

const inRule = (rule: Rule, index: number) =>
  index >= rule.start && (index - rule.start) % rule.stride === 0 && (index - rule.start) / rule.stride < rule.size;

export interface SimCollection {
  /** Numeric id (Shopify collection id, WooCommerce category id). */
  id: number;
  handle: string;
  title: string;
  /** Absolute https URL of the collection page, as the store links it. */
  url: string;
  /** Products the collection lists now (removed products excluded). */
  size(): number;
  /** Indexes of the listed products in store order, paged. */
  productIndexes(offset?: number, limit?: number): number[];
  /** Absolute product URLs of every listed product (materialises the list: for tests). */
  productUrls(): string[];
  has(index: number): boolean;
}

export interface ProductChange {
  /** New shown price (variants shift by the same amount). */
  price?: number;
  title?: string;
  /** Positions (in `variants`) of variants that sell out. */
  soldOut?: number[];
}

export interface CrawlCatalog {
  host: string;
  kind: CrawlKind;
  twist: CrawlTwist;
  store: StoreModel;
  /** Every collection the store exposes, in the store's own order (not by size). */
  collections: SimCollection[];
  collection(handle: string): SimCollection | undefined;
  /** Products the store lists now: exactly what a complete crawl must find. */
  listingCount(): number;
  listingIndexes(offset?: number, limit?: number): number[];
  /** Absolute product URLs the store lists now, paged (defaults to all: for tests). */
  listingUrls(options?: { offset?: number; limit?: number }): string[];
  isListed(index: number): boolean;
  collectionsOf(index: number): SimCollection[];
  /** Takes products off the store: pages 404, APIs, collections and sitemaps leave them out. */
  remove(indexes: number[]): void;
  /** Changes what the store shows for a product (price, title); its updated_at moves. */
  change(index: number, change: ProductChange): void;
  /** Back to the generated catalog (no removals, no changes). */
  reset(): void;
  /** How often a product was changed (0 = as generated); also its updated_at day offset. */
  revision(index: number): number;
  /** robots.txt Disallow patterns for every user agent. */
  disallow: string[];
  /** True when robots.txt forbids the path (with query). */
  isDisallowed(pathAndQuery: string): boolean;
  htmlPageSize: number;
  sitemapChildSize: number;
  /** The structured data product i's own page carries. */
  productMarkup(index: number): Markup;
}

/** Product pages of the uncovered products cycle through these (the last states nothing). */
const UNCOVERED_MARKUP: Markup[] = ['jsonld', 'microdata', 'opengraph', 'dom'];

const ROBOTS_COMMON = ['/cart', '/checkout', '/account'];

function disallowFor(spec: CrawlStoreSpec): string[] {
  const rules = [...ROBOTS_COMMON];
  // Shopify's own robots.txt carries wildcard rules like these.
  if (spec.kind === 'shopify') rules.push('/collections/*sort_by*', '/collections/*+*', '/*/collections/*filter*');
  if (spec.twist === 'robots-forbid-api') {
    if (spec.kind === 'shopify') rules.push('/products.json', '/collections.json', '/collections/*/products.json');
    if (spec.kind === 'woocommerce') rules.push('/wp-json/');
  }
  return rules;
}

/** robots.txt pattern match: prefix, `*` any run, `$` end (RFC 9309). */
export function robotsPatternMatches(pattern: string, pathAndQuery: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const regex = new RegExp(
    `^${body
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}${anchored ? '$' : ''}`,
  );
  return regex.test(pathAndQuery);
}

/** The store model and ground truth of one crawl store of `size` products. */
export function buildCrawlStore(spec: CrawlStoreSpec, size: number, seed: number): CrawlCatalog {
  const store = buildStore(spec, size, seed);
  const base = `https://${spec.host}`;
  const removed = new Set<number>();
  let removedSorted: number[] = [];
  const changes = new Map<number, ProductChange & { revision: number }>();
  const generated = store.product.bind(store);

  // Changed products are copies of the generated one with the change applied.
  store.product = (index: number): SimProduct => {
    const product = generated(index);
    const change = changes.get(index);
    if (!change) return product;
    const copy: SimProduct = structuredClone(product);
    if (change.title) copy.title = change.title;
    if (change.price !== undefined) {
      const delta = Math.round((change.price - product.price) * 100) / 100;
      for (const variant of copy.variants) {
        variant.price = Math.round((variant.price + delta) * 100) / 100;
        if (variant.compareAt !== null && variant.compareAt <= variant.price) variant.compareAt = null;
      }
      copy.price = Math.min(...copy.variants.map((v) => v.price));
      copy.compareAt = copy.variants.find((v) => v.price === copy.price)?.compareAt ?? null;
    }
    for (const position of change.soldOut ?? []) if (copy.variants[position]) copy.variants[position].available = false;
    if (change.soldOut) copy.available = copy.variants.some((v) => v.available);
    return copy;
  };

  const collectionPath = (handle: string) =>
    spec.kind === 'woocommerce'
      ? `/product-category/${handle}/`
      : spec.kind === 'html'
        ? `/category/${handle}`
        : `/collections/${handle}`;

  /** Positions (k) of the removed products that the rule holds, ascending. */
  const removedPositions = (rule: Rule) =>
    removedSorted.filter((i) => inRule(rule, i)).map((i) => (i - rule.start) / rule.stride);

  const liveSize = (rule: Rule) => rule.size - (removed.size ? removedPositions(rule).length : 0);

  /** The live members offset..offset+limit: O(limit + removed products). */
  function liveMembers(rule: Rule, offset = 0, limit = Number.MAX_SAFE_INTEGER): number[] {
    const skipped = removed.size ? removedPositions(rule) : [];
    let position = Math.max(0, offset);
    for (const p of skipped) {
      if (p <= position) position++;
      else break;
    }
    const out: number[] = [];
    const gone = new Set(skipped);
    for (; position < rule.size && out.length < limit; position++) {
      if (!gone.has(position)) out.push(rule.start + position * rule.stride);
    }
    return out;
  }

  const everything: Rule = { start: 0, stride: 1, size };
  // The uncovered-products store's categories show only its first four fifths.
  const covered = spec.twist === 'uncovered-products' ? size - Math.max(1, Math.round(size / 5)) : size;
  const collections: SimCollection[] = collectionPlan(covered).map(({ handle, title, rule }, k) => ({
    id: spec.kind === 'woocommerce' ? 15 + k : 400_000_000 + k,
    handle,
    title,
    url: `${base}${collectionPath(handle)}`,
    size: () => liveSize(rule),
    productIndexes: (offset, limit) => liveMembers(rule, offset, limit),
    productUrls: () => liveMembers(rule).map((i) => store.productUrl(i)),
    has: (index) => inRule(rule, index) && !removed.has(index),
  }));
  // Layout links ("Shop") point at the biggest collection, never at a page outside the catalog.
  store.nonProductUrls.category = collections[0].url;

  const disallow = disallowFor(spec);
  const catalog: CrawlCatalog = {
    host: spec.host,
    kind: spec.kind,
    twist: spec.twist,
    store,
    collections,
    collection: (handle) => collections.find((c) => c.handle === handle),
    listingCount: () => size - removed.size,
    listingIndexes: (offset, limit) => liveMembers(everything, offset, limit),
    listingUrls: ({ offset, limit } = {}) => liveMembers(everything, offset, limit).map((i) => store.productUrl(i)),
    isListed: (index) => Number.isInteger(index) && index >= 0 && index < size && !removed.has(index),
    collectionsOf: (index) => collections.filter((c) => c.has(index)),
    remove(indexes) {
      for (const index of indexes) if (index >= 0 && index < size) removed.add(index);
      removedSorted = [...removed].sort((a, b) => a - b);
    },
    change(index, change) {
      const revision = (changes.get(index)?.revision ?? 0) + 1;
      changes.set(index, { ...changes.get(index), ...change, revision });
    },
    reset() {
      removed.clear();
      removedSorted = [];
      changes.clear();
    },
    revision: (index) => changes.get(index)?.revision ?? 0,
    disallow,
    isDisallowed: (pathAndQuery) => disallow.some((pattern) => robotsPatternMatches(pattern, pathAndQuery)),
    htmlPageSize: spec.htmlPageSize,
    sitemapChildSize: spec.sitemapChildSize,
    productMarkup: (index) =>
      index >= covered ? UNCOVERED_MARKUP[(index - covered) % UNCOVERED_MARKUP.length] : spec.markup,
  };
  return catalog;
}
