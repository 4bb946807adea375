// POST /v1/listings: a vendor's listings, optionally of some collections (URLs normalised).
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { v1Meta } from '../shapes/crawl';

export const handler = defineRoute('v1Listings', async ({ body }, { deps }) => {
  const page = await crawlOf(deps).catalog.listings({
    vendor: body.vendor,
    page: body.page,
    pageSize: body.page_size,
    collectionUrls: body.collection_urls,
  });
  return { body: { listings: page.items, meta: v1Meta(page.pagination) } };
});
