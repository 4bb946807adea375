// Extraction jobs as the API sees them (v1 products, v1 extract, v2 extract): start, status,
// list and cancel. Family-neutral: handlers validate the body, call these, and render plain data.
import { invalid } from '../errors';
import { MAX_URL_LENGTH, normalizeUrl, vendorKey } from '../extraction/url';
import { malformedResult } from '../extraction/results';
import type { ExtractOptions } from '../extraction/types';
import { CRAWL_FAILED_MESSAGE, durationMs, type Execution, type StatusFilter } from '../executions/model';
import { pagination, type ExecutionList, type Executions } from '../executions/service';
import type { WorkflowEngine } from '../../ports/workflow';
import type { PlanningResultStore, UrlEntry } from '../../ports/extract-results';
import type { WebhookSpec } from '../webhooks/model';
import { MAX_URLS, MAX_VENDOR_URLS, percentComplete, readCounts, type ExtractionStatus } from './model';

export type ExtractKind = 'products-batch' | 'extract-urls' | 'extract-vendor';

export interface ExtractJobsDeps {
  executions: Executions;
  results: PlanningResultStore;
  workflows: WorkflowEngine;
  /** Workflow name in topology WORKFLOWS ('extract'). */
  workflowName: string;
  /** Execution deadline; a stalled extraction is failed after it. */
  deadlineSeconds: number;
  /** The organization sees the change feed of the vendors it extracts (lambdas/domain/changes). */
  grantVendors?: (org: string, vendors: string[]) => Promise<void>;
}

export interface InvalidUrl {
  index: number;
  url: string;
  problem: string;
}

export interface StartExtraction {
  org: string;
  kind: ExtractKind;
  /** As sent; entries may be anything (non-strings are malformed). Empty only when waiting for a crawl. */
  urls: readonly unknown[];
  options: ExtractOptions;
  /** extract-vendor: the vendor key; part of the execution id. */
  vendor?: string;
  /** extract-vendor: a crawl id to wait for; URLs are then supplied by releaseWaiting. */
  waitingFor?: string;
  /**
   * 'record' (default): malformed entries become results with outcome malformed_url, counted invalid.
   * 'reject': any malformed entry fails the request with INVALID_PARAMETER and context.invalid_urls.
   */
  onInvalid?: 'record' | 'reject';
  /** Extra request fields kept with the execution (e.g. max_products). */
  extra?: Record<string, unknown>;
  /** Extra counts known at start (e.g. listings_count). */
  input?: Record<string, number>;
  /** Stored with the execution, before anything runs. */
  webhook?: WebhookSpec;
}

export interface StartedExtraction {
  execution_id: string;
  status: Execution['status'];
  /** Charged so far: 0 at start (credits are per successful product). */
  credits_used: number;
  /** Number of input entries (every one gets exactly one result). */
  url_count: number;
  /** Entries that will be fetched (valid; duplicates included). */
  valid_count: number;
  invalid_urls: InvalidUrl[];
}

/**
 * Turns the input list into entries, one per index. Duplicates (same normalised URL) point at
 * their first occurrence with dup_of: it is fetched once and every index gets the result, under
 * its own input URL. Malformed entries are finished at once as malformed_url, retry false.
 */
export function planEntries(urls: readonly unknown[]): { entries: UrlEntry[]; invalidUrls: InvalidUrl[] } {
  const entries: UrlEntry[] = [];
  const invalidUrls: InvalidUrl[] = [];
  const firstIndexOf = new Map<string, number>();
  urls.forEach((raw, index) => {
    // Echoed in results and stored in an item: a URL over the limit (a crawled listing can be
    // anything) is kept to its first MAX_URL_LENGTH characters, never the whole string.
    const input = clipUrl(typeof raw === 'string' ? raw : String(raw ?? ''));
    const normalized = typeof raw === 'string' ? normalizeUrl(raw) : ({ ok: false, problem: 'not a string' } as const);
    if (!normalized.ok) {
      invalidUrls.push({ index, url: input, problem: normalized.problem });
      entries.push({
        index,
        input,
        url: null,
        dup_of: null,
        state: 'done',
        result: malformedResult(input, normalized.problem),
      });
      return;
    }
    const first = firstIndexOf.get(normalized.url);
    if (first === undefined) firstIndexOf.set(normalized.url, index);
    entries.push({ index, input, url: normalized.url, dup_of: first ?? null, state: 'pending', result: null });
  });
  return { entries, invalidUrls };
}

const clipUrl = (input: string): string =>
  input.length > MAX_URL_LENGTH ? `${input.slice(0, MAX_URL_LENGTH)}…` : input;

export type ExtractJobs = ReturnType<typeof createExtractJobs>;

