// The crawl workflow's planning steps (statemachines/crawl.asl.json): Analyzing collections'
// sequences and first wave, the next waves, lost batches, Finalize and the failure step. None of
// them reads a page: the steps that do (determine, discover, processBatch) are in steps.ts, with
// the fetcher and the page parsers (cheerio); these load neither (container.crawlSteps routes
// each member to its module).
import type { ListingStore } from '../../ports/listings';
import { TERMINAL, type Execution } from '../executions/model';
import type { Executions } from '../executions/service';
import type { Catalog } from '../listings/catalog';
import {
  crawlCredits,
  crawlOptionsOf,
  MAX_PAGES_PER_SEQUENCE,
  MAX_WAVES,
  PAGES_PER_BATCH,
  PRODUCT_PAGES_PER_TASK,
  productSequenceOf,
  SHOPIFY_PAGE_SIZE,
  WAVE_PAGES,
  WOO_PAGE_SIZE,
  type CrawlPlan,
  type PageBatch,
  type PageOutcome,
  type PageTask,
  type Sequence,
} from './model';
import { createKeepFound } from './keep-found';

/** Pages in one wave (one pass of the Map): keeps the state machine's payload small. */
const MAX_PAGES_PER_WAVE = 160;
/** Order stride per sequence: a sequence's listings sort after the previous sequence's. */
const ORDER_STRIDE = 1e9;

export const CRAWL_INTERNAL_ERROR = 'The crawl failed because of an internal error; start it again';

export interface CrawlBatchMessage {
  crawlId: string;
  wave: number;
  batch: PageBatch;
}

/** Pages of a wave, in batches with ids stable per wave and position. */
export function batchesOf(wave: number, pages: PageTask[]): PageBatch[] {
  const batches: PageBatch[] = [];
  for (let i = 0; i < pages.length; i += PAGES_PER_BATCH)
    batches.push({ id: `w${wave}-${i / PAGES_PER_BATCH}`, pages: pages.slice(i, i + PAGES_PER_BATCH) });
  return batches;
}

const pageUrl = (seq: Sequence, n: number): string => {
  if (seq.kind === 'sitemap' || seq.kind === 'product') return seq.url;
  if (seq.kind === 'html' && !seq.template) return n === 1 ? seq.url : (seq.next ?? seq.url);
  const url = new URL(seq.url);
  if (seq.template === 'path') {
    url.pathname = `${url.pathname.replace(/\/page\/\d+\/?$/, '').replace(/\/$/, '')}/page/${n}/`;
    return url.href;
  }
  url.searchParams.set('page', String(n));
  return url.href;
};

/** How page 2's URL relates to page 1's: ?page=2 (query), …/page/2/ (path), or neither. */
export function pagingTemplate(first: string, next: string): 'query' | 'path' | null {
  try {
    const a = new URL(first);
    const b = new URL(next);
    if (a.host !== b.host) return null;
    if (b.pathname === a.pathname && b.searchParams.get('page') === '2') return 'query';
    if (b.pathname.replace(/\/$/, '') === `${a.pathname.replace(/\/$/, '')}/page/2`) return 'path';
  } catch {
    // not URLs: follow links
  }
  return null;
}

const taskOf = (seq: Sequence, n: number): PageTask => ({
  seq: seq.id,
  n,
  url: pageUrl(seq, n),
  kind: seq.kind,
  collection: seq.collection,
  primary: seq.primary,
  pageSize: seq.pageSize,
  // HTML pages hold at most this many listings before their size is known.
  order: seq.order * ORDER_STRIDE + (n - 1) * (seq.pageSize > 0 ? seq.pageSize : 10_000),
});

/**
 * A sitemap sequence that ended having added listings no category lists: their product pages
 * are read next (in discovery order, so a max_listings cut reads the ones it keeps).
 */
function addProductPages(plan: CrawlPlan, sitemap: Sequence, last: PageOutcome | undefined) {
  const id = productSequenceOf(sitemap.id);
  if (!last || last.failed || last.count <= 0 || plan.sequences.some((s) => s.id === id)) return;
  plan.sequences.push({
    id,
    kind: 'product',
    collection: null,
    primary: false,
    url: sitemap.url,
    pageSize: PRODUCT_PAGES_PER_TASK,
    knownPages: Math.ceil(last.count / PRODUCT_PAGES_PER_TASK),
    listings: last.count,
    planned: 0,
    from: 1,
    open: true,
    next: null,
    // The same discovery order as the sitemap's listings: a product page's listing keeps its place.
    order: sitemap.order,
  });
}

