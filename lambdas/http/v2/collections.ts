// GET /v2/collections: a vendor's collections, highest products_total first.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';

export const handler = defineRoute('v2Collections', async ({ query }, { deps }) => {
  const page = await crawlOf(deps).catalog.collections({
    vendor: query.vendor,
    page: query.page,
    pageSize: query.page_size,
  });
  return { body: { data: page.items, pagination: page.pagination, meta: {} } };
});
