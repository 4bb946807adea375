// The one composition root. A Container is built from a Config once per cold start (Lambda) or
// once per local process (`npm start`, tests), and reaches every handler as `ctx.deps` and every
// worker as its second argument. Everything it holds is typed and present; what is expensive to
// build is built on first use behind a getter, and what is heavy to load (the extraction engine
// and fetcher, enrichment, the search index, crawling, agentic search) is a separate chunk of each
// Lambda bundle that `import()` loads on the first call (lazy.ts): a route that never calls it
// never loads it, with the same typed values for every caller.
//
// Adding a capability: its use-cases in lambdas/domain/<capability>/, its factory in
// lambdas/composition/<capability>.ts taking this container, and one lazy getter below.
import { readFileSync } from 'node:fs';
import { loadConfig, type Config } from '../config';
import { createClients, destroyClients, type AwsClients } from '../adapters/clients';
import { dynamoAccountStore } from '../adapters/dynamodb/accounts';
import { dynamoUsageStore } from '../adapters/dynamodb/usage';
import { dynamoRateLimitStore } from '../adapters/dynamodb/ratelimit';
import { dynamoVendorStore } from '../adapters/dynamodb/vendors';
import { dynamoExecutionStore } from '../adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../adapters/dynamodb/extract-results';
import { dynamoProductStore } from '../adapters/dynamodb/products';
import { createSqsSender, type MessageSender } from '../adapters/sqs';
import type { AccountStore } from '../ports/accounts';
import type { UsageStore } from '../ports/usage';
import type { RateLimitStore } from '../ports/ratelimit';
import type { VendorStore } from '../ports/vendors';
import type { PageFetcher } from '../ports/fetcher';
import type { Enricher } from '../ports/enricher';
import type { TaskCallbacks, WorkflowEngine } from '../ports/workflow';
import type { MetricsRecorder } from '../ports/metrics';
import { emfMetrics, tallyMetrics } from '../adapters/metrics';
import { logger, setLogLevel } from '../observability/logger';
import {
  BUILT_IN_MERCHANTS,
  createMerchantDirectory,
  parseMerchantList,
  type MerchantDirectory,
} from '../domain/affiliate/merchants';
import { withKeyCache } from '../domain/accounts/cache';
import { createUsageMeter, withMeterFlush, type UsageMeter } from '../domain/usage/meter';
import { withVendorListCache } from '../domain/vendors/list-cache';
import type { ExtractUrl } from '../domain/extraction/types';
import { createExecutions, type Executions } from '../domain/executions/service';
import { createExtractJobs, type ExtractJobs } from '../domain/extract-jobs/jobs';
import { createExtractSteps, type ExtractSteps, type ExtractStepsDeps } from '../domain/extract-jobs/steps';
import { createLimiter, type Limiter } from '../domain/extract-jobs/concurrency';
import { faultsConfigured, withFaults } from './faults';
import type { ExtractNowRequest, ExtractNowResult } from '../domain/extract-jobs/sync';
import { createProductCatalog, type ProductCatalog } from '../domain/products/catalog';
import { WORKFLOWS } from '../topology/workflows';
import type { Affiliate } from '../domain/affiliate/links';
import { createAffiliateCapability } from './affiliate';
import type { Agentic } from './agentic';
import type { SearchService } from '../domain/search/service';
import type { Crawl } from './crawl';
import type { CrawlSteps } from '../domain/crawl/steps';
import type { CrawlPlanning } from '../domain/crawl/planning';
import { dynamoListingStore } from '../adapters/dynamodb/listings';
import { lazyAsync, onceAsync } from './lazy';
import type { Webhooks } from '../domain/webhooks/service';
import { createWebhooksCapability } from './webhooks';
import type { IdempotentStarts } from './idempotency';

/** The one source of time for use-cases that need "now"; tests pass a fake one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const EXTRACT_WORKFLOW = 'extract';
/** The execution item's deadline trails the state machine's own timeout, so the reaper only acts when the workflow died. */
export const DEADLINE_MARGIN_SECONDS = 300;

export interface ContainerOptions {
  clock?: Clock;
  /** Prebuilt clients (e.g. shared with the local runtime); default built from the config. */
  clients?: AwsClients;
  /** Overrides every workflow's execution deadline (tests of the reaper). */
  deadlineSeconds?: number;
}

