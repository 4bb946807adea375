// POST /v1/collections: a vendor's collections, highest products_total first.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { v1Meta } from '../shapes/crawl';

export const handler = defineRoute('v1Collections', async ({ body }, { deps }) => {
  const page = await crawlOf(deps).catalog.collections({
    vendor: body.vendor,
    page: body.page,
    pageSize: body.page_size,
  });
  return { body: { collections: page.items, meta: v1Meta(page.pagination) } };
});
