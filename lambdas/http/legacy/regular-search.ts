// POST /api/regular-search: /api/search's body and response, matched by keywords and filters
// only (DECISIONS: no query understanding, no re-ranking).
import { defineRoute } from '../pipeline';
import { legacyMeta, legacySearchRecord, toSearchFilters } from '../shapes/search';

export const handler = defineRoute('legacyRegularSearch', async ({ body }, { deps }) => {
  const found = await deps.search.search({
    query: body.query,
    mode: 'keywords',
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
