// GET /v1/products/{execution_id}: v1 status; results paged by page/limit when available.
import { defineRoute } from '../pipeline';
import { v1ExtractStatus } from '../shapes/extract-status';

export const handler = defineRoute('v1ProductsStatus', async ({ params, query }, { org, deps }) => {
  const status = await deps.extractJobs.status({
    org,
    executionId: params.execution_id,
    page: query.page,
    pageSize: query.limit,
  });
  return { body: v1ExtractStatus(status, await deps.affiliate.recordLinker(org)) };
});
