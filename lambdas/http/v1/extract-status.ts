// GET /v1/extract/{execution_id}: the v1 extract status of a vendor-based extraction.
import { defineRoute } from '../pipeline';
import { affiliateOf } from '../../composition/affiliate';
import { extractJobsOf } from '../../composition/extract-jobs';
import { v1ExtractStatus } from '../shapes/extract-status';

export const handler = defineRoute('v1ExtractStatus', async ({ params, query }, { org, deps }) => {
  const status = await extractJobsOf(deps).status({
    org,
    executionId: params.execution_id,
    page: query.page,
    pageSize: query.limit,
  });
  return { body: v1ExtractStatus(status, await affiliateOf(deps).recordLinker(org)) };
});
