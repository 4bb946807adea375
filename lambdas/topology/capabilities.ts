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
  agentic: ['agentic'],
  crawl: ['crawl'],
  // The steps are built over the crawl capability's store and catalog, and read pages.
  crawlSteps: ['crawlSteps', 'crawl', 'fetcher'],
};

/**
 * Members of a getter's value that load none of its capabilities: a use written
 * `deps.<getter>.<member>` with a member listed here counts nothing; any other use of the getter
 * (another member, the value passed on or destructured) counts LAZY_OF_GETTER's whole list.
 */
export const LIGHT_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  // The extraction workflow's planning steps read and write executions and results; only
  // processBatch extracts (the engine and fetcher, behind extractUrl).
  extractSteps: ['prepare', 'abandonBatch', 'finalize', 'fail'],
};

/**
 * Per function (its entry under lambdas/, without extension: `http/v2/vendors`,
 * `workers/extract-worker`): the lazy capabilities its asset holds. A function not listed keeps
 * every capability (nothing stubbed).
 */
export const FUNCTION_CAPABILITIES: Readonly<Record<string, readonly LazyCapability[]>> = {
  // GENERATED-START
  'http/public/fallback': [],
  'http/public/health': ['idempotency'],
  'http/public/openapi': ['idempotency'],
  'http/legacy/search': ['search', 'idempotency'],
  'http/legacy/regular-search': ['search', 'idempotency'],
  'http/legacy/products': ['fetcher', 'engine', 'extractNow', 'idempotency'],
  'http/legacy/product': ['fetcher', 'engine', 'extractNow', 'idempotency'],
  'http/legacy/feed': ['search', 'idempotency'],
  'http/legacy/vendors': ['idempotency'],
  'http/legacy/usage': ['idempotency'],
  'http/v1/agentic-search-mini': ['fetcher', 'engine', 'extractNow', 'search', 'idempotency', 'agentic'],
  'http/v1/agentic-search': ['fetcher', 'engine', 'extractNow', 'search', 'idempotency', 'agentic'],
  'http/v1/listings': ['idempotency', 'crawl'],
  'http/v1/collections': ['idempotency', 'crawl'],
  'http/v1/products-start': ['idempotency', 'crawl'],
  'http/v1/products-list': ['idempotency', 'crawl'],
  'http/v1/products-status': ['idempotency', 'crawl'],
  'http/v1/products-cancel': ['idempotency', 'crawl'],
  'http/v1/extract-start': ['idempotency', 'crawl'],
  'http/v1/extract-list': ['idempotency', 'crawl'],
  'http/v1/extract-status': ['idempotency', 'crawl'],
  'http/v1/extract-cancel': ['idempotency', 'crawl'],
  'http/v1/affiliate': ['idempotency'],
  'http/v1/crawl-start': ['idempotency', 'crawl'],
  'http/v1/crawl-list': ['idempotency', 'crawl'],
  'http/v1/crawl-status': ['idempotency', 'crawl'],
  'http/v1/crawl-cancel': ['idempotency', 'crawl'],
  'http/v1/vendors': ['idempotency'],
  'http/v2/agentic-search-mini': ['fetcher', 'engine', 'extractNow', 'search', 'idempotency', 'agentic'],
  'http/v2/agentic-search-start': ['fetcher', 'engine', 'extractNow', 'search', 'idempotency', 'agentic'],
  'http/v2/agentic-search-status': ['fetcher', 'engine', 'extractNow', 'search', 'idempotency', 'agentic'],
  'http/v2/listings': ['idempotency', 'crawl'],
  'http/v2/collections': ['idempotency', 'crawl'],
  'http/v2/vendors': ['idempotency'],
  'http/v2/usage': ['idempotency'],
  'http/v2/affiliate': ['idempotency'],
  'http/v2/crawl-start': ['idempotency', 'crawl'],
  'http/v2/crawl-list': ['idempotency', 'crawl'],
  'http/v2/crawl-status': ['idempotency', 'crawl'],
  'http/v2/crawl-cancel': ['idempotency', 'crawl'],
  'http/v2/extract-start': ['idempotency', 'crawl'],
  'http/v2/extract-list': ['idempotency', 'crawl'],
  'http/v2/extract-status': ['idempotency', 'crawl'],
  'http/v2/extract-cancel': ['idempotency', 'crawl'],
  'http/v2/webhook-secret': ['idempotency'],
  'http/v2/webhook-secret-rotate': ['idempotency'],
  'http/v2/webhook-deliveries': ['idempotency'],
  'workers/extract-worker': ['fetcher', 'engine'],
  'workers/extract-dlq': [],
  'workers/agentic-verify': ['fetcher', 'engine', 'extractNow', 'search', 'agentic'],
  'workers/agentic-verify-dlq': ['fetcher', 'engine', 'extractNow', 'search', 'agentic'],
  'workers/crawl-worker': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/crawl-dlq': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/webhook-deliver': [],
  'workers/webhook-dlq': [],
  'workers/extract-prepare': [],
  'workers/extract-lost-batch': [],
  'workers/extract-finalize': [],
  'workers/extract-fail': [],
  'workers/agentic-understand': ['fetcher', 'engine', 'extractNow', 'search', 'agentic'],
  'workers/agentic-retrieve': ['fetcher', 'engine', 'extractNow', 'search', 'agentic'],
  'workers/agentic-rank': ['fetcher', 'engine', 'extractNow', 'search', 'agentic'],
  'workers/agentic-fail': ['fetcher', 'engine', 'extractNow', 'search', 'agentic'],
  'workers/crawl-determine': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/crawl-discover': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/crawl-analyze': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/crawl-plan': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/crawl-lost-batch': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/crawl-finalize': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/crawl-fail': ['fetcher', 'crawl', 'crawlSteps'],
  'workers/execution-reaper': [],
  'workers/search-indexer': ['search'],
  // GENERATED-END
};
