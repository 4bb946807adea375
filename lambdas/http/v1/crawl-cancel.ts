// DELETE /v1/crawl/{execution_id}: stops the crawl; what it found stays listed. 409 when finished.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';

export const handler = defineRoute('v1CrawlCancel', async ({ params }, { org, deps }) => {
  const cancelled = await crawlOf(deps).jobs.cancel({ org, executionId: params.execution_id });
  return { body: { success: true as const, execution_id: cancelled.execution_id, status: 'failed' as const } };
});