export function createExtractJobs(deps: ExtractJobsDeps) {
  const { executions, results, workflows, workflowName } = deps;

  /** Writes entries, then starts the workflow; a failed start fails the execution (never left pending). */
  async function launch(execution: Execution, entries: UrlEntry[]): Promise<void> {
    try {
      await results.putPlan(execution.id, entries);
      await workflows.start(workflowName, execution.id, { executionId: execution.id });
    } catch (error) {
      await executions.fail(execution.id, 'The extraction could not be started; resubmit the request');
      throw error;
    }
  }

  async function status(request: {
    org: string;
    executionId: string;
    page?: number;
    pageSize?: number;
  }): Promise<ExtractionStatus> {
    const execution = await executions.find(request.org, request.executionId, 'extract');
    const page = Math.max(1, Math.floor(request.page ?? 1));
    const pageSize = Math.min(100, Math.max(1, Math.floor(request.pageSize ?? 50)));
    const counts = readCounts(execution);
    let pageOfResults: ExtractionStatus['results'] = null;
    if (execution.status === 'completed') {
      const entries = await results.range(execution.id, (page - 1) * pageSize, pageSize);
      pageOfResults = {
        items: entries.flatMap((entry) => (entry.result ? [entry.result] : [])),
        pagination: pagination(page, pageSize, counts.requested),
      };
    } else if (execution.status === 'failed' && counts.processed > 0) {
      // Cancelled or timed out: what finished stays readable, in input order. Pages cover input
      // positions as for a completed execution, so a page reads only its own entries; it lists
      // the ones among them that finished.
      const entries = await results.range(execution.id, (page - 1) * pageSize, pageSize);
      pageOfResults = {
        items: entries.flatMap((entry) => (entry.state === 'done' && entry.result ? [entry.result] : [])),
        pagination: pagination(page, pageSize, counts.requested),
      };
    }
    return {
      execution_id: execution.id,
      kind: execution.kind,
      status: execution.status,
      error: execution.error,
      created_at: execution.created_at,
      start_date: execution.start_date,
      stop_date: execution.stop_date,
      duration_ms: durationMs(execution, new Date()),
      waiting_for: execution.status === 'pending' ? execution.waiting_for : null,
      progress: {
        products_processed: counts.processed,
        products_total: counts.requested,
        percent_complete: percentComplete(counts, execution.status),
      },
      result: {
        products_requested: counts.requested,
        products_successful: counts.successful,
        products_failed: counts.failed,
        products_failed_by_reason: counts.failed_by_reason,
        products_invalid: counts.invalid,
        products_invalid_by_reason: counts.invalid_by_reason,
        products_pending: counts.pending,
      },
      credits_used: counts.credits,
      results: pageOfResults,
    };
  }

  return {
    planEntries,

    async start(request: StartExtraction): Promise<StartedExtraction> {
      const limit = request.kind === 'extract-vendor' ? MAX_VENDOR_URLS : MAX_URLS;
      if (!Array.isArray(request.urls)) throw invalid('urls must be an array of strings');
      if (request.urls.length === 0 && !request.waitingFor) throw invalid('urls must not be empty');
      if (request.urls.length > limit) throw invalid(`urls must hold at most ${limit} entries`, { max_urls: limit });
      if (request.kind === 'extract-vendor' && !request.vendor) throw invalid('vendor is required');

      const { entries, invalidUrls } = planEntries(request.urls);
      if (invalidUrls.length && request.onInvalid === 'reject') {
        throw invalid(`${invalidUrls.length} of ${entries.length} URLs are invalid`, { invalid_urls: invalidUrls });
      }
      const vendors = new Set(entries.flatMap((e) => (e.url ? [vendorKey(e.url)] : [])));
      if (request.vendor) vendors.add(request.vendor);
      await deps.grantVendors?.(
        request.org,
        [...vendors].filter((v): v is string => !!v),
      );
      const execution = await executions.create({
        org: request.org,
        kind: request.kind,
        subject: request.vendor,
        options: { ...request.extra, ...request.options, ...(request.vendor ? { vendor: request.vendor } : {}) },
        input: { ...request.input, requested: entries.length },
        counters: invalidUrls.length ? { malformed_url: invalidUrls.length } : {},
        workflow: workflowName,
        deadlineSeconds: deps.deadlineSeconds,
        waitingFor: request.waitingFor ?? null,
        webhook: request.webhook,
      });
      if (!request.waitingFor) await launch(execution, entries);
      else if (entries.length) await results.putPlan(execution.id, entries);
      return {
        execution_id: execution.id,
        status: execution.status,
        credits_used: 0,
        url_count: entries.length,
        valid_count: entries.length - invalidUrls.length,
        invalid_urls: invalidUrls,
      };
    },

    status,

    list: (request: { org: string; status?: StatusFilter; page?: number; pageSize?: number }): Promise<ExecutionList> =>
      executions.list({ ...request, group: 'extract' }),

    /** Cancels: failed with "Execution was cancelled"; what finished stays readable. 409 when finished or waiting on a crawl. */
    async cancel(request: { org: string; executionId: string }) {
      const cancelled = await executions.cancel(request.org, request.executionId, 'extract');
      return { execution_id: cancelled.id, status: cancelled.status, error: cancelled.error };
    },

    /**
     * A vendor-mode extraction waiting for `crawlId`: the crawl finished, so extract these URLs
     * (its listings, already limited to max_products). Returns false if it no longer waits.
     */
    async releaseWaiting(
      executionId: string,
      urls: readonly string[],
      input: Record<string, number> = {},
    ): Promise<boolean> {
      const execution = await executions.get(executionId);
      if (execution?.status !== 'pending' || !execution.waiting_for) return false;
      const { entries, invalidUrls } = planEntries(urls.slice(0, MAX_VENDOR_URLS));
      const updated = await executions.update(executionId, ['pending'], {
        waiting_for: null,
        input: { ...input, requested: entries.length },
        counters: { malformed_url: invalidUrls.length },
      });
      if (!updated) return false;
      await launch(updated, entries);
      return true;
    },

    /** The crawl it waited for failed or was cancelled: fail with the fixed message. */
    failWaiting: (executionId: string) => executions.fail(executionId, CRAWL_FAILED_MESSAGE, { waiting_for: null }),
  };
}
