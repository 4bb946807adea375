// GET /v2/listings: a vendor's listings, optionally of one collection (URL normalised).
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';

export const handler = defineRoute('v2Listings', async ({ query }, { deps }) => {
  const page = await crawlOf(deps).catalog.listings({
    vendor: query.vendor,
    page: query.page,
    pageSize: query.page_size,
    collectionUrls: query.collection_url === undefined ? undefined : [query.collection_url],
  });
  return { body: { data: page.items, pagination: page.pagination, meta: {} } };
});