export interface Container {
  readonly config: Config;
  readonly clock: Clock;
  readonly clients: AwsClients;
  readonly metrics: MetricsRecorder;

  // platform
  readonly accounts: AccountStore;
  readonly usage: UsageStore;
  /** Counts authenticated calls, coalescing concurrent ones into one write per counter. */
  readonly meter: UsageMeter;
  readonly rateLimits: RateLimitStore;
  readonly vendors: VendorStore;
  readonly merchants: MerchantDirectory;
  /** Affiliate links and the organizations' device ids. */
  readonly affiliate: Affiliate;
  /** Product search over the catalog: the in-process index, current with the table's change feed. */
  readonly search: SearchService;
  /** Agentic search: v1 in one request, v2 as an execution of the agentic workflow. */
  readonly agentic: Agentic;
  /** Crawls, listings and collections, vendor-mode extraction. */
  readonly crawl: Crawl;
  /** The crawl workflow's steps (discovery, page fetching and parsing): its workers only. */
  readonly crawlSteps: CrawlSteps;
  /** Signed webhooks of executions: subscriptions, deliveries, the organization's secret. */
  readonly webhooks: Webhooks;
  /** Start operations with an Idempotency-Key (Powertools idempotency, records in the table). */
  readonly idempotency: IdempotentStarts;

  // workflow plumbing
  readonly workflows: WorkflowEngine;
  readonly taskCallbacks: TaskCallbacks;
  /** Sender to a queue by logical name (topology/queues.ts). */
  queue(name: string): MessageSender;
  /** An execution's deadline in seconds for a workflow of topology/workflows.ts. */
  deadlineSeconds(workflow: string): number;

  // extraction
  readonly executions: Executions;
  readonly catalog: ProductCatalog;
  readonly extractJobs: ExtractJobs;
  readonly extractSteps: ExtractSteps;
  /** URL extractions at once shared by every batch of this process (Config.extractSlots). */
  readonly extractSlots: Limiter | undefined;
  /** Built on first use: the got-based fetcher (robots cache, per-host politeness) and the engine. */
  readonly fetcher: PageFetcher;
  readonly extractUrl: ExtractUrl;
  /** The synchronous path (legacy /api/product and /api/products). */
  extractNow(request: ExtractNowRequest): Promise<ExtractNowResult>;

  /** Closes the clients (local restarts, tests). */
  dispose(): void;
}

/** A getter's value built once, on first read. */
function once<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}

