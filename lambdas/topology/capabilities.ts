// Which lazily loaded capabilities of the composition root (lambdas/composition/container.ts:
// the `import()`s behind its getters) each Lambda's asset holds. lib/bundle.ts replaces every
// other capability's `import()` by a stub that throws a clear error, so a function's asset holds
// only what its route or worker can call (issue 12: every asset under 1 MB). The local runtime
// (`npm start`) and the tests load the container unbundled: nothing is stubbed there.
//
// The table is checked by test/infra/bundles.test.ts: each function is bundled with its list and
// the handlers, workers, composition and observability modules in its bundle are scanned for
// container getters (`deps.crawl`, `container.fetcher`, ...); what they reach (LAZY_OF_GETTER)
// must be exactly the list. Regenerate it with `npx tsx scripts/lazy-capabilities.ts`.

import { IDEMPOTENT_OPERATIONS } from '../contracts/idempotency';

/** A lazily loaded chunk of the container: its `import()` specifiers in container.ts. */
export const LAZY_IMPORTS = {
  fetcher: ['../adapters/http-fetch'],
  engine: ['../domain/extraction/engine', '../domain/enrichment'],
  extractNow: ['../domain/extract-jobs/sync'],
  search: ['./search'],
  idempotency: ['./idempotency'],
  agentic: ['./agentic'],
  crawl: ['./crawl'],
  crawlSteps: ['./crawl-steps'],
  enricher: ['./enricher'],
  crawlPlanning: ['./crawl-planning'],
} as const satisfies Record<string, readonly string[]>;

export type LazyCapability = keyof typeof LAZY_IMPORTS;

/** What a container getter can load when called (read from container.ts: the getter and what its value calls). */
export const LAZY_OF_GETTER: Readonly<Record<string, readonly LazyCapability[]>> = {
  fetcher: ['fetcher'],
  extractUrl: ['engine', 'fetcher'],
  extractSteps: ['engine', 'fetcher'],
  extractNow: ['extractNow', 'engine', 'fetcher'],
  // A vendor-mode extraction whose crawl ended without settling it is settled on read (crawl.jobs.settleIfDue).
  extractJobs: ['crawl'],
  search: ['search'],
  idempotency: ['idempotency'],
  // Agentic search is handed the search engine, the sync extraction path (verification) and the
  // enricher (container.ts); which of its members call which: MEMBER_CAPABILITIES.
  agentic: ['agentic', 'search', 'extractNow', 'engine', 'fetcher', 'enricher'],
  crawl: ['crawl'],
  // The steps are built over the crawl capability's store and catalog; those that read pages are
  // one module (with the fetcher), the planning steps another (MEMBER_CAPABILITIES).
  crawlSteps: ['crawlSteps', 'crawl', 'fetcher', 'crawlPlanning'],
};

/**
 * Members of a getter's value that load less than the getter's whole list: a use written
 * `deps.<getter>.<member path>` (`deps.agentic.jobs.steps.rank`) whose path, or its longest
 * listed prefix, is here counts that member's list; any other use of the getter (another member,
 * the value passed on or destructured) counts LAZY_OF_GETTER's whole list. Read from container.ts
 * and the capability's composition module: what the member's call reaches.
 */
export const MEMBER_CAPABILITIES: Readonly<Record<string, Readonly<Record<string, readonly LazyCapability[]>>>> = {
  // The extraction workflow's planning steps read and write executions and results; only
  // processBatch extracts (the engine and fetcher, behind extractUrl).
  extractSteps: { prepare: [], abandonBatch: [], finalize: [], fail: [] },
  // v2's start and status, Rank, the failure step and the dead letters' abandon read and write
  // the execution and its entries only; understand and retrieve read the search index; verify
  // extracts the live page (the sync path); the mini searches search and enrich; v1's run
  // searches and verifies.
  agentic: {
    'jobs.start': ['agentic'],
    'jobs.status': ['agentic'],
    'jobs.steps.understand': ['agentic', 'search'],
    'jobs.steps.retrieve': ['agentic', 'search'],
    'jobs.steps.verify': ['agentic', 'extractNow', 'engine', 'fetcher'],
    'jobs.steps.abandon': ['agentic'],
    'jobs.steps.rank': ['agentic'],
    'jobs.steps.fail': ['agentic'],
    mini: ['agentic', 'search', 'enricher'],
    // v1: search, then verify the candidates live (no enrichment on the fly).
    run: ['agentic', 'search', 'extractNow', 'engine', 'fetcher'],
  },
  // The crawl's planning steps (crawl-planning.ts) plan, record lost batches, finalize and fail
  // over the store and catalog; only determine, discover and processBatch read pages.
  crawlSteps: {
    analyze: ['crawlPlanning', 'crawl'],
    plan: ['crawlPlanning', 'crawl'],
    abandonBatch: ['crawlPlanning', 'crawl'],
    finalize: ['crawlPlanning', 'crawl'],
    fail: ['crawlPlanning', 'crawl'],
    keepFound: ['crawlPlanning', 'crawl'],
    determine: ['crawlSteps', 'crawl', 'fetcher'],
    discover: ['crawlSteps', 'crawl', 'fetcher'],
    processBatch: ['crawlSteps', 'crawl', 'fetcher'],
  },
};

