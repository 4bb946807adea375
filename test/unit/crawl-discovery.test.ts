// The crawl's discovery methods against the store simulator over loopback (real HTTP through the
// got-based fetcher with robots.txt, politeness 0 and Retry-After): method choice and fallbacks,
// collections with their stated sizes, and every listing page planned in waves (planWave) and
// read (readListingPage) until each source ends, compared with the simulator's ground truth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpFetcher } from '../../lambdas/adapters/http-fetch';
import {
  determineMethod,
  discoverCollections,
  pageOutcome,
  readListingPage,
  CrawlRefused,
} from '../../lambdas/domain/crawl/discovery';
import { planSequences, planWave } from '../../lambdas/domain/crawl/steps';
import { collectionKey, type CrawlPlan, type FoundListing, type PageOutcome } from '../../lambdas/domain/crawl/model';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import type { PageFetcher } from '../../lambdas/ports/fetcher';

let sim: StoreSimulator;
let fetcher: PageFetcher;

beforeAll(async () => {
  sim = await startStoreSimulator({
    storeSizes: {
      'shopify-collections.test': 600,
      'sitemap-only.test': 700,
      'woo-categories.test': 230,
      'html-only.test': 60,
      'shopify-throttled.test': 260,
    },
  });
  fetcher = createHttpFetcher({ resolve: sim.resolve, crawlDelayMs: 0, retryBaseDelayMs: 20 });
});
afterAll(async () => {
  await sim?.close();
});

/** A whole crawl without the state machine: the same planner and page reader, bounded in waves. */
async function crawlDirect(host: string, maxListings: number | null = null) {
  const origin = `https://${host}`;
  const choice = await determineMethod(fetcher, origin, 'us');
  const collections = await discoverCollections(fetcher, choice.origin, 'us', choice);
  // The state machine's own planning of the sequences (Analyzing collections).
  const sequences = planSequences({ ...choice, collections });
  const plan = { sequences, maxListings } as CrawlPlan;
  const outcomes = new Map<string, PageOutcome>();
  const listings = new Map<string, FoundListing & { order: number }>();
  const members = new Map<string, Set<string>>();
  let found = 0;
  let pagesRead = 0;
  for (let wave = 0; wave < 500; wave++) {
    const tasks = planWave(plan, outcomes, found);
    if (!tasks.length) break;
    for (const task of tasks) {
      const read = await readListingPage(fetcher, task, {
        origin: choice.origin,
        currency: choice.currency,
        countryCode: 'us',
      });
      pagesRead++;
      if (task.primary) {
        read.listings.forEach((l, k) => {
          if (!listings.has(l.url)) listings.set(l.url, { ...l, order: task.order + k });
        });
        found += read.listings.length;
      }
      if (task.collection) {
        const set = members.get(task.collection) ?? new Set<string>();
        read.listings.forEach((l) => set.add(l.url));
        members.set(task.collection, set);
      }
      outcomes.set(`${task.seq}#${task.n}`, pageOutcome(task, read));
    }
  }
  return { choice, collections, listings, members, pagesRead };
}

const truthUrls = (host: string) => new Set(sim.catalog(host).listingUrls());

describe('determining the crawl method', () => {
  it('takes the Shopify JSON fast path on a Shopify store, with its currency and name', async () => {
    const choice = await determineMethod(fetcher, 'https://shopify-collections.test', 'us');
    expect(choice.method).toBe('shopify-json');
    expect(choice.fallbacks).toEqual([]);
    expect(choice.currency).toMatch(/^[A-Z]{3}$/);
  });

  it('takes the WooCommerce Store API on a Woo store, with its stated product count', async () => {
    const choice = await determineMethod(fetcher, 'https://woo-categories.test', 'us');
    expect(choice.method).toBe('woo-store-api');
    expect(choice.primaryCount).toBe(sim.catalog('woo-categories.test').listingCount());
  });

  it('falls back to sitemaps when the Shopify JSON answers 401 (locked)', async () => {
    const choice = await determineMethod(fetcher, 'https://shopify-locked.test', 'us');
    expect(choice.method).toBe('sitemap');
    expect(choice.fallbacks.join(' ')).toMatch(/Shopify JSON.*(401|refused)/);
  });

  it('falls back to sitemaps when robots.txt forbids the fast path, and never requests what it forbids', async () => {
    sim.resetRequestCounts('shopify-robots.test');
    const shopify = await determineMethod(fetcher, 'https://shopify-robots.test', 'us');
    expect(shopify.method).toBe('sitemap');
    expect(shopify.fallbacks.join(' ')).toMatch(/robots/);
    const woo = await determineMethod(fetcher, 'https://woo-robots.test', 'us');
    expect(woo.method).toBe('sitemap');
    expect(sim.robotsViolations('shopify-robots.test').count).toBe(0);
    expect(sim.robotsViolations('woo-robots.test').count).toBe(0);
  });

  it('reads gzip child sitemaps named in robots.txt on a sitemap-only store', async () => {
    const choice = await determineMethod(fetcher, 'https://sitemap-only.test', 'us');
    expect(choice.method).toBe('sitemap');
    expect(choice.productSitemaps.length).toBe(Math.ceil(700 / 500));
    expect(choice.collectionSitemaps.length).toBeGreaterThan(0);
  });

  it('uses HTML category pages when there is no API and no sitemap', async () => {
    const choice = await determineMethod(fetcher, 'https://html-only.test', 'us');
    expect(choice.method).toBe('html');
    expect(choice.categories.length).toBe(sim.catalog('html-only.test').collections.length);
  });

  it('refuses a store whose robots.txt disallows everything', async () => {
    await expect(determineMethod(fetcher, 'https://robots-blocked.test', 'us')).rejects.toBeInstanceOf(CrawlRefused);
  });
});

