// The crawl workflow's steps (statemachines/crawl.asl.json): Determining crawl method,
// Discovering collections, Analyzing collections (sizes, first pages), Extracting listings
// (SQS batches of listing pages, planned in waves until every paged source ended), Finalize.
// Every step is safe to run twice: listings are upserts, a batch's counts are added once per
// batch id (ExecutionStore.addProgress), and the planner's waves are numbered.
import type { PageFetcher } from '../../ports/fetcher';
import type { MemberPage } from '../../ports/listings';
import { TERMINAL } from '../executions/model';
import {
  crawlOptionsOf,
  PRODUCT_PAGES_PER_TASK,
  productPagesKey,
  productSequenceOf,
  type CrawlPlan,
  type FoundListing,
  type PageOutcome,
  type PageTask,
} from './model';
import {
  CrawlRefused,
  determineMethod,
  discoverCollections,
  pageOutcome,
  readListingPage,
  readProductPage,
} from './discovery';
import { collectionId } from './model';
import {
  createCrawlPlanning,
  crawlStepDone,
  runningCrawl,
  type CrawlBatchMessage,
  type CrawlPlanningDeps,
} from './planning';

// The planning half (planning.ts) is its own module, so the workers that never read a page load no parser.
export {
  batchesOf,
  CRAWL_INTERNAL_ERROR,
  pagingTemplate,
  planSequences,
  planWave,
  type CrawlBatchMessage,
} from './planning';

export interface CrawlStepsDeps extends CrawlPlanningDeps {
  /** Needed by the steps that fetch (determine, discover, processBatch); built on first use. */
  fetcher?: () => PageFetcher;
  now?: () => Date;
}

/** A listing page could not be read for a reason that may pass: the batch is retried. */
export class TransientPageFailure extends Error {
  constructor(reason: string) {
    super(`A listing page could not be read (${reason}); the batch will be retried`);
    this.name = 'TransientPageFailure';
  }
}

export type CrawlSteps = ReturnType<typeof createCrawlSteps>;

