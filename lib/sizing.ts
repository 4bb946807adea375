// Memory per function, from `npm run bench -- cold-start` (RSS after init in a fresh process) and
// what each function does once running, instead of one default. Lambda gives CPU in proportion
// to memory (1769 MB = one vCPU), so a size is also a CPU share: parsing pages and ranking an
// in-memory index are CPU-bound, DynamoDB round trips are not.
//
// Measured (Node 20, split bundles): every HTTP handler is ~63 MB RSS after init (0.76 MB of code
// loaded); the same handler in one file was ~105 MB. The extraction engine and enrichment
// taxonomy add ~60-90 MB when first called; the search index holds the catalog in memory
// (~1 GB for 100,000 products, lib/search-index.ts).
import type { Route } from '../lambdas/topology/routes';

/** Routes that run extractions inside the request (legacy /api/product and /api/products). */
export const SYNC_EXTRACTION_ROUTES: ReadonlySet<string> = new Set(['legacyProduct', 'legacyProducts']);

/** Workers that fetch and parse pages (engine, enrichment, robots, sitemaps). */
const PAGE_WORKERS = new Set([
  'extract-worker',
  'agentic-verify',
  'crawl-worker',
  'crawl-determine',
  'crawl-discover',
  'crawl-analyze',
]);
/** Workers that query the in-memory search index. */
const SEARCH_WORKERS = new Set(['agentic-understand', 'agentic-retrieve', 'agentic-rank']);

export const MEMORY = {
  /** health, openapi, $default: ~45-63 MB used; the smallest size that keeps init under a second. */
  public: 256,
  /** Authenticated DynamoDB-bound handlers: ~63 MB at init, a few MB per request; 512 MB halves the init CPU wait of 256. */
  api: 512,
  /** A synchronous extraction loads the engine (~+90 MB) and parses up to 20 pages at once: CPU-bound. */
  syncExtraction: 1024,
  /** The search index in memory; 1769 MB is one full vCPU for ranking. */
  search: 1769,
  pageWorker: 1024,
  /**
   * The render worker (lib/render-worker.ts): Chromium peaked at about 850 MB RSS and Node at about
   * 200 MB with four pages at once (docs/rendering.md); room for a heavy page, a little over one vCPU.
   */
  render: 2048,
  /** prepare, finalize, fail, lost batches, DLQs, plan, reaper: DynamoDB and Step Functions calls only. */
  worker: 512,
} as const;

export function routeMemory(route: Route): number {
  if (route.family === 'public') return MEMORY.public;
  if (route.scope === 'search') return MEMORY.search;
  if (SYNC_EXTRACTION_ROUTES.has(route.operationId)) return MEMORY.syncExtraction;
  return MEMORY.api;
}

export function workerMemory(worker: string): number {
  if (worker === 'render-worker') return MEMORY.render;
  if (SEARCH_WORKERS.has(worker)) return MEMORY.search;
  if (PAGE_WORKERS.has(worker)) return MEMORY.pageWorker;
  return MEMORY.worker;
}
