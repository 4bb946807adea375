// The crawl's network side over the PageFetcher port (which already obeys robots.txt, per-host
// politeness and Retry-After): which method applies, which collections exist, and what one
// listing page holds. Every fast path is probed before it is trusted; one that is refused (401,
// 403, 404, disallowed by robots.txt, not the expected JSON) falls back to the next method.
import { FetchFailure, type FetchedPage, type PageFetcher } from '../../ports/fetcher';
import { detectPlatform } from '../extraction/platform';
import { parseRobots } from '../extraction/robots';
import {
  collectionKey,
  MAX_COLLECTIONS,
  SHOPIFY_PAGE_SIZE,
  WOO_PAGE_SIZE,
  type CrawlMethod,
  type FoundCollection,
  type FoundListing,
  type PageOutcome,
  type PageTask,
} from './model';
import {
  classifySitemaps,
  currencyFromHtml,
  isProductPage,
  readCategoryLinks,
  readHtmlListingPage,
  readProductMarkup,
  readSitemap,
  type ListingData,
  shopifyCollections,
  shopifyListings,
  wooCategories,
  wooListings,
} from './parse';

const JSON_ACCEPT = 'application/json,text/javascript;q=0.9,*/*;q=0.5';
const SITEMAP_ACCEPT =
  'application/xml,text/xml,application/gzip,application/x-gzip,application/octet-stream,text/plain;q=0.8,*/*;q=0.5';
/** Nested sitemap indexes followed at most this deep (the protocol allows one level). */
const MAX_SITEMAP_DEPTH = 2;
const MAX_SITEMAPS = 1_000;

export interface MethodChoice {
  method: CrawlMethod;
  /** The storefront's origin after redirects (https://www.shop.test when shop.test redirects there). */
  origin: string;
  /** One line per method that was tried and refused, in order. */
  fallbacks: string[];
  displayName: string | null;
  currency: string | null;
  /** Woo: the store's product count (X-WP-Total); Shopify: unknown. */
  primaryCount: number | null;
  productSitemaps: string[];
  collectionSitemaps: string[];
  /** html: category pages linked from the storefront. */
  categories: FoundCollection[];
}

/** Why nothing can be crawled (robots.txt forbids everything, the store does not answer). */
export class CrawlRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CrawlRefused';
  }
}

/** `transient`: worth another try later (timeout, network, 5xx after the fetcher's own retries). */
type Attempt =
  | { page: FetchedPage; refused: null; transient?: undefined }
  | { page: null; refused: string; transient: boolean };

/** A failure that may pass is no answer: the step fails and its Retry tries again. */
function settled(got: Attempt): Attempt {
  if (!got.page && got.transient)
    throw new Error(`The store did not answer (${got.refused}); the step will be retried`);
  return got;
}

async function attempt(fetcher: PageFetcher, url: string, countryCode: string, accept?: string): Promise<Attempt> {
  try {
    const page = await fetcher.fetch({ url, countryCode, ...(accept ? { headers: { accept } } : {}) });
    if (page.status >= 400)
      return { page: null, refused: `${new URL(url).pathname} answered ${page.status}`, transient: false };
    return { page, refused: null };
  } catch (error) {
    if (error instanceof FetchFailure) {
      const why =
        error.kind === 'robots_disallowed'
          ? 'is disallowed by robots.txt'
          : error.kind === 'bot_wall'
            ? `refused access${error.details.status ? ` (${error.details.status})` : ''}`
            : `failed (${error.kind}${error.details.status ? ` ${error.details.status}` : ''})`;
      const transient =
        error.kind === 'timeout' ||
        error.kind === 'network' ||
        (error.kind === 'http_status' && (error.details.status ?? 500) >= 429);
      return { page: null, refused: `${new URL(url).pathname} ${why}`, transient };
    }
    throw error;
  }
}

