// GET /v2/crawl: the caller's crawls, most recent first, in the v2 envelope.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { v2ExecutionList } from '../shapes/extract-status';

export const handler = defineRoute('v2CrawlList', async ({ query }, { org, deps }) => ({
  body: v2ExecutionList(
    await crawlOf(deps).jobs.list({ org, status: query.status, page: query.page, pageSize: query.page_size }),
  ),
}));
