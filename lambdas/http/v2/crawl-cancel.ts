// DELETE /v2/crawl/{execution_id}: stops the crawl; what it found stays listed. 409 when finished.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { CANCELLED_MESSAGE } from '../../domain/executions/model';

export const handler = defineRoute('v2CrawlCancel', async ({ params }, { org, deps }) => {
  const cancelled = await crawlOf(deps).jobs.cancel({ org, executionId: params.execution_id });
  return {
    body: {
      execution_id: cancelled.execution_id,
      status: 'failed' as const,
      error: cancelled.error ?? CANCELLED_MESSAGE,
    },
  };
});