/** max_listings: product-page tasks left before the product pages read reach the cut. */
function productTasksLeft(plan: CrawlPlan, seq: Sequence): number {
  if (plan.maxListings === null) return Number.POSITIVE_INFINITY;
  let read = 0;
  for (const s of plan.sequences)
    if (s.kind === 'product' && s !== seq) read += Math.min(s.planned * PRODUCT_PAGES_PER_TASK, s.listings ?? 0);
  return Math.ceil(Math.max(0, plan.maxListings - read) / PRODUCT_PAGES_PER_TASK) - seq.planned;
}

/**
 * The next wave: for each open sequence, the pages it still has. Known page counts are planned
 * at once (bounded per wave); unknown ends are probed WAVE_PAGES ahead and stop at the first
 * short page; HTML follows its next link one page at a time. Mutates `plan.sequences`.
 */
export function planWave(plan: CrawlPlan, outcomes: Map<string, PageOutcome>, listingsFound: number): PageTask[] {
  const tasks: PageTask[] = [];
  const capped = plan.maxListings !== null && listingsFound >= plan.maxListings;
  for (const seq of plan.sequences) {
    if (!seq.open) continue;
    if (tasks.length >= MAX_PAGES_PER_WAVE) break;
    // Sitemaps wait for the category pages (planSequences puts those first, so they are settled here).
    if (seq.kind === 'sitemap' && plan.sequences.some((s) => s.kind === 'html' && s.open)) continue;
    // What the pages of its last wave said.
    if (seq.planned > 0) {
      const last = outcomes.get(`${seq.id}#${seq.planned}`);
      let ended = false;
      for (let n = seq.from; n <= seq.planned; n++) {
        const o = outcomes.get(`${seq.id}#${n}`);
        // A short page ends a paged source, unless (HTML) it links a next page: page 1's size,
        // which sets the page size, may count a featured card the later pages do not have.
        const short = !o?.full && !(seq.kind === 'html' && o?.next);
        if (!o || o.failed || (seq.knownPages === null && (seq.kind !== 'html' || seq.template) && short)) ended = true;
      }
      if (seq.kind === 'html' && !seq.template && seq.planned === 1 && last?.next && !last.failed && last.count > 0) {
        // Page 1 shows how pages are numbered: plan ahead from now on, ending at the first short page.
        seq.template = pagingTemplate(seq.url, last.next);
        if (seq.template) {
          seq.pageSize = last.count;
          ended = false;
        }
      }
      if (seq.kind === 'html' && !seq.template) {
        if (!last || last.failed || !last.next) seq.open = false;
        else seq.next = last.next;
      } else if (seq.knownPages === null ? ended : seq.planned >= seq.knownPages) seq.open = false;
      if (!seq.open && seq.kind === 'sitemap') addProductPages(plan, seq, last);
    }
    if (capped && seq.primary) seq.open = false;
    if (!seq.open) continue;
    let want: number;
    if (seq.kind === 'html' && !seq.template) want = 1;
    else if (seq.knownPages !== null) want = seq.knownPages - seq.planned;
    // Unknown end: the store's hint first, then waves that double, each ending at a short page.
    else want = Math.max(WAVE_PAGES, seq.planned === 0 ? (seq.hintPages ?? 0) : seq.planned);
    // max_listings: never plan more primary pages than the cut can use (collections alike).
    if (plan.maxListings !== null && seq.pageSize > 0)
      want = Math.min(want, Math.ceil(plan.maxListings / seq.pageSize) - seq.planned);
    if (seq.kind === 'product') want = Math.min(want, productTasksLeft(plan, seq));
    want = Math.min(want, MAX_PAGES_PER_SEQUENCE - seq.planned, MAX_PAGES_PER_WAVE - tasks.length);
    if (want <= 0) {
      seq.open = false;
      continue;
    }
    seq.from = seq.planned + 1;
    for (let k = 0; k < want; k++) tasks.push(taskOf(seq, seq.planned + k + 1));
    seq.planned += want;
  }
  return tasks;
}

/**
 * The listing-page sequences of a crawl (what Analyzing collections plans): the primary source
 * of its method and one sequence per collection, with the pages known from stated counts.
 */
