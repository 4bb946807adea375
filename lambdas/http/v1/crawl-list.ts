// GET /v1/crawl: the caller's crawls, most recent first.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { v1ExecutionList } from '../shapes/extract-status';

export const handler = defineRoute('v1CrawlList', async ({ query }, { org, deps }) => ({
  body: v1ExecutionList(await crawlOf(deps).jobs.list({ org, status: query.status, page: 1, pageSize: query.limit })),
}));
