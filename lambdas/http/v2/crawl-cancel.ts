// DELETE /v2/crawl/{execution_id}: stops the crawl; what it found stays listed. 409 when finished.
import { defineRoute } from '../pipeline';
import { CANCELLED_MESSAGE } from '../../domain/executions/model';

export const handler = defineRoute('v2CrawlCancel', async ({ params }, { org, deps }) => {
  const cancelled = await deps.crawl.jobs.cancel({ org, executionId: params.execution_id });
  return {
    body: {
      execution_id: cancelled.execution_id,
      status: 'failed' as const,
      error: cancelled.error ?? CANCELLED_MESSAGE,
    },
  };
});
