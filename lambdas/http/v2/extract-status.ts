// GET /v2/extract/{execution_id}: v2 status; data and pagination when results are available.
import { defineRoute } from '../pipeline';
import { affiliateOf } from '../../composition/affiliate';
import { extractJobsOf } from '../../composition/extract-jobs';
import { v2ExtractStatus } from '../shapes/extract-status';

export const handler = defineRoute('v2ExtractStatus', async ({ params, query }, { org, deps }) => {
  const status = await extractJobsOf(deps).status({
    org,
    executionId: params.execution_id,
    page: query.page,
    pageSize: query.page_size,
  });
  return { body: v2ExtractStatus(status, await affiliateOf(deps).recordLinker(org)) };
});
