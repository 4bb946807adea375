// GET /v2/crawl/{execution_id}: steps, progress while running, result; another organization's is 404.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { v2CrawlStatus } from '../shapes/crawl';

export const handler = defineRoute('v2CrawlStatus', async ({ params }, { org, deps }) => ({
  body: v2CrawlStatus(await crawlOf(deps).jobs.status({ org, executionId: params.execution_id })),
}));