export function loadMerchants(file: string | undefined): MerchantDirectory {
  if (!file) return createMerchantDirectory(BUILT_IN_MERCHANTS);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the affiliate merchant list ${file}: ${(error as Error).message}`);
  }
  return createMerchantDirectory(parseMerchantList(json));
}

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const clock = options.clock ?? systemClock;
  const clients = options.clients ?? createClients(config);
  const { documents } = clients;
  const table = config.tableName;
  const senders = new Map<string, MessageSender>();
  const metrics = config.metrics === 'emf' ? emfMetrics() : tallyMetrics();
  setLogLevel(config.logLevel);

  const usageStore = once(() => dynamoUsageStore(documents, table));
  // Usage counts: group commit, and write-behind in a long-lived process (config.usageWriteBehindMs);
  // usage read here first stores every count recorded here.
  const meter = createUsageMeter((...args) => usageStore().add(...args), {
    writeBehindMs: config.usageWriteBehindMs,
    onLost: (error, calls) =>
      logger.warn('usage counts lost after repeated write failures', {
        calls,
        error: error instanceof Error ? error.message : String(error),
      }),
  });
  const usage = once(() => withMeterFlush(usageStore(), meter));
  const vendors = once(() => withVendorListCache(dynamoVendorStore(documents, table)));
  // The Step Functions client and its adapters are loaded on the first start, stop or callback: a
  // function that never calls them holds no @aws-sdk/client-sfn ('stepFunctions' in topology/capabilities.ts).
  const stepFunctions = onceAsync(async () => (await import('./step-functions')).createStepFunctions(config, clients));
  const workflows = once(() => lazyAsync<WorkflowEngine>(async () => (await stepFunctions()).workflows));
  const taskCallbacks = once(() => lazyAsync<TaskCallbacks>(async () => (await stepFunctions()).taskCallbacks));
  const executions = once(
    (): Executions =>
      createExecutions({
        store: dynamoExecutionStore(documents, table),
        workflows: workflows(),
        now: clock.now,
        metrics,
        // Terminal transitions and progress become webhook deliveries (read on each event).
        events: {
          transitioned: (execution) => webhooksOnce().events.transitioned(execution),
          progressed: (id) => webhooksOnce().events.progressed(id),
        },
      }),
  );
  const extractResults = once(() => dynamoExtractResultStore(documents, table));
  const catalog = once(() => createProductCatalog({ store: dynamoProductStore(documents, table), vendors: vendors() }));
  const extractSlots = once(() => (config.extractSlots === undefined ? undefined : createLimiter(config.extractSlots)));
  // got, the robots cache and per-host politeness: one instance per process, loaded on the first fetch.
  const fetcher = once(() =>
    lazyAsync<PageFetcher>(async () =>
      (await import('../adapters/http-fetch')).createHttpFetcher({
        resolve: config.resolve,
        crawlDelayMs: config.crawlDelayMs,
        egressProxies: config.egressProxies,
      }),
    ),
  );
  const engine = onceAsync(async () => {
    const [{ createExtractor }, { createOfflineEnricher }] = await Promise.all([
      import('../domain/extraction/engine'),
      import('../domain/enrichment'),
    ]);
    return createExtractor({ fetcher: fetcher(), enricher: createOfflineEnricher() });
  });
  const extractUrl = once((): ExtractUrl => async (url, options) => (await engine())(url, options));

  const deadlineSeconds = (workflow: string): number => {
    if (options.deadlineSeconds !== undefined) return options.deadlineSeconds;
    const spec = WORKFLOWS.find((w) => w.name === workflow);
    if (!spec) throw new Error(`No workflow "${workflow}" in lambdas/topology/workflows.ts`);
    return spec.timeoutSeconds + DEADLINE_MARGIN_SECONDS;
  };

  const container: Container = {
    config,
    clock,
    clients,
    metrics,
    // Per-process caches, each with its staleness bound stated where it is defined.
    accounts: withKeyCache(dynamoAccountStore(documents, table)),
    get usage() {
      return usage();
    },
    meter,
    rateLimits: dynamoRateLimitStore(documents, table, { leases: config.rateLimitLeases }),
    get vendors() {
      return vendors();
    },
    merchants: loadMerchants(config.affiliateMerchantsFile),
    get affiliate() {
      return affiliateOnce();
    },
    get search() {
      return searchOnce();
    },
    get agentic() {
      return agenticOnce();
    },
    get crawl() {
      return crawlOnce();
    },
    get crawlSteps() {
      return crawlStepsOnce();
    },
    get webhooks() {
      return webhooksOnce();
    },
    get idempotency() {
      return idempotencyOnce();
    },
    get workflows() {
      return workflows();
    },
    get taskCallbacks() {
      return taskCallbacks();
    },
    queue(name) {
      let sender = senders.get(name);
      if (!sender) {
        const url = config.queueUrls[name];
        if (!url) throw new Error(`No URL configured for queue "${name}"`);
        sender = createSqsSender(clients.sqs, url);
        senders.set(name, sender);
      }
      return sender;
    },
    deadlineSeconds,
    get executions() {
      return executions();
    },
    get catalog() {
      return catalog();
    },
    get extractJobs() {
      return extractJobsOnce();
    },
    get extractSteps() {
      return extractStepsOnce();
    },
    get extractSlots() {
      return extractSlots();
    },
    get fetcher() {
      return fetcher();
    },
    get extractUrl() {
      return extractUrl();
    },
    extractNow: async (request) =>
      (await import('../domain/extract-jobs/sync')).extractNow(request, {
        extractUrl: extractUrl(),
        catalog: catalog(),
      }),
    dispose() {
      destroyClients(clients);
    },
  };

  const affiliateOnce = once(() => createAffiliateCapability(container));
  const webhooksOnce = once((): Webhooks => createWebhooksCapability(container, executions));
  // The search index is loaded on the first search; its cursor is null until then (nothing read yet).
  let searchLoaded: SearchService | undefined;
  const searchModule = onceAsync(
    async () => (searchLoaded = (await import('./search')).createProductSearch(container)),
  );
  const searchOnce = once(() =>
    lazyAsync<SearchService, Pick<SearchService, 'cursor'>>(searchModule, {
      cursor: () => searchLoaded?.cursor() ?? null,
    }),
  );
  const idempotencyOnce = once(() =>
    lazyAsync<IdempotentStarts>(async () =>
      // Powertools dates records by the system clock, so the store does too (not a test clock).
      (await import('./idempotency')).createIdempotentStarts(documents, table),
    ),
  );
  // The enricher alone (the mini searches), without the extraction engine.
  const enricherOnce = once(() => lazyAsync<Enricher>(async () => (await import('./enricher')).createEnricher()));
  // Search, verification and enrichment are handed in lazily: the steps that call none of them
  // (start, status, rank, fail) load none of them (MEMBER_CAPABILITIES in topology/capabilities.ts).
  const agenticOnce = once(() =>
    lazyAsync<Agentic>(async () =>
      (await import('./agentic')).createAgentic(container, {
        search: searchOnce(),
        extractNow: (request) => container.extractNow(request),
        enricher: enricherOnce(),
      }),
    ),
  );
  // The listing store is a thin adapter (and has a synchronous member): built directly.
  const crawlModule = onceAsync(async () => (await import('./crawl')).createCrawl(container));
  const crawlOnce = once(() =>
    lazyAsync<Crawl, Pick<Crawl, 'store'>>(crawlModule, { store: dynamoListingStore(documents, table) }),
  );
  // The steps that read pages (determine, discover, processBatch) load the fetcher and the parsers;
  // the planning steps are a module of their own (MEMBER_CAPABILITIES in topology/capabilities.ts).
  const crawlStepsOnce = once((): CrawlSteps => {
    const pages = lazyAsync<CrawlSteps>(async () =>
      (await import('./crawl-steps')).createCrawlStepsOf(container, await crawlModule()),
    );
    const planning = lazyAsync<CrawlPlanning>(async () =>
      (await import('./crawl-planning')).createCrawlPlanningOf(container, await crawlModule()),
    );
    return {
      determine: pages.determine,
      discover: pages.discover,
      processBatch: pages.processBatch,
      analyze: planning.analyze,
      plan: planning.plan,
      abandonBatch: planning.abandonBatch,
      finalize: planning.finalize,
      fail: planning.fail,
      keepFound: planning.keepFound,
    };
  });
  const extractJobsOnce = once(() =>
    createExtractJobs({
      executions: executions(),
      results: extractResults(),
      workflows: workflows(),
      workflowName: EXTRACT_WORKFLOW,
      deadlineSeconds: deadlineSeconds(EXTRACT_WORKFLOW),
      // A vendor-mode extraction whose crawl ended without settling it is settled on read.
      settleWaiting: (execution) => crawlOnce().jobs.settleIfDue(execution),
    }),
  );
  // The engine is reached through the getter so steps that never fetch (prepare, finalize) never build it.
  const extractStepsOnce = once(() => {
    const stepsDeps: ExtractStepsDeps = {
      executions: executions(),
      results: extractResults(),
      extractUrl: (url, opts) => extractUrl()(url, opts),
      catalog: catalog(),
      extractSlots: extractSlots(),
    };
    // Tests and benchmarks only: crashing workers and duplicate deliveries around the same steps.
    if (!faultsConfigured(config.faults)) return createExtractSteps(stepsDeps);
    return withFaults(stepsDeps, config.faults, {
      resend: (message) => container.queue('extract-work').sendAll([message]),
    });
  });

  return container;
}

let processContainer: Container | undefined;

/** This process's container: built from the environment on first use (a Lambda cold start). */
export function getContainer(): Container {
  processContainer ??= createContainer(loadConfig());
  return processContainer;
}

/** The local runtime and tests install the container they built from their own Config. */
export function installContainer(container: Container | undefined): void {
  if (processContainer && processContainer !== container) processContainer.dispose();
  processContainer = container;
}
