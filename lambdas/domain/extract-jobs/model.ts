// Counting rules of an extraction: outcome counters on the execution item, credits (DECISIONS),
// and the read model shared by v1 and v2 status renderers.
import { OUTCOME_CLASS, type ExtractOptions, type Outcome, type UrlResult } from '../extraction/types';
import type { Execution } from '../executions/model';
import type { UrlEntry } from '../../ports/extract-results';
import type { Pagination } from '../executions/service';

export const OUTCOMES: readonly Outcome[] = [
  'success',
  'non_product_url',
  'malformed_url',
  'automated_access_not_permitted',
  'other',
];

/**
 * Unique URLs per SQS message (one Map iteration). A redelivery redoes only the URLs still
 * pending; larger batches spread the per-message cost over more URLs: a batch costs about 9 calls
 * whatever its size (send, receive, delete, task success, its read, the marks read, the claim,
 * the progress and vendor updates) besides its item writes (25 per BatchWriteItem). 50 keeps a
 * batch's claim (the gzip of 50 results, enriched ones included) well inside one item; 25 cost
 * 612 calls per 1000 URLs, 50 under 400.
 */
export const BATCH_URLS = 50;
/**
 * Unique URLs per batch of a plain extraction (no enrichment, reviews, image tags, similar
 * products or provenance): its results are a few KB each (100 of the store simulator's: 330 KB of JSON, 35 KB
 * gzipped in their claim, where an item holds 400 KB), so twice as many fit a claim with room to
 * spare, and the batch's fixed calls (about 9 SDK calls, a Step Functions Map iteration, a Lambda
 * invocation) are spread over twice as many URLs: 1000 plain URLs take 10 batches, ~200 SDK calls
 * instead of ~280. Richer results keep BATCH_URLS: a claim that would not fit one item falls back
 * to a write per entry.
 */
export const PLAIN_BATCH_URLS = 100;

/** How an execution with these options is split: at most `max` URLs a batch, about `batches` batches. */
export function batchingFor(options: ExtractOptions): { max: number; batches: number } {
  const plain =
    !options.enableEnrichment &&
    !options.enableReviews &&
    !options.enableImageTags &&
    !options.enableSimilarProducts &&
    !options.includeProvenance;
  return plain ? { max: PLAIN_BATCH_URLS, batches: 10 } : { max: BATCH_URLS, batches: 20 };
}

/**
 * Batch size for an execution of `urlCount` URLs: `max` for large jobs, smaller for small ones so
 * they still report progress (counters move per finished batch) and can be cancelled keeping
 * what finished: about `batches` batches (20 by default), never under 10 URLs, never over `max`.
 * A pure function of the entries and options, so Prepare, a restarted Prepare and Finalize plan
 * the same batches.
 */
export const batchSizeFor = (urlCount: number, max = BATCH_URLS, batches = 20): number =>
  Math.min(max, Math.max(10, Math.ceil(urlCount / batches)));
/** URL-mode limit (v1 products, v2 urls). */
export const MAX_URLS = 1000;
/** Vendor-mode limit: listings of one vendor extracted by one execution. */
export const MAX_VENDOR_URLS = 10_000;

/** Credits per successful product: 1, plus 1 per enabled enrichment, reviews, image tags, similar products. */
export const creditsPerSuccess = (options: ExtractOptions): number =>
  1 +
  [options.enableEnrichment, options.enableReviews, options.enableImageTags, options.enableSimilarProducts].filter(
    Boolean,
  ).length;

/** ExtractOptions as stored in the execution item's `options`. */
export function optionsOf(execution: Execution): ExtractOptions {
  const o = execution.options;
  return {
    enableEnrichment: o.enableEnrichment === true,
    enableReviews: o.enableReviews === true,
    enableImageTags: o.enableImageTags === true,
    enableSimilarProducts: o.enableSimilarProducts === true,
    countryCode: typeof o.countryCode === 'string' ? o.countryCode : 'us',
    ...(o.render === 'always' || o.render === 'never' ? { render: o.render } : {}),
    ...(o.includeProvenance === true ? { includeProvenance: true as const } : {}),
  };
}