describe('discovering collections and extracting listings', () => {
  it('Shopify JSON: every listing once, collections with exact members, images with sizes and price objects', async () => {
    const host = 'shopify-collections.test';
    const { listings, collections, members, pagesRead } = await crawlDirect(host);
    expect(new Set(listings.keys())).toEqual(truthUrls(host));
    const truth = sim.catalog(host);
    expect(collections.map((c) => c.key).sort()).toEqual(truth.collections.map((c) => collectionKey(c.url)!).sort());
    for (const c of truth.collections) {
      expect(new Set(members.get(collectionKey(c.url)!) ?? [])).toEqual(new Set(c.productUrls()));
      expect(collections.find((x) => x.key === collectionKey(c.url))!.statedCount).toBe(c.size());
    }
    const first = listings.get(truth.listingUrls({ limit: 1 })[0])!;
    expect(first.images[0]).toMatchObject({ width: expect.any(Number), height: expect.any(Number), position: 1 });
    expect(first.price.current_value).toBeGreaterThan(0);
    expect(first.price.currency).toMatch(/^[A-Z]{3}$/);
    // 600 products: 3 pages of 250 plus the probe-ahead pages; far fewer than one request per product.
    expect(pagesRead).toBeLessThan(60);
  });

  it('WooCommerce Store API: every listing once, categories with their counts as members', async () => {
    const host = 'woo-categories.test';
    const { listings, collections, members } = await crawlDirect(host);
    expect(new Set(listings.keys())).toEqual(truthUrls(host));
    for (const c of sim.catalog(host).collections) {
      const key = collectionKey(c.url)!;
      expect(collections.some((x) => x.key === key)).toBe(true);
      expect(new Set(members.get(key) ?? [])).toEqual(new Set(c.productUrls()));
    }
    const any = [...listings.values()][0];
    expect(any.price.currency).toMatch(/^[A-Z]{3}$/);
  });

  it('sitemaps (gzip children): every listing once; collection pages followed by rel=next give the members', async () => {
    const host = 'sitemap-only.test';
    const { listings, members } = await crawlDirect(host);
    expect(new Set(listings.keys())).toEqual(truthUrls(host));
    for (const c of sim.catalog(host).collections)
      expect(new Set(members.get(collectionKey(c.url)!) ?? [])).toEqual(new Set(c.productUrls()));
  });

  it('HTML category pages with pagination: every listing once, named and priced from the cards', async () => {
    const host = 'html-only.test';
    const { listings, members } = await crawlDirect(host);
    expect(new Set(listings.keys())).toEqual(truthUrls(host));
    for (const c of sim.catalog(host).collections)
      expect(new Set(members.get(collectionKey(c.url)!) ?? [])).toEqual(new Set(c.productUrls()));
    const sample = [...listings.values()][0];
    expect(sample.name).not.toBe('');
    expect(sample.price.current_value).toBeGreaterThan(0);
  });

  it('honours Retry-After on 429s and still reads every page', async () => {
    const host = 'shopify-throttled.test';
    const { listings } = await crawlDirect(host);
    expect(new Set(listings.keys())).toEqual(truthUrls(host));
    expect(sim.requestCounts(host).throttled).toBeGreaterThan(0);
  }, 60_000);

  it('max_listings plans no more primary pages than the cut can use', async () => {
    const { pagesRead, listings } = await crawlDirect('shopify-collections.test', 10);
    expect(listings.size).toBeGreaterThanOrEqual(10);
    // One primary page, and at most one page per collection.
    expect(pagesRead).toBeLessThanOrEqual(1 + sim.catalog('shopify-collections.test').collections.length);
  });
});

describe('collection URL normalisation', () => {
  it('ignores scheme, www., trailing slash, query and fragment', () => {
    const key = collectionKey('https://www.Shop.test/collections/Tops/?page=2#grid');
    expect(key).toBe('shop.test/collections/tops');
    expect(collectionKey('http://shop.test/collections/tops')).toBe(key);
    expect(collectionKey('shop.test/collections/tops/')).toBe(key);
    expect(collectionKey('shop.test/collections/bottoms')).not.toBe(key);
    expect(collectionKey('mailto:x@y')).toBeNull();
  });
});
