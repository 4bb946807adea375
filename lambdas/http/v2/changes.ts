// GET /v2/changes: the organization's change feed (vendors it extracted or crawled), by cursor.
import { defineRoute } from '../pipeline';
import { changesOf } from '../../composition/changes';
import { vendorOf } from '../../domain/listings/catalog';

export const handler = defineRoute('v2Changes', async ({ query }, { org, deps }) => {
  const vendor = query.vendor ? vendorOf(query.vendor) : undefined;
  const page = await changesOf(deps).read(org, {
    vendor,
    since: query.since,
    cursor: query.cursor,
    types: query.types,
    pageSize: query.page_size,
  });
  return {
    body: {
      data: page.events,
      pagination: { page_size: query.page_size, next_cursor: page.next_cursor, has_next: page.has_more },
      meta: { vendor: vendor ?? null },
    },
  };
});
