// The v2 agentic-search status from the domain's read model (DECISIONS: execution_id, status,
// error; data and pagination when completed; meta query, progress, timing, credits_used).
import type { AgenticStatus } from '../../domain/agentic/jobs';
import type { ResponseOf } from '../../contracts/operations';
import type { RecordLinker } from '../../domain/affiliate/links';

/** `link` fills the full records' affiliate links with the caller's device id (as extraction status does). */
export function agenticStatus(status: AgenticStatus, link: RecordLinker): ResponseOf<'v2AgenticSearchStatus'> {
  return {
    execution_id: status.execution_id,
    status: status.status,
    error: status.error,
    ...(status.results
      ? {
          data: status.results.items.map(({ url, product }) => ({ url, product: link(product) })),
          pagination: status.results.pagination,
        }
      : {}),
    meta: {
      query: status.query,
      progress: status.progress,
      start_date: status.start_date,
      stop_date: status.stop_date,
      duration_ms: status.duration_ms,
      credits_used: status.credits_used,
    },
  };
}
