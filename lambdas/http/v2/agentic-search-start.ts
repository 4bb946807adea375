// POST /v2/agentic-search: starts the agentic-search execution (202); poll its status.
import { defineRoute } from '../pipeline';
import { agenticJobsOf } from '../../composition/agentic';
import { webhooksOf } from '../../composition/webhooks';

export const handler = defineRoute('v2AgenticSearchStart', async ({ body }, { org, deps }) => {
  await webhooksOf(deps).check(body.webhook);
  const started = await agenticJobsOf(deps).start({
    org,
    query: body.query,
    profile: body.customer_profile,
    pageSize: body.page_size,
    enrichment: body.enable_enrichment,
    webhook: body.webhook,
  });
  return {
    status: 202,
    body: { execution_id: started.execution_id, status: started.status, meta: { credits_used: started.credits_used } },
  };
});