/**
 * Getters the request pipeline (lambdas/http/pipeline.ts) calls for some operations only: its use
 * counts in a route function's list when the function serves one of them. Idempotency-Key replays
 * run for the start operations alone (the pipeline reads the header and calls
 * `deps.idempotency.run` only for IDEMPOTENT_OPERATIONS), so the other routes' assets hold no
 * Powertools idempotency.
 */
export const PIPELINE_GETTERS_FOR: Readonly<Record<string, ReadonlySet<string>>> = {
  idempotency: IDEMPOTENT_OPERATIONS,
};

/**
 * Per function (its entry under lambdas/, without extension: `http/v2/vendors`,
 * `workers/extract-worker`): the lazy capabilities its asset holds. A function not listed keeps
 * every capability (nothing stubbed).
 */
export const FUNCTION_CAPABILITIES: Readonly<Record<string, readonly LazyCapability[]>> = {
  // GENERATED-START
  'http/public/fallback': [],
  'http/public/health': [],
  'http/public/openapi': [],
  'http/legacy/search': ['search'],
  'http/legacy/regular-search': ['search'],
  'http/legacy/products': ['fetcher', 'engine', 'extractNow'],
  'http/legacy/product': ['fetcher', 'engine', 'extractNow'],
  'http/legacy/feed': ['search'],
  'http/legacy/vendors': [],
  'http/legacy/usage': [],
  'http/v1/agentic-search-mini': ['search', 'agentic', 'enricher'],
  'http/v1/agentic-search': ['fetcher', 'engine', 'extractNow', 'search', 'agentic'],
  'http/v1/listings': ['crawl'],
  'http/v1/collections': ['crawl'],
  'http/v1/products-start': ['idempotency', 'crawl'],
  'http/v1/products-list': ['crawl'],
  'http/v1/products-status': ['crawl'],
  'http/v1/products-cancel': ['crawl'],
  'http/v1/extract-start': ['idempotency', 'crawl'],
  'http/v1/extract-list': ['crawl'],
  'http/v1/extract-status': ['crawl'],
  'http/v1/extract-cancel': ['crawl'],
  'http/v1/affiliate': [],
  'http/v1/crawl-start': ['idempotency', 'crawl'],
  'http/v1/crawl-list': ['crawl'],
  'http/v1/crawl-status': ['crawl'],
  'http/v1/crawl-cancel': ['crawl'],
  'http/v1/vendors': [],
  'http/v2/agentic-search-mini': ['search', 'agentic', 'enricher'],
  'http/v2/agentic-search-start': ['idempotency', 'agentic'],
  'http/v2/agentic-search-status': ['agentic'],
  'http/v2/listings': ['crawl'],
  'http/v2/collections': ['crawl'],
  'http/v2/vendors': [],
  'http/v2/usage': [],
  'http/v2/affiliate': [],
  'http/v2/crawl-start': ['idempotency', 'crawl'],
  'http/v2/crawl-list': ['crawl'],
  'http/v2/crawl-status': ['crawl'],
  'http/v2/crawl-cancel': ['crawl'],
  'http/v2/extract-start': ['idempotency', 'crawl'],
  'http/v2/extract-list': ['crawl'],
  'http/v2/extract-status': ['crawl'],
  'http/v2/extract-cancel': ['crawl'],
  'http/v2/webhook-secret': [],
  'http/v2/webhook-secret-rotate': [],
  'http/v2/webhook-deliveries': [],
  'workers/extract-worker': ['fetcher', 'engine'],
  'workers/extract-dlq': [],
  'workers/agentic-verify': ['fetcher', 'engine', 'extractNow', 'agentic'],
  'workers/agentic-verify-dlq': ['agentic'],
  'workers/crawl-worker': ['fetcher', 'crawl', 'crawlSteps', 'crawlPlanning'],
  'workers/crawl-dlq': ['crawl', 'crawlPlanning'],
  'workers/webhook-deliver': [],
  'workers/webhook-dlq': [],
  'workers/extract-prepare': [],
  'workers/extract-lost-batch': [],
  'workers/extract-finalize': [],
  'workers/extract-fail': [],
  'workers/agentic-understand': ['search', 'agentic'],
  'workers/agentic-retrieve': ['search', 'agentic'],
  'workers/agentic-rank': ['agentic'],
  'workers/agentic-fail': ['agentic'],
  'workers/crawl-determine': ['fetcher', 'crawl', 'crawlSteps', 'crawlPlanning'],
  'workers/crawl-discover': ['fetcher', 'crawl', 'crawlSteps', 'crawlPlanning'],
  'workers/crawl-analyze': ['crawl', 'crawlPlanning'],
  'workers/crawl-plan': ['crawl', 'crawlPlanning'],
  'workers/crawl-lost-batch': ['crawl', 'crawlPlanning'],
  'workers/crawl-finalize': ['crawl', 'crawlPlanning'],
  'workers/crawl-fail': ['crawl', 'crawlPlanning'],
  'workers/execution-reaper': [],
  'workers/search-indexer': ['search'],
  // GENERATED-END
};
