// GET /v2/agentic-search/{execution_id}: status, progress and, once completed, the verified
// products (DECISIONS' result shape). Another organization's execution is 404.
import { defineRoute } from '../pipeline';
import { affiliateOf } from '../../composition/affiliate';
import { agenticJobsOf } from '../../composition/agentic';
import { agenticStatus } from '../shapes/search-agentic';

export const handler = defineRoute('v2AgenticSearchStatus', async ({ params }, { org, deps }) => {
  const status = await agenticJobsOf(deps).status({ org, executionId: params.execution_id });
  return { body: agenticStatus(status, await affiliateOf(deps).recordLinker(org)) };
});
