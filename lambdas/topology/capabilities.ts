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
  // The Step Functions client (@aws-sdk/client-sfn), the workflow engine and the task callbacks.
  stepFunctions: ['./step-functions'],
} as const satisfies Record<string, readonly string[]>;

export type LazyCapability = keyof typeof LAZY_IMPORTS;

/** What a container getter can load when called (read from container.ts: the getter and what its value calls). */
export const LAZY_OF_GETTER: Readonly<Record<string, readonly LazyCapability[]>> = {
  fetcher: ['fetcher'],
  extractUrl: ['engine', 'fetcher'],
  // The steps move executions (whose cancel and resume stop and start state machines).
  extractSteps: ['engine', 'fetcher', 'stepFunctions'],
  extractNow: ['extractNow', 'engine', 'fetcher'],
  // A vendor-mode extraction whose crawl ended without settling it is settled on read (crawl.jobs.settleIfDue).
  extractJobs: ['crawl', 'stepFunctions'],
  search: ['search'],
  idempotency: ['idempotency'],
  // Agentic search is handed the search engine, the sync extraction path (verification) and the
  // enricher (container.ts), and v2 the executions and the workflow engine; which of its members
  // call which: MEMBER_CAPABILITIES.
  agentic: ['agentic', 'search', 'extractNow', 'engine', 'fetcher', 'enricher', 'stepFunctions'],
  crawl: ['crawl', 'stepFunctions'],
  // The steps are built over the crawl capability's store and catalog; those that read pages are
  // one module (with the fetcher), the planning steps another (MEMBER_CAPABILITIES).
  crawlSteps: ['crawlSteps', 'crawl', 'fetcher', 'crawlPlanning', 'stepFunctions'],
  // Start, stop and answer executions: the Step Functions client. The executions core (cancel
  // stops, resume starts) and webhooks (a delivery given up fails its execution) reach it.
  workflows: ['stepFunctions'],
  taskCallbacks: ['stepFunctions'],
  executions: ['stepFunctions'],
  webhooks: ['stepFunctions'],
};

/**
 * Composition modules of a lazy capability whose own uses of container getters are counted by
 * that capability's getter (LAZY_OF_GETTER, and per member MEMBER_CAPABILITIES, read from the
 * module): composition/agentic.ts hands the executions and the workflow engine to v2's jobs only,
 * so v1's run and the mini searches do not hold the Step Functions client. lib/capability-scan.ts
 * checks that each such use loads nothing outside the getter's own list.
 */
