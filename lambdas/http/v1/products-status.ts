// GET /v1/products/{execution_id}: v1 status; results paged by page/limit when available.
import { defineRoute } from '../pipeline';
import { affiliateOf } from '../../composition/affiliate';
import { extractJobsOf } from '../../composition/extract-jobs';
import { v1ExtractStatus } from '../shapes/extract-status';

export const handler = defineRoute('v1ProductsStatus', async ({ params, query }, { org, deps }) => {
  const status = await extractJobsOf(deps).status({
    org,
    executionId: params.execution_id,
    page: query.page,
    pageSize: query.limit,
  });
  return { body: v1ExtractStatus(status, await affiliateOf(deps).recordLinker(org)) };
});
