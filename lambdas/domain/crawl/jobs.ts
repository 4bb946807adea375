// Crawls as the API sees them (v1 and v2): start, status, list, cancel, and vendor-mode
// extraction, which extracts a vendor's listings or waits for the crawl that finds them. The
// data path runs one way: a crawl's end (its workflow's last step, a cancel, the reaper) settles
// the extractions waiting for it; extraction jobs know nothing of crawls.
import { invalid, notFound } from '../errors';
import { vendorKey } from '../extraction/url';
import { CRAWL_FAILED_MESSAGE, durationMs, TERMINAL, type Execution, type StatusFilter } from '../executions/model';
import type { ExecutionList, Executions } from '../executions/service';
import { kindOfExecutionId } from '../executions/ids';
import type { ExtractJobs, StartExtraction } from '../extract-jobs/jobs';
import type { ExtractOptions } from '../extraction/types';
import type { WebhookSpec } from '../webhooks/model';
import { MAX_VENDOR_URLS } from '../extract-jobs/model';
import type { Catalog } from '../listings/catalog';
import type { ListingStore } from '../../ports/listings';
import type { WorkflowEngine } from '../../ports/workflow';
import { CRAWL_STEPS, crawlCredits, crawlOptionsOf } from './model';

export interface CrawlJobsDeps {
  executions: Executions;
  store: ListingStore;
  catalog: Catalog;
  workflows: WorkflowEngine;
  workflowName: string;
  deadlineSeconds: number;
  /** A crawl that ended early keeps what it found (keep-found.ts). */
  keepFound: (crawlId: string) => Promise<void>;
  /** The extraction jobs (vendor mode). */
  extractJobs: () => ExtractJobs;
  now?: () => Date;
  /** The organization sees the change feed of the vendors it crawls (lambdas/domain/changes). */
  grantVendors?: (org: string, vendors: string[]) => Promise<void>;
}

export interface CrawlStatus {
  execution_id: string;
  status: Execution['status'];
  error: string | null;
  vendor: string;
  start_date: string | null;
  stop_date: string | null;
  duration_ms: number | null;
  /** While pending or running; null when finished. */
  progress: { collections_found: number; listings_found: number } | null;
  steps: Array<{ name: string; status: 'completed' | 'running' | 'pending' | 'failed' }>;
  result: { collections_total: number; listings_total: number };
  credits_used: number;
}

export interface StartedVendorExtraction {
  execution_id: string;
  status: Execution['status'];
  credits_used: number;
  listings_count: number;
  products_to_process: number;
  waiting_for: string | null;
}

export type CrawlJobs = ReturnType<typeof createCrawlJobs>;

/**
 * The vendor key and the origin to crawl from what a caller sent (host or any URL of the store).
 * The origin is the vendor key's (no `www.`): the storefront's own redirect, if any, decides the
 * host listings are read from (Determining crawl method follows it).
 */
