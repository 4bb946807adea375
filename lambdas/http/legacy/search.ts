// POST /api/search: the query understood (constraints filter, soft wishes boost), request filters
// exact, legacy records in legacy meta paging.
import { defineRoute } from '../pipeline';
import { legacySearchResponse } from '../shapes/search';

export const handler = defineRoute('legacySearch', async ({ body }, { deps }) => ({
  body: await legacySearchResponse(deps.search, body, 'understand'),
}));