export function planSequences(
  plan: Pick<CrawlPlan, 'method' | 'origin' | 'productSitemaps' | 'primaryCount'> & {
    collections: Array<Pick<CrawlPlan['collections'][number], 'key' | 'url' | 'statedCount'> & { wooId?: number }>;
  },
): Sequence[] {
  const sequences: Sequence[] = [];
  const add = (seq: Omit<Sequence, 'planned' | 'from' | 'open' | 'next' | 'order'>) =>
    sequences.push({
      ...seq,
      planned: 0,
      from: 1,
      open: seq.knownPages !== 0,
      next: null,
      order: sequences.length,
    });
  const pagesOf = (count: number | null, size: number) => (count === null ? null : Math.ceil(count / size));
  const primaryCount = plan.primaryCount ?? null;
  const { collections } = plan;
  if (plan.method === 'shopify-json') {
    // The largest collection's count is a lower bound of the store's products: read that many pages at once.
    const largest = Math.max(0, ...collections.map((c) => c.statedCount ?? 0));
    add({
      id: 'p',
      kind: 'shopify-products',
      collection: null,
      primary: true,
      url: `${plan.origin}/products.json?limit=${SHOPIFY_PAGE_SIZE}`,
      pageSize: SHOPIFY_PAGE_SIZE,
      knownPages: null,
      hintPages: Math.ceil(largest / SHOPIFY_PAGE_SIZE),
    });
    collections.forEach((c, i) => {
      const handle = new URL(c.url).pathname.split('/').filter(Boolean).pop()!;
      add({
        id: `c${i}`,
        kind: 'shopify-products',
        collection: c.key,
        primary: false,
        url: `${plan.origin}/collections/${handle}/products.json?limit=${SHOPIFY_PAGE_SIZE}`,
        pageSize: SHOPIFY_PAGE_SIZE,
        knownPages: pagesOf(c.statedCount, SHOPIFY_PAGE_SIZE),
      });
    });
  } else if (plan.method === 'woo-store-api') {
    add({
      id: 'p',
      kind: 'woo-products',
      collection: null,
      primary: true,
      url: `${plan.origin}/wp-json/wc/store/v1/products?per_page=${WOO_PAGE_SIZE}`,
      pageSize: WOO_PAGE_SIZE,
      knownPages: pagesOf(primaryCount, WOO_PAGE_SIZE),
    });
    collections.forEach((c, i) => {
      if (c.wooId === undefined) return;
      add({
        id: `c${i}`,
        kind: 'woo-products',
        collection: c.key,
        primary: false,
        url: `${plan.origin}/wp-json/wc/store/v1/products?category=${c.wooId}&per_page=${WOO_PAGE_SIZE}`,
        pageSize: WOO_PAGE_SIZE,
        knownPages: pagesOf(c.statedCount, WOO_PAGE_SIZE),
      });
    });
  } else if (plan.method === 'sitemap') {
    // Sitemaps name no price and rarely a name: the category pages, whose cards and markup state
    // both, are read first and list their products; the sitemaps then add the products no
    // category lists (planWave holds them until every category has ended).
    collections.forEach((c, i) =>
      add({
        id: `c${i}`,
        kind: 'html',
        collection: c.key,
        primary: true,
        url: c.url,
        pageSize: 0,
        knownPages: null,
      }),
    );
    plan.productSitemaps.forEach((url, i) =>
      add({ id: `s${i}`, kind: 'sitemap', collection: null, primary: true, url, pageSize: 0, knownPages: 1 }),
    );
  } else {
    // HTML only: the category pages are the listings' only source, so they count as found.
    collections.forEach((c, i) =>
      add({
        id: `c${i}`,
        kind: 'html',
        collection: c.key,
        primary: true,
        url: c.url,
        pageSize: 0,
        knownPages: null,
      }),
    );
  }
  return sequences;
}

export interface CrawlPlanningDeps {
  executions: Executions;
  store: ListingStore;
  catalog: Catalog;
}

/** The execution if it is still running (a cancel or the reaper ends every step early). */
export async function runningCrawl(executions: Executions, crawlId: string): Promise<Execution | null> {
  const execution = await executions.get(crawlId);
  return execution && !TERMINAL.has(execution.status) ? execution : null;
}

/** Counts a step of the crawl once (its progress key). */
export const crawlStepDone = (executions: Executions, crawlId: string, step: number) =>
  executions.addProgress(crawlId, `step-${step}`, { steps: 1 });

export type CrawlPlanning = ReturnType<typeof createCrawlPlanning>;

