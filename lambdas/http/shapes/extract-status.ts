// Extraction status and execution lists in the v1 and v2 shapes, from the family-neutral read
// model of lambdas/domain/extract-jobs (ExtractionStatus, ExecutionList).
import type { ExtractionStatus } from '../../domain/extract-jobs/model';
import type { ExecutionList } from '../../domain/executions/service';
import type { UrlResult } from '../../domain/extraction/types';
import type { RecordLinker } from '../../domain/affiliate/links';
import { finalUrlField } from '../../domain/extraction/results';
import type { ResponseOf } from '../../contracts/operations';

type PerUrl = ResponseOf<'v2ExtractStatus'>['data'] extends (infer T)[] | undefined ? T : never;

/**
 * A per-URL result as served to one organization: final_url only when it differs from the input
 * URL, and the product's affiliate links carry that organization's device id (filled here, not
 * stored: a stored record is shared by every organization that extracts the same URL).
 */
export function perUrlResult(result: UrlResult, link: RecordLinker): PerUrl {
  const { final_url, product, ...rest } = result;
  return { ...rest, product: product ? link(product) : null, ...finalUrlField(result.url, final_url) };
}

/** List view: `processing` for pending and running (the summary already says so). */
export function executionSummaries(list: ExecutionList) {
  return list.items.map((item) => ({
    execution_id: item.execution_id,
    status: item.status,
    created_at: item.created_at,
  }));
}

export function v1ExecutionList(list: ExecutionList): ResponseOf<'v1ProductsList'> {
  return { executions: executionSummaries(list) };
}

export function v2ExecutionList(list: ExecutionList): ResponseOf<'v2ExtractList'> {
  return { data: executionSummaries(list), pagination: list.pagination, meta: {} };
}

/**
 * v1: progress (null until the execution starts), results.products and results.meta with
 * pagination {page, limit, ...}. Results appear when completed, and for a failed (cancelled or
 * timed-out) execution list the URLs that finished before it stopped.
 */
export function v1ExtractStatus(status: ExtractionStatus, link: RecordLinker): ResponseOf<'v1ProductsStatus'> {
  const r = status.result;
  const body: ResponseOf<'v1ProductsStatus'> = {
    status: status.status,
    progress:
      status.status === 'pending'
        ? null
        : {
            products_processed: r.products_successful,
            urls_completed: status.progress.products_processed,
            total_urls: status.progress.products_total,
            percent_complete: status.progress.percent_complete,
          },
    error: status.error,
    credits_used: status.credits_used,
  };
  if (status.results) {
    const p = status.results.pagination;
    body.results = {
      products: status.results.items.map((item) => perUrlResult(item, link)),
      meta: {
        total_requested: r.products_requested,
        total_successful: r.products_successful,
        total_failed: r.products_failed,
        total_failed_by_reason: r.products_failed_by_reason,
        total_invalid: r.products_invalid,
        total_invalid_by_reason: r.products_invalid_by_reason,
        total_pending: r.products_pending,
      },
    };
    body.pagination = {
      page: p.page,
      limit: p.page_size,
      total_items: p.total_items,
      total_pages: p.total_pages,
      has_next: p.has_next,
      has_prev: p.has_prev,
    };
  }
  return body;
}

/** v2: results move to `data`, counts to meta.result, progress to meta.progress, plus timing. */
export function v2ExtractStatus(status: ExtractionStatus, link: RecordLinker): ResponseOf<'v2ExtractStatus'> {
  return {
    execution_id: status.execution_id,
    status: status.status,
    error: status.error,
    ...(status.results
      ? { data: status.results.items.map((item) => perUrlResult(item, link)), pagination: status.results.pagination }
      : {}),
    meta: {
      progress: { ...status.progress },
      start_date: status.start_date,
      stop_date: status.stop_date,
      duration_ms: status.duration_ms,
      result: { ...status.result },
      credits_used: status.credits_used,
      ...(status.waiting_for ? { waiting_for: status.waiting_for } : {}),
    },
  };
}
