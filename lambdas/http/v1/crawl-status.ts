// GET /v1/crawl/{execution_id}: status and total_listings_found.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { v1CrawlStatus } from '../shapes/crawl';

export const handler = defineRoute('v1CrawlStatus', async ({ params }, { org, deps }) => ({
  body: v1CrawlStatus(await crawlOf(deps).jobs.status({ org, executionId: params.execution_id })),
}));