export function createCrawlPlanning(deps: CrawlPlanningDeps) {
  const { executions, store, catalog } = deps;
  const keepFound = createKeepFound({ executions, store, catalog });
  const running = (crawlId: string) => runningCrawl(executions, crawlId);
  const stepDone = (crawlId: string, step: number) => crawlStepDone(executions, crawlId, step);

  async function outcomesOf(plan: CrawlPlan): Promise<Map<string, PageOutcome>> {
    const keys = plan.sequences
      .filter((s) => s.open && s.planned > 0)
      .flatMap((s) => Array.from({ length: s.planned - s.from + 1 }, (_, k) => ({ seq: s.id, n: s.from + k })));
    const got = await store.getOutcomes(plan.crawlId, keys);
    return new Map(got.map((o) => [`${o.seq}#${o.n}`, o]));
  }

  /** `execution`: as just read with the plan (saves reading it again). */
  async function nextWave(plan: CrawlPlan, wave: number, execution?: Execution | null) {
    execution ??= await executions.get(plan.crawlId);
    const found = execution?.counters.listings_found ?? 0;
    const outcomes = await outcomesOf(plan);
    const tasks = plan.wave >= MAX_WAVES ? [] : planWave(plan, outcomes, found);
    plan.wave = wave;
    await store.putPlan(plan);
    const batches = batchesOf(wave, tasks);
    return { crawlId: plan.crawlId, wave, proceed: batches.length > 0, batches };
  }

  return {
    /** Analyzing collections: their sizes (stated or to be counted) and the first wave of listing pages. */
    async analyze(input: { crawlId: string }) {
      const { crawlId } = input;
      const plan = await store.getPlan(crawlId);
      if (!plan || !(await running(crawlId))) return { crawlId, wave: 0, proceed: false, batches: [] as PageBatch[] };
      if (plan.wave > 0) return nextWave(plan, plan.wave); // a retried step: plan again from what is stored
      plan.sequences = planSequences(plan);
      const first = await nextWave(plan, 1);
      await stepDone(crawlId, 3);
      return first;
    },

    /** A batch that never completed (dead-lettered, task timed out): its pages end their sequences. */
    async abandonBatch(message: CrawlBatchMessage): Promise<{ abandoned: number }> {
      const { crawlId, batch } = message;
      const known = new Set((await store.getOutcomes(crawlId, batch.pages)).map((o) => `${o.seq}#${o.n}`));
      const lost = batch.pages.filter((p) => !known.has(`${p.seq}#${p.n}`));
      await store.putOutcomes(
        crawlId,
        lost.map((p) => ({ seq: p.seq, n: p.n, count: 0, full: false, next: null, failed: true })),
      );
      await executions.addProgress(crawlId, `lost-${batch.id}`, { batches_lost: 1, pages_failed: lost.length });
      return { abandoned: lost.length };
    },

    /** After each wave: the next pages, or none when every source has ended. */
    async plan(input: { crawlId: string; wave: number }) {
      const { crawlId } = input;
      // The plan and the execution in one read.
      const { plan, execution } = await store.getPlanAndExecution(crawlId);
      if (!plan || !execution || TERMINAL.has(execution.status))
        return { crawlId, wave: input.wave, proceed: false, batches: [] as PageBatch[] };
      if (plan.wave > input.wave) {
        // A retried planner: the wave it planned is gone from the state; plan it again from the outcomes.
        return nextWave(plan, plan.wave, execution);
      }
      return nextWave(plan, input.wave + 1, execution);
    },

    /**
     * Extracting listings is done: the cut to max_listings, removal of listings a complete crawl
     * no longer found, collection totals, the index readers use, then completed with the counts.
     */
    async finalize(input: { crawlId: string }) {
      const { crawlId } = input;
      const execution = await executions.get(crawlId);
      if (!execution || TERMINAL.has(execution.status)) return { crawlId, status: execution?.status ?? 'missing' };
      const plan = await store.getPlan(crawlId);
      const options = crawlOptionsOf(execution);
      const c = execution.counters;
      const cut = options.maxListings !== null && (c.listings_found ?? 0) >= options.maxListings;
      // A crawl that found nothing never counts as complete: an empty answer must not wipe a vendor.
      const complete =
        !cut &&
        !(c.pages_failed > 0) &&
        !(c.batches_lost > 0) &&
        !!plan &&
        plan.wave < MAX_WAVES &&
        (c.listings_found ?? 0) > 0;
      const result = await catalog.rebuild({
        vendor: options.vendor,
        displayName: plan?.displayName ?? options.vendor,
        crawlId,
        complete,
        maxListings: options.maxListings,
      });
      if (!(c.steps >= 4)) await stepDone(crawlId, 4);
      const completed = await executions.complete(crawlId, {
        counters: {
          ...c,
          steps: 4,
          listings_found: result.listings_found,
          listings_total: result.listings_found,
          collections_found: result.collections_total,
          collections_total: result.collections_total,
          credits: crawlCredits(result.listings_found),
        },
      });
      return { crawlId, status: completed ? 'completed' : ((await executions.get(crawlId))?.status ?? 'missing') };
    },

    /** A step gave up: fail without internals; what was found stays listed. */
    async fail(input: { crawlId: string }) {
      const failed = await executions.fail(input.crawlId, CRAWL_INTERNAL_ERROR);
      await keepFound(input.crawlId);
      return { crawlId: input.crawlId, status: failed?.status ?? 'unchanged' };
    },

    keepFound,
  };
}
