// GET /v1/extract/{execution_id}: the v1 extract status of a vendor-based extraction.
import { defineRoute } from '../pipeline';
import { v1ExtractStatus } from '../shapes/extract-status';

export const handler = defineRoute('v1ExtractStatus', async ({ params, query }, { org, deps }) => {
  const status = await deps.extractJobs.status({
    org,
    executionId: params.execution_id,
    page: query.page,
    pageSize: query.limit,
  });
  return { body: v1ExtractStatus(status, await deps.affiliate.recordLinker(org)) };
});