function siteName(html: string): string | null {
  const og = /<meta[^>]+property=["']og:site_name["'][^>]+content=["']([^"']{1,120})["']/i.exec(html);
  if (og) return og[1].trim();
  const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(html);
  if (!title) return null;
  // "Page – Store name": the store's name is usually the last part.
  const parts = title[1]
    .split(/\s[|–—-]\s/)
    .map((s) => s.trim())
    .filter(Boolean);
  return parts[parts.length - 1] ?? null;
}

/** Reads a sitemap (gzip or not); null when it cannot be fetched or is not a sitemap. */
async function fetchSitemap(fetcher: PageFetcher, url: string, countryCode: string) {
  const got = await attempt(fetcher, url, countryCode, SITEMAP_ACCEPT);
  if (!got.page) return null;
  const read = readSitemap(got.page.bodyBytes ?? got.page.body, got.page.finalUrl);
  return read.type ? read : null;
}

/** Product and collection child sitemaps under the robots.txt sitemaps (or /sitemap.xml). */
async function findSitemaps(fetcher: PageFetcher, roots: string[], countryCode: string) {
  const products: string[] = [];
  const collections: string[] = [];
  const seen = new Set<string>();
  let queue = roots.map((url) => ({ url, depth: 0 }));
  while (queue.length && seen.size < MAX_SITEMAPS) {
    const next: typeof queue = [];
    for (const { url, depth } of queue) {
      if (seen.has(url)) continue;
      seen.add(url);
      const read = await fetchSitemap(fetcher, url, countryCode);
      if (!read) continue;
      if (read.type === 'sitemapindex') {
        const kinds = classifySitemaps(read.children);
        collections.push(...kinds.collections);
        // Children whose names say nothing may hold products or indexes: read them too.
        if (depth < MAX_SITEMAP_DEPTH)
          for (const child of [...kinds.products, ...kinds.other]) next.push({ url: child, depth: depth + 1 });
      } else if (read.listings.length) {
        // A urlset: a product sitemap when its URLs look like products or it was named so.
        const named = classifySitemaps([url]);
        if (named.collections.length) collections.push(url);
        else if (
          named.products.length ||
          depth === 0 ||
          read.listings.some((l) => /\/(products?|p|item)\//.test(l.url))
        )
          products.push(url);
      }
    }
    queue = next;
  }
  return { products: [...new Set(products)], collections: [...new Set(collections)] };
}

const sameHost = (a: string, b: string) =>
  new URL(a).hostname.replace(/^www\./, '') === new URL(b).hostname.replace(/^www\./, '');

/** Determining crawl method: robots.txt, the storefront's platform, the fast paths, sitemaps. */
export async function determineMethod(
  fetcher: PageFetcher,
  origin: string,
  countryCode: string,
): Promise<MethodChoice> {
  const fallbacks: string[] = [];
  let sitemapRoots: string[] = [];
  try {
    const robots = await fetcher.fetch({ url: `${origin}/robots.txt`, ignoreRobots: true, countryCode });
    if (robots.status < 400)
      sitemapRoots = parseRobots(robots.body).sitemaps.filter((url) => /^https?:\/\//i.test(url));
  } catch {
    // No robots.txt: everything allowed, no sitemap hints.
  }
  const home = await attempt(fetcher, `${origin}/`, countryCode);
  const html = home.page?.body ?? '';
  const platform = home.page ? detectPlatform(html, home.page.headers).platform : null;
  const landed = home.page ? new URL(home.page.finalUrl).origin : origin;
  if (landed !== origin && sameHost(landed, origin)) origin = landed;
  const choice: MethodChoice = {
    method: 'html',
    origin,
    fallbacks,
    displayName: siteName(html),
    currency: currencyFromHtml(html),
    primaryCount: null,
    productSitemaps: [],
    collectionSitemaps: [],
    categories: [],
  };

  // Fast paths: the platform's own JSON, probed with one small page.
  if (platform === 'shopify' || platform === null) {
    const probe = settled(await attempt(fetcher, `${origin}/products.json?limit=1`, countryCode, JSON_ACCEPT));
    if (probe.page && shopifyListings(probe.page.body, origin, null) !== null)
      return { ...choice, method: 'shopify-json' };
    if (platform === 'shopify')
      fallbacks.push(`Shopify JSON: ${probe.refused ?? '/products.json is not product JSON'}`);
  }
  if (platform === 'woocommerce' || platform === null) {
    const probe = settled(
      await attempt(fetcher, `${origin}/wp-json/wc/store/v1/products?per_page=1`, countryCode, JSON_ACCEPT),
    );
    const listings = probe.page ? wooListings(probe.page.body) : null;
    if (probe.page && listings !== null) {
      const total = Number(probe.page.headers['x-wp-total']);
      return {
        ...choice,
        method: 'woo-store-api',
        currency: listings[0]?.price.currency ?? choice.currency,
        primaryCount: Number.isFinite(total) ? total : null,
      };
    }
    if (platform === 'woocommerce') fallbacks.push(`WooCommerce Store API: ${probe.refused ?? 'not product JSON'}`);
  }

  // Sitemaps: robots.txt's, else the conventional place.
  const sitemaps = await findSitemaps(
    fetcher,
    sitemapRoots.length ? sitemapRoots : [`${origin}/sitemap.xml`],
    countryCode,
  );
  if (sitemaps.products.length)
    return {
      ...choice,
      method: 'sitemap',
      productSitemaps: sitemaps.products,
      collectionSitemaps: sitemaps.collections,
    };
  fallbacks.push('Sitemaps: no product sitemap found');

  // HTML category pages linked from the storefront.
  if (!home.page)
    throw new CrawlRefused(
      `The store cannot be crawled: the storefront ${home.refused}, and no fast path or sitemap is available`,
    );
  const categories = readCategoryLinks(html, home.page.finalUrl).slice(0, MAX_COLLECTIONS);
  if (!categories.length) {
    // The storefront itself may list products (a one-page shop): read it as the only category.
    categories.push({
      key: new URL(home.page.finalUrl).hostname.replace(/^www\./, ''),
      url: home.page.finalUrl,
      title: null,
      statedCount: null,
    });
  }
  return { ...choice, method: 'html', categories };
}

/** Discovering collections for the chosen method. */
export async function discoverCollections(
  fetcher: PageFetcher,
  origin: string,
  countryCode: string,
  choice: Pick<MethodChoice, 'method' | 'collectionSitemaps' | 'categories'>,
): Promise<Array<FoundCollection & { wooId?: number }>> {
  const found = new Map<string, FoundCollection & { wooId?: number }>();
  const add = (c: FoundCollection & { wooId?: number }) => {
    if (found.size < MAX_COLLECTIONS && !found.has(c.key)) found.set(c.key, c);
  };
  if (choice.method === 'shopify-json') {
    for (let page = 1; page <= Math.ceil(MAX_COLLECTIONS / SHOPIFY_PAGE_SIZE); page++) {
      const got = settled(
        await attempt(
          fetcher,
          `${origin}/collections.json?limit=${SHOPIFY_PAGE_SIZE}&page=${page}`,
          countryCode,
          JSON_ACCEPT,
        ),
      );
      const collections = got.page ? shopifyCollections(got.page.body, origin) : null;
      if (!collections) break;
      collections.forEach(add);
      if (collections.length < SHOPIFY_PAGE_SIZE) break;
    }
  } else if (choice.method === 'woo-store-api') {
    for (let page = 1; page <= Math.ceil(MAX_COLLECTIONS / WOO_PAGE_SIZE); page++) {
      const got = settled(
        await attempt(
          fetcher,
          `${origin}/wp-json/wc/store/v1/products/categories?per_page=${WOO_PAGE_SIZE}&page=${page}`,
          countryCode,
          JSON_ACCEPT,
        ),
      );
      const categories = got.page ? wooCategories(got.page.body, origin) : null;
      if (!categories) break;
      categories.forEach(add);
      if (categories.length < WOO_PAGE_SIZE) break;
    }
  } else if (choice.method === 'sitemap') {
    for (const sitemap of choice.collectionSitemaps) {
      const read = await fetchSitemap(fetcher, sitemap, countryCode);
      for (const listing of read?.listings ?? []) {
        const key = collectionKey(listing.url);
        if (key) add({ key, url: listing.url, title: null, statedCount: null });
      }
    }
  } else {
    choice.categories.forEach(add);
  }
  return [...found.values()];
}

export interface PageRead {
  listings: FoundListing[];
  /** html: the next page. */
  next: string | null;
  /** Refused, failed or not the expected shape: the sequence ends here and the crawl is incomplete. */
  failed: string | null;
  /** The failure may pass (timeout, network, 5xx): the batch is better retried than recorded. */
  transient?: boolean;
}

/** What the plan records of a page once read: its count, whether it was full, its next page. */
export function pageOutcome(task: PageTask, read: PageRead): PageOutcome {
  return {
    seq: task.seq,
    n: task.n,
    count: read.listings.length,
    full: task.pageSize > 0 && read.listings.length >= task.pageSize,
    next: read.next,
    failed: read.failed !== null,
  };
}

/** Extracting listings: one listing page. */
export async function readListingPage(
  fetcher: PageFetcher,
  task: PageTask,
  context: { origin: string; currency: string | null; countryCode: string },
): Promise<PageRead> {
  const accept = task.kind === 'sitemap' ? SITEMAP_ACCEPT : task.kind === 'html' ? undefined : JSON_ACCEPT;
  const got = await attempt(fetcher, task.url, context.countryCode, accept);
  // 404/410 is a definite answer (past the last page, a category that is gone): the source ends
  // there, nothing failed. Past the end, some APIs answer 400 for a page number too high.
  const status = got.page ? null : (/ answered (\d{3})$/.exec(got.refused)?.[1] ?? null);
  if (status === '404' || status === '410' || (status === '400' && task.n > 1))
    return { listings: [], next: null, failed: null };
  if (!got.page) return { listings: [], next: null, failed: got.refused, transient: got.transient };
  let listings: FoundListing[] | null = null;
  let next: string | null = null;
  switch (task.kind) {
    case 'shopify-products':
      listings = shopifyListings(got.page.body, context.origin, context.currency);
      break;
    case 'woo-products':
      listings = wooListings(got.page.body);
      break;
    case 'sitemap': {
      const read = readSitemap(got.page.bodyBytes ?? got.page.body, got.page.finalUrl);
      // A product sitemap may start with the home page or the shop archive: only product pages are listings.
      listings =
        read.type === 'urlset' || read.type === 'text'
          ? read.listings.filter((l) => isProductPage(l.url, context.origin))
          : null;
      break;
    }
    case 'html': {
      const read = readHtmlListingPage(got.page.body, got.page.finalUrl, context.currency);
      listings = read.listings;
      next = read.next && read.next !== got.page.finalUrl && read.next !== task.url ? read.next : null;
      break;
    }
  }
  if (listings === null)
    return {
      listings: [],
      next: null,
      failed: `${new URL(task.url).pathname} is not a listing page of the expected shape`,
    };
  // One listing per URL per page (some stores repeat products within a page).
  const unique = new Map<string, FoundListing>();
  for (const listing of listings) if (!unique.has(listing.url)) unique.set(listing.url, listing);
  return { listings: [...unique.values()], next, failed: null };
}

/**
 * A product page's structured data (JSON-LD, microdata, og: meta), read as robots.txt and the
 * host's politeness allow; null when the page cannot be read, whatever the reason: the listing
 * then stays as its sitemap stated it, and the crawl goes on.
 */
export async function readProductPage(
  fetcher: PageFetcher,
  url: string,
  context: { currency: string | null; countryCode: string },
): Promise<ListingData | null> {
  try {
    const got = await attempt(fetcher, url, context.countryCode);
    if (!got.page || !/html|xml/i.test(String(got.page.headers['content-type'] ?? 'text/html'))) return null;
    return readProductMarkup(got.page.body, got.page.finalUrl, context.currency);
  } catch {
    return null;
  }
}
