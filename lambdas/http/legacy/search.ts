// POST /api/search: the query understood (constraints filter, soft wishes boost), request filters
// exact, legacy records in legacy meta paging.
import { defineRoute } from '../pipeline';
import { legacyMeta, legacySearchRecord, toSearchFilters } from '../shapes/search';

export const handler = defineRoute('legacySearch', async ({ body }, { deps }) => {
  const found = await deps.search.search({
    query: body.query,
    mode: 'understand',
    filters: toSearchFilters(body.filters),
    offset: (body.page - 1) * body.limit,
    limit: body.limit,
  });
  return {
    body: {
      products: found.hits.map((hit) => legacySearchRecord(hit.item)),
      meta: legacyMeta(found.total, body.page, body.limit),
    },
  };
});
