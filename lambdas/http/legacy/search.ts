// POST /api/search: the query understood (constraints filter, soft wishes boost), request filters
// exact, legacy records in legacy meta paging.
import { defineRoute } from '../pipeline';
import { searchOf } from '../../composition/search';
import { legacySearchResponse } from '../shapes/search';

export const handler = defineRoute('legacySearch', async ({ body }, { deps }) => ({
  body: await legacySearchResponse(searchOf(deps), body, 'understand'),
}));