export function crawlTarget(raw: string): { vendor: string; origin: string } {
  const vendor = vendorKey(raw);
  if (!vendor?.includes('.')) throw invalid('vendor must be a hostname or a URL of the store', { parameter: 'vendor' });
  const scheme = /^http:\/\//i.test(raw.trim()) ? 'http' : 'https';
  let port = '';
  try {
    port = new URL(/^https?:\/\//i.test(raw.trim()) ? raw.trim() : `https://${raw.trim()}`).port;
  } catch {
    // vendorKey read it: no port
  }
  return { vendor, origin: `${scheme}://${vendor}${port ? `:${port}` : ''}` };
}

export function createCrawlJobs(deps: CrawlJobsDeps) {
  const { executions, store, catalog, workflows, workflowName } = deps;

  function readStatus(execution: Execution, now: Date): CrawlStatus {
    const c = execution.counters;
    const options = crawlOptionsOf(execution);
    const cap = (n: number) => (options.maxListings === null ? n : Math.min(n, options.maxListings));
    const finished = TERMINAL.has(execution.status);
    const done = Math.min(CRAWL_STEPS.length, Math.max(0, c.steps ?? 0));
    const listingsFound = cap(Math.max(0, c.listings_found ?? 0));
    const collectionsFound = Math.max(0, c.collections_found ?? 0);
    return {
      execution_id: execution.id,
      status: execution.status,
      error: execution.error,
      vendor: options.vendor,
      start_date: execution.start_date,
      stop_date: execution.stop_date,
      duration_ms: durationMs(execution, now),
      progress: finished ? null : { collections_found: collectionsFound, listings_found: listingsFound },
      steps: CRAWL_STEPS.map((name, i) => ({
        name,
        status:
          i < done
            ? 'completed'
            : i > done
              ? 'pending'
              : execution.status === 'running'
                ? 'running'
                : execution.status === 'failed'
                  ? 'failed'
                  : 'pending',
      })),
      result: {
        collections_total: c.collections_total ?? collectionsFound,
        listings_total: c.listings_total ?? listingsFound,
      },
      credits_used: Math.max(1, c.credits ?? crawlCredits(listingsFound)),
    };
  }

  /** Releases (crawl completed) or fails (crawl failed) the extractions waiting for it. */
  async function settleWaiters(crawlId: string): Promise<void> {
    const crawl = await executions.get(crawlId);
    if (!crawl || !TERMINAL.has(crawl.status)) return;
    for (const id of await store.waiters(crawlId)) await settleOne(id, crawl);
  }

  /** Releases or fails one extraction waiting for `crawl` (ended); true when it changed. */
  async function settleOne(extractionId: string, crawl: Execution): Promise<boolean> {
    const extraction = await executions.get(extractionId);
    if (extraction?.status !== 'pending' || extraction.waiting_for !== crawl.id) return false;
    const jobs = deps.extractJobs();
    if (crawl.status === 'failed') return (await jobs.failWaiting(extractionId)) !== null;
    const max = typeof extraction.options.max_products === 'number' ? extraction.options.max_products : MAX_VENDOR_URLS;
    const vendor = String(extraction.options.vendor ?? '');
    const { total, urls } = await catalog.listingUrls(vendor, Math.min(max, MAX_VENDOR_URLS));
    return jobs.releaseWaiting(extractionId, urls, { listings_count: total, products_to_process: urls.length });
  }

  /** A crawl that ended early (cancelled, reaped): what it found stays listed, then its waiters are settled. */
  async function endedEarly(crawlId: string): Promise<void> {
    await deps.keepFound(crawlId);
    await settleWaiters(crawlId);
  }

  /**
   * The reaper schedule's work: fails executions past their deadline (every kind); a reaped crawl
   * then ends as a cancelled one does; and an extraction still waiting for a crawl that has ended
   * (its end could not settle it) is settled now.
   */
  async function reapOverdue(options: { limit?: number } = {}): Promise<{ failed: string[]; settled: string[] }> {
    const { failed } = await executions.reapOverdue(options);
    for (const id of failed) if (kindOfExecutionId(id) === 'crawl') await endedEarly(id);
    const settled: string[] = [];
    const crawls = new Map<string, Execution | null>();
    for (const { id, waitingFor } of await executions.waiting(options.limit)) {
      if (!crawls.has(waitingFor)) crawls.set(waitingFor, await executions.get(waitingFor));
      const crawl = crawls.get(waitingFor);
      if (crawl && TERMINAL.has(crawl.status) && (await settleOne(id, crawl))) settled.push(id);
    }
    return { failed, settled };
  }

  async function start(request: {
    org: string;
    vendor: string;
    maxListings?: number;
    countryCode: string;
    webhook?: WebhookSpec;
  }) {
    const { vendor, origin } = crawlTarget(request.vendor);
    await deps.grantVendors?.(request.org, [vendor]);
    const execution = await executions.create({
      org: request.org,
      kind: 'crawl',
      subject: vendor,
      options: { vendor, origin, maxListings: request.maxListings ?? null, countryCode: request.countryCode },
      counters: { credits: crawlCredits(0) },
      workflow: workflowName,
      deadlineSeconds: deps.deadlineSeconds,
      webhook: request.webhook,
    });
    try {
      await workflows.start(workflowName, execution.id, { crawlId: execution.id });
    } catch (error) {
      await executions.fail(execution.id, 'The crawl could not be started; start it again');
      throw error;
    }
    return { execution_id: execution.id, status: execution.status, credits_used: crawlCredits(0), vendor };
  }

  return {
    start,

    async status(request: { org: string; executionId: string }): Promise<CrawlStatus> {
      const execution = await executions.find(request.org, request.executionId, 'crawl');
      return readStatus(execution, deps.now?.() ?? new Date());
    },

    list: (request: { org: string; status?: StatusFilter; page?: number; pageSize?: number }): Promise<ExecutionList> =>
      executions.list({ ...request, group: 'crawl' }),

    /** Stops the crawl: failed with "Execution was cancelled"; what it found stays listed. */
    async cancel(request: { org: string; executionId: string }) {
      const cancelled = await executions.cancel(request.org, request.executionId, 'crawl');
      await endedEarly(cancelled.id);
      return { execution_id: cancelled.id, status: cancelled.status, error: cancelled.error };
    },

    settleWaiters,
    reapOverdue,

    /**
     * Vendor-mode extraction (v2 vendor, v1 domain): the vendor's listings (max_products first)
     * now; with crawl_id of a crawl still running, pending until it ends; with no listings and no
     * crawl_id, a crawl of the vendor is started and awaited.
     */
    async startVendorExtraction(request: {
      org: string;
      vendor: string;
      maxProducts?: number;
      crawlId?: string;
      options: ExtractOptions;
      webhook?: WebhookSpec;
    }): Promise<StartedVendorExtraction> {
      const { vendor } = crawlTarget(request.vendor);
      const max = Math.min(request.maxProducts ?? MAX_VENDOR_URLS, MAX_VENDOR_URLS);
      let waitFor: Execution | null = null;
      if (request.crawlId !== undefined) {
        const crawl = await executions.find(request.org, request.crawlId, 'crawl').catch(() => {
          throw notFound(`Crawl ${String(request.crawlId).slice(0, 100)} not found`);
        });
        if (crawlOptionsOf(crawl).vendor !== vendor)
          throw invalid(`crawl_id ${crawl.id} is a crawl of ${crawlOptionsOf(crawl).vendor}, not of ${vendor}`, {
            parameter: 'crawl_id',
          });
        if (!TERMINAL.has(crawl.status)) waitFor = crawl;
        else if (crawl.status === 'failed') waitFor = crawl; // fails at once with the fixed message, below
      }
      const listed = await catalog.listingUrls(vendor, max);
      if (!waitFor && request.crawlId === undefined && listed.total === 0) {
        const started = await start({
          org: request.org,
          vendor: request.vendor,
          countryCode: request.options.countryCode,
        });
        waitFor = await executions.get(started.execution_id);
      }
      const base: StartExtraction = {
        org: request.org,
        kind: 'extract-vendor',
        vendor,
        urls: waitFor ? [] : listed.urls,
        options: request.options,
        extra: { max_products: request.maxProducts ?? null },
        input: {
          listings_count: listed.total,
          products_to_process: waitFor ? Math.min(max, listed.total) : listed.urls.length,
        },
        onInvalid: 'record',
        webhook: request.webhook,
      };
      const jobs = deps.extractJobs();
      if (!waitFor && !listed.urls.length) {
        // A known vendor whose crawl found nothing: nothing to extract, but still one execution.
        const started = await jobs.start({ ...base, waitingFor: 'none' });
        await jobs.releaseWaiting(started.execution_id, [], { listings_count: 0, products_to_process: 0 });
        return {
          execution_id: started.execution_id,
          status: 'pending',
          credits_used: 0,
          listings_count: 0,
          products_to_process: 0,
          waiting_for: null,
        };
      }
      const started = await jobs.start({ ...base, ...(waitFor ? { waitingFor: waitFor.id } : {}) });
      if (waitFor) {
        await store.addWaiter(waitFor.id, started.execution_id);
        // The crawl may have ended between the check and the registration: settle now if so.
        const crawl = await executions.get(waitFor.id);
        if (crawl && TERMINAL.has(crawl.status)) await settleOne(started.execution_id, crawl);
      }
      return {
        execution_id: started.execution_id,
        status: 'pending',
        credits_used: 0,
        listings_count: listed.total,
        products_to_process: waitFor ? Math.min(max, listed.total) : listed.urls.length,
        waiting_for: waitFor?.id ?? null,
      };
    },
  };
}

export { CRAWL_FAILED_MESSAGE };
