// GET /api/feed: every product the service knows, most recently updated first (DECISIONS:
// vendor, updated_since, page, limit).
import { defineRoute } from '../pipeline';
import { searchOf } from '../../composition/search';
import { invalid } from '../../domain/errors';
import { vendorKey } from '../../domain/extraction/url';
import { legacyMeta, legacySearchRecord } from '../shapes/search';

export const handler = defineRoute('legacyFeed', async ({ query }, { deps }) => {
  const vendor = query.vendor === undefined ? undefined : vendorKey(query.vendor.trim());
  if (vendor === null) throw invalid('vendor must be a store hostname or URL', { parameter: 'vendor' });
  const feed = await searchOf(deps).feed({
    vendor,
    updatedSince: query.updated_since === undefined ? undefined : new Date(query.updated_since).toISOString(),
    offset: (query.page - 1) * query.limit,
    limit: query.limit,
  });
  return {
    body: { products: feed.items.map(legacySearchRecord), meta: legacyMeta(feed.total, query.page, query.limit) },
  };
});
