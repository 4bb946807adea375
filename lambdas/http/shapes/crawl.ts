// Crawl status, listings and collections in the v1 and v2 shapes, from the family-neutral read
// models of lambdas/domain/crawl and lambdas/domain/listings.
import type { CrawlStatus } from '../../domain/crawl/jobs';
import type { Pagination } from '../../domain/executions/service';
import type { ResponseOf } from '../../contracts/operations';

export function v2CrawlStatus(status: CrawlStatus): ResponseOf<'v2CrawlStatus'> {
  return {
    execution_id: status.execution_id,
    status: status.status,
    error: status.error,
    meta: {
      vendor: status.vendor,
      start_date: status.start_date,
      stop_date: status.stop_date,
      duration_ms: status.duration_ms,
      progress: status.progress,
      steps: status.steps,
      result: status.result,
    },
  };
}

export const v1CrawlStatus = (status: CrawlStatus): ResponseOf<'v1CrawlStatus'> => ({
  status: status.status,
  total_listings_found: status.result.listings_total,
});

/** v1 meta form: current_page and page_size with has_next/has_prev. */
export const v1Meta = (p: Pagination) => ({
  total_items: p.total_items,
  total_pages: p.total_pages,
  current_page: p.page,
  page_size: p.page_size,
  has_next: p.has_next,
  has_prev: p.has_prev,
});