/**
 * Counter increments for finished entries: one per outcome, and credits for successes of URLs
 * actually fetched (a duplicate input shares its first occurrence's fetch and costs nothing).
 */
export function countEntries(
  entries: ReadonlyArray<Pick<UrlEntry, 'state' | 'dup_of'> & { result: { outcome: Outcome } | null }>,
  perSuccess: number,
): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
  let credits = 0;
  for (const entry of entries) {
    if (entry.state !== 'done' || !entry.result) continue;
    counts[entry.result.outcome] += 1;
    if (entry.result.outcome === 'success' && entry.dup_of === null) credits += perSuccess;
  }
  return { ...counts, credits };
}

export interface ExtractionCounts {
  requested: number;
  successful: number;
  failed: number;
  failed_by_reason: Partial<Record<Outcome, number>>;
  invalid: number;
  invalid_by_reason: Partial<Record<Outcome, number>>;
  pending: number;
  processed: number;
  credits: number;
}

/** Counts from the execution item; successful + failed + invalid + pending = requested always. */
export function readCounts(execution: Execution): ExtractionCounts {
  const requested = Math.max(0, execution.input.requested ?? 0);
  const counts = { successful: 0, failed: 0, invalid: 0 };
  const failedBy: Partial<Record<Outcome, number>> = {};
  const invalidBy: Partial<Record<Outcome, number>> = {};
  let budget = requested; // never report more finished URLs than were requested
  for (const outcome of OUTCOMES) {
    const n = Math.min(Math.max(0, execution.counters[outcome] ?? 0), budget);
    budget -= n;
    if (n === 0) continue;
    const cls = OUTCOME_CLASS[outcome];
    if (cls === 'success') counts.successful += n;
    else if (cls === 'failed') {
      counts.failed += n;
      failedBy[outcome] = n;
    } else {
      counts.invalid += n;
      invalidBy[outcome] = n;
    }
  }
  const processed = counts.successful + counts.failed + counts.invalid;
  return {
    requested,
    ...counts,
    failed_by_reason: failedBy,
    invalid_by_reason: invalidBy,
    pending: requested - processed,
    processed,
    credits: Math.max(0, execution.counters.credits ?? 0),
  };
}

/** The status of an extraction, plain data for the v1 and v2 renderers. */
export interface ExtractionStatus {
  execution_id: string;
  kind: Execution['kind'];
  /** Exact state: pending | running | completed | failed. */
  status: Execution['status'];
  /** null unless failed ("Execution was cancelled", the crawl message, the deadline message...). */
  error: string | null;
  created_at: string;
  start_date: string | null;
  stop_date: string | null;
  duration_ms: number | null;
  /** Crawl id a vendor-mode extraction waits for, else null (v2 meta.waiting_for when set). */
  waiting_for: string | null;
  progress: { products_processed: number; products_total: number; percent_complete: number };
  /** v2 meta.result; v1 results.meta uses the same numbers under total_* names. */
  result: {
    products_requested: number;
    products_successful: number;
    products_failed: number;
    products_failed_by_reason: Partial<Record<Outcome, number>>;
    products_invalid: number;
    products_invalid_by_reason: Partial<Record<Outcome, number>>;
    products_pending: number;
  };
  credits_used: number;
  /**
   * One page of per-URL results in input order; null while pending or running. When completed
   * every input index is there; when failed (cancelled, deadline) only the URLs that finished.
   */
  results: { items: UrlResult[]; pagination: Pagination } | null;
}

export function percentComplete(counts: ExtractionCounts, status: Execution['status']): number {
  if (counts.requested === 0) return status === 'completed' ? 100 : 0;
  return Math.floor((counts.processed * 100) / counts.requested);
}