export const COUNTED_BY_GETTER: Readonly<Record<string, string>> = {
  'composition/agentic': 'agentic',
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
  extractSteps: {
    prepare: ['stepFunctions'],
    abandonBatch: ['stepFunctions'],
    finalize: ['stepFunctions'],
    fail: ['stepFunctions'],
  },
  // v2's start and status, Rank, the failure step and the dead letters' abandon read and write
  // the execution and its entries only; understand and retrieve read the search index; verify
  // extracts the live page (the sync path); the mini searches search and enrich; v1's run
  // searches and verifies.
  agentic: {
    // v2's members move executions (start starts the state machine, a failure may stop it).
    'jobs.start': ['agentic', 'stepFunctions'],
    'jobs.status': ['agentic', 'stepFunctions'],
    'jobs.steps.understand': ['agentic', 'search', 'stepFunctions'],
    'jobs.steps.retrieve': ['agentic', 'search', 'stepFunctions'],
    'jobs.steps.verify': ['agentic', 'extractNow', 'engine', 'fetcher', 'stepFunctions'],
    'jobs.steps.abandon': ['agentic', 'stepFunctions'],
    'jobs.steps.rank': ['agentic', 'stepFunctions'],
    'jobs.steps.fail': ['agentic', 'stepFunctions'],
    // The mini searches and v1's run start no execution: no Step Functions client.
    mini: ['agentic', 'search', 'enricher'],
    // v1: search, then verify the candidates live (no enrichment on the fly).
    run: ['agentic', 'search', 'extractNow', 'engine', 'fetcher'],
  },
  // The crawl's planning steps (crawl-planning.ts) plan, record lost batches, finalize and fail
  // over the store and catalog; only determine, discover and processBatch read pages.
  crawlSteps: {
    analyze: ['crawlPlanning', 'crawl', 'stepFunctions'],
    plan: ['crawlPlanning', 'crawl', 'stepFunctions'],
    abandonBatch: ['crawlPlanning', 'crawl', 'stepFunctions'],
    finalize: ['crawlPlanning', 'crawl', 'stepFunctions'],
    fail: ['crawlPlanning', 'crawl', 'stepFunctions'],
    keepFound: ['crawlPlanning', 'crawl', 'stepFunctions'],
    determine: ['crawlSteps', 'crawl', 'fetcher', 'stepFunctions'],
    discover: ['crawlSteps', 'crawl', 'fetcher', 'stepFunctions'],
    processBatch: ['crawlSteps', 'crawl', 'fetcher', 'stepFunctions'],
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
  'http/v1/listings': ['crawl', 'stepFunctions'],
  'http/v1/collections': ['crawl', 'stepFunctions'],
  'http/v1/products-start': ['idempotency', 'crawl', 'stepFunctions'],
  'http/v1/products-list': ['crawl', 'stepFunctions'],
  'http/v1/products-status': ['crawl', 'stepFunctions'],
  'http/v1/products-cancel': ['crawl', 'stepFunctions'],
  'http/v1/extract-start': ['idempotency', 'crawl', 'stepFunctions'],
  'http/v1/extract-list': ['crawl', 'stepFunctions'],
  'http/v1/extract-status': ['crawl', 'stepFunctions'],
  'http/v1/extract-cancel': ['crawl', 'stepFunctions'],
  'http/v1/affiliate': [],
  'http/v1/crawl-start': ['idempotency', 'crawl', 'stepFunctions'],
  'http/v1/crawl-list': ['crawl', 'stepFunctions'],
  'http/v1/crawl-status': ['crawl', 'stepFunctions'],
  'http/v1/crawl-cancel': ['crawl', 'stepFunctions'],
  'http/v1/vendors': [],
  'http/v2/agentic-search-mini': ['search', 'agentic', 'enricher'],
  'http/v2/agentic-search-start': ['idempotency', 'agentic', 'stepFunctions'],
  'http/v2/agentic-search-status': ['agentic', 'stepFunctions'],
  'http/v2/listings': ['crawl', 'stepFunctions'],
  'http/v2/collections': ['crawl', 'stepFunctions'],
  'http/v2/vendors': [],
  'http/v2/usage': [],
  'http/v2/affiliate': [],
  'http/v2/crawl-start': ['idempotency', 'crawl', 'stepFunctions'],
  'http/v2/crawl-list': ['crawl', 'stepFunctions'],
  'http/v2/crawl-status': ['crawl', 'stepFunctions'],
  'http/v2/crawl-cancel': ['crawl', 'stepFunctions'],
  'http/v2/extract-start': ['idempotency', 'crawl', 'stepFunctions'],
  'http/v2/extract-list': ['crawl', 'stepFunctions'],
  'http/v2/extract-status': ['crawl', 'stepFunctions'],
  'http/v2/extract-cancel': ['crawl', 'stepFunctions'],
  'http/v2/webhook-secret': ['stepFunctions'],
  'http/v2/webhook-secret-rotate': ['stepFunctions'],
  'http/v2/webhook-deliveries': ['stepFunctions'],
  'workers/extract-worker': ['fetcher', 'engine', 'stepFunctions'],
  'workers/extract-dlq': ['stepFunctions'],
  'workers/agentic-verify': ['fetcher', 'engine', 'extractNow', 'agentic', 'stepFunctions'],
  'workers/agentic-verify-dlq': ['agentic', 'stepFunctions'],
  'workers/crawl-worker': ['fetcher', 'crawl', 'crawlSteps', 'crawlPlanning', 'stepFunctions'],
  'workers/crawl-dlq': ['crawl', 'crawlPlanning', 'stepFunctions'],
  'workers/webhook-deliver': ['stepFunctions'],
  'workers/webhook-dlq': ['stepFunctions'],
  'workers/extract-prepare': ['stepFunctions'],
  'workers/extract-lost-batch': ['stepFunctions'],
  'workers/extract-finalize': ['stepFunctions'],
  'workers/extract-fail': ['stepFunctions'],
  'workers/agentic-understand': ['search', 'agentic', 'stepFunctions'],
  'workers/agentic-retrieve': ['search', 'agentic', 'stepFunctions'],
  'workers/agentic-rank': ['agentic', 'stepFunctions'],
  'workers/agentic-fail': ['agentic', 'stepFunctions'],
  'workers/crawl-determine': ['fetcher', 'crawl', 'crawlSteps', 'crawlPlanning', 'stepFunctions'],
  'workers/crawl-discover': ['fetcher', 'crawl', 'crawlSteps', 'crawlPlanning', 'stepFunctions'],
  'workers/crawl-analyze': ['crawl', 'crawlPlanning', 'stepFunctions'],
  'workers/crawl-plan': ['crawl', 'crawlPlanning', 'stepFunctions'],
  'workers/crawl-lost-batch': ['crawl', 'crawlPlanning', 'stepFunctions'],
  'workers/crawl-finalize': ['crawl', 'crawlPlanning', 'stepFunctions'],
  'workers/crawl-fail': ['crawl', 'crawlPlanning', 'stepFunctions'],
  'workers/execution-reaper': ['stepFunctions'],
  'workers/search-indexer': ['search', 'stepFunctions'],
  // GENERATED-END
};