export function createCrawlSteps(deps: CrawlStepsDeps) {
  const { executions, store } = deps;
  const now = deps.now ?? (() => new Date());
  const planning = createCrawlPlanning(deps);
  const fetcher = () => {
    if (!deps.fetcher) throw new Error('This crawl step needs the page fetcher');
    return deps.fetcher();
  };

  /** The execution if it is still running (a cancel or the reaper ends every step early). */
  const running = (crawlId: string) => runningCrawl(executions, crawlId);

  // Whether a crawl is still running, read at most once a second per crawl and shared by every
  // batch this process handles: a cancel stops the rest of each batch within about a second.
  const wanted = new Map<string, { at: number; alive: Promise<boolean> }>();
  const stillRunning = (crawlId: string): Promise<boolean> => {
    const known = wanted.get(crawlId);
    if (known && Date.now() - known.at < 1000) return known.alive;
    if (!known && wanted.size >= 1000) wanted.clear();
    const alive = running(crawlId).then(
      (execution) => execution !== null,
      () => true,
    );
    wanted.set(crawlId, { at: Date.now(), alive });
    return alive;
  };

  const stepDone = (crawlId: string, step: number) => crawlStepDone(executions, crawlId, step);

  /**
   * What a sitemap page adds: its listings no category page (nor earlier sitemap) of this crawl
   * wrote; the category pages were all read before any sitemap. One a previous crawl stored
   * keeps its stored name, images and price until its product page is read: the sitemap states
   * no price, and writing its null would move last_updated_by_service on every crawl.
   */
  async function sitemapAdds(plan: CrawlPlan, task: PageTask, listings: FoundListing[]): Promise<FoundListing[]> {
    // A vendor's first crawl without category pages has nothing stored to compare with.
    if (!listings.length || (plan.fresh === true && !plan.sequences.some((s) => s.kind === 'html'))) return listings;
    const stored = new Map(
      (
        await store.getListings(
          plan.vendor,
          listings.map((l) => l.url),
        )
      ).map((l) => [l.url, l]),
    );
    return listings.flatMap((l) => {
      const known = stored.get(l.url);
      // Written by this crawl before this page (a redelivered page's own listings stay its own).
      if (known?.crawl === plan.crawlId && known.order < task.order) return [];
      return [known ? { url: l.url, name: known.name, images: known.images, price: known.price } : l];
    });
  }

  /** The sitemap listings' URLs as the member pages their product-page tasks read. */
  const productPageLists = (task: PageTask, added: FoundListing[]): MemberPage[] =>
    Array.from({ length: Math.ceil(added.length / PRODUCT_PAGES_PER_TASK) }, (_, k) => ({
      collection: productPagesKey(productSequenceOf(task.seq), k + 1),
      seq: productSequenceOf(task.seq),
      n: k + 1,
      urls: added.slice(k * PRODUCT_PAGES_PER_TASK, (k + 1) * PRODUCT_PAGES_PER_TASK).map((l) => l.url),
    }));

  /**
   * A product-page task: each listing's own page states what its sitemap did not (name, price,
   * image); a page that cannot be read, or states nothing, leaves the listing as it was.
   */
  async function readProductPages(plan: CrawlPlan, task: PageTask): Promise<number> {
    const urls = await store.crawlMembers(plan.crawlId, productPagesKey(task.seq, task.n));
    const stored = await store.getListings(plan.vendor, urls);
    const items: Array<{ listing: FoundListing; order: number }> = [];
    for (const listing of stored) {
      if (listing.crawl !== plan.crawlId) continue;
      if (!(await stillRunning(plan.crawlId))) break;
      const page = await readProductPage(fetcher(), listing.url, plan);
      if (!page) continue;
      const read: FoundListing = {
        url: listing.url,
        name: page.name ?? listing.name,
        images: listing.images.length ? listing.images : page.images,
        price: page.price ?? listing.price,
      };
      if (
        JSON.stringify([read.name, read.images, read.price]) !==
        JSON.stringify([listing.name, listing.images, listing.price])
      )
        items.push({ listing: read, order: listing.order });
    }
    if (items.length) await store.upsert(plan.vendor, plan.displayName, plan.crawlId, items, now().toISOString());
    return urls.length;
  }

  return {
    /** Determining crawl method: pending -> running; robots.txt, platform, fast paths, sitemaps. */
    async determine(input: { crawlId: string }) {
      const { crawlId } = input;
      let execution = await executions.markRunning(crawlId);
      execution ??= await running(crawlId);
      if (!execution || TERMINAL.has(execution.status)) return { crawlId, proceed: false };
      const options = crawlOptionsOf(execution);
      let choice: Awaited<ReturnType<typeof determineMethod>>;
      try {
        choice = await determineMethod(fetcher(), options.origin, options.countryCode);
      } catch (error) {
        if (!(error instanceof CrawlRefused)) throw error;
        // Nothing could be read: the vendor stays unknown (listings 404) unless it was known before.
        await executions.fail(crawlId, error.message);
        return { crawlId, proceed: false };
      }
      const plan: CrawlPlan = {
        crawlId,
        vendor: options.vendor,
        displayName: choice.displayName || options.vendor,
        origin: choice.origin,
        method: choice.method,
        fallbacks: choice.fallbacks,
        currency: choice.currency,
        maxListings: options.maxListings,
        countryCode: options.countryCode,
        collections: choice.categories,
        sequences: [],
        wave: 0,
        collectionSitemaps: choice.collectionSitemaps,
        productSitemaps: choice.productSitemaps,
        incomplete: false,
        // Woo states its product count: the primary sequence's length is known.
        primaryCount: choice.primaryCount,
        fresh: (await store.head(options.vendor)) === null,
      };
      await store.putPlan(plan);
      await stepDone(crawlId, 1);
      return { crawlId, proceed: true, method: choice.method };
    },

    /** Discovering collections: the store's collection list (or categories, or collection sitemaps). */
    async discover(input: { crawlId: string }) {
      const { crawlId } = input;
      const plan = await store.getPlan(crawlId);
      if (!plan || !(await running(crawlId))) return { crawlId, proceed: false };
      const found = await discoverCollections(fetcher(), plan.origin, plan.countryCode, {
        method: plan.method,
        collectionSitemaps: plan.collectionSitemaps,
        categories: plan.collections,
      });
      plan.collections = found;
      await store.putPlan(plan);
      const stamp = now().toISOString();
      await store.putCollections(
        plan.vendor,
        found.map((c) => ({
          key: c.key,
          id: collectionId(plan.vendor, c.key),
          url: c.url,
          title: c.title,
          statedCount: c.statedCount,
          products_total: 0,
          last_updated_by_service: stamp,
          crawl: crawlId,
        })),
      );
      await executions.addProgress(crawlId, 'collections', { collections_found: found.length });
      await stepDone(crawlId, 2);
      return { crawlId, proceed: true };
    },

    analyze: planning.analyze,

    /**
     * The worker's job for one message: read each page, upsert its listings (primary sources)
     * or record collection membership, keep each page's outcome for the planner, count once.
     * Stops reading when the crawl is cancelled. The plan and the execution come in one read; a
     * page's listings are written while the next page loads; the collection pages and outcomes
     * of the whole batch go together in batch writes at its end, before it is counted.
     */
    async processBatch(
      message: CrawlBatchMessage,
    ): Promise<{ state: 'done' | 'skipped' | 'stopped'; counted: boolean }> {
      const { crawlId, batch } = message;
      const { plan, execution } = await store.getPlanAndExecution(crawlId);
      if (!execution || TERMINAL.has(execution.status)) return { state: 'skipped', counted: false };
      if (!plan) return { state: 'skipped', counted: false };
      if (!wanted.has(crawlId)) wanted.set(crawlId, { at: Date.now(), alive: Promise.resolve(true) });
      const context = { origin: plan.origin, currency: plan.currency, countryCode: plan.countryCode };
      const outcomes: PageOutcome[] = [];
      const members: MemberPage[] = [];
      let listingsFound = 0;
      let failedPages = 0;
      let stopped = false;
      // Listing writes in flight (one page's at a time while the next page is read); the first failure is kept.
      let writing: Promise<void> = Promise.resolve();
      let writeFailure: unknown;
      for (const task of batch.pages) {
        if (!(await stillRunning(crawlId))) {
          stopped = true;
          break;
        }
        if (task.kind === 'product') {
          const count = await readProductPages(plan, task);
          outcomes.push({ seq: task.seq, n: task.n, count, full: false, next: null, failed: false });
          continue;
        }
        const read = await readListingPage(fetcher(), task, context);
        // A page that may load later fails the message: SQS delivers it again (then the DLQ records it).
        if (read.failed && read.transient) {
          await writing;
          throw new TransientPageFailure(read.failed);
        }
        // A sitemap adds only what no category page of this crawl listed (those carry the store's names and prices).
        const fresh = task.kind === 'sitemap' ? await sitemapAdds(plan, task, read.listings) : read.listings;
        if (task.kind === 'sitemap') members.push(...productPageLists(task, fresh));
        if (task.primary && fresh.length) {
          const stamp = now().toISOString();
          const items = fresh.map((listing, k) => ({ listing, order: task.order + k }));
          const previous = writing;
          writing = previous.then(() =>
            store
              .upsert(plan.vendor, plan.displayName, crawlId, items, stamp, { firstCrawl: plan.fresh === true })
              .then(
                () => undefined,
                (error) => {
                  writeFailure ??= error;
                },
              ),
          );
          listingsFound += fresh.length;
        }
        if (task.collection && read.listings.length)
          members.push({
            collection: task.collection,
            seq: task.seq,
            n: task.n,
            urls: read.listings.map((l) => l.url),
          });
        if (read.failed) failedPages++;
        // A sitemap's count is what it added: its product pages are planned from it.
        outcomes.push(pageOutcome(task, task.kind === 'sitemap' ? { ...read, listings: fresh } : read));
      }
      await writing;
      if (writeFailure) throw writeFailure;
      await store.putPageResults(crawlId, members, outcomes);
      if (stopped) return { state: 'stopped', counted: false };
      const counted = await executions.addProgress(crawlId, batch.id, {
        listings_found: listingsFound,
        pages: outcomes.length,
        pages_failed: failedPages,
      });
      return { state: 'done', counted };
    },

    abandonBatch: planning.abandonBatch,
    plan: planning.plan,
    finalize: planning.finalize,
    fail: planning.fail,
    keepFound: planning.keepFound,
  };
}
