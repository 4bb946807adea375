// POST /v2/agentic-search: starts the agentic-search execution (202); poll its status.
import { defineRoute } from '../pipeline';

export const handler = defineRoute('v2AgenticSearchStart', async ({ body }, { org, deps }) => {
  await deps.webhooks.check(body.webhook);
  const started = await deps.agentic.jobs.start({
    org,
    query: body.query,
    profile: body.customer_profile,
    pageSize: body.page_size,
    enrichment: body.enable_enrichment,
  });
  await deps.webhooks.subscribe(org, started.execution_id, body.webhook);
  return {
    status: 202,
    body: { execution_id: started.execution_id, status: started.status, meta: { credits_used: started.credits_used } },
  };
});
