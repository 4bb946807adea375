// POST /api/regular-search: /api/search's body and response, matched by keywords and filters
// only (DECISIONS: no query understanding, no re-ranking).
import { defineRoute } from '../pipeline';
import { searchOf } from '../../composition/search';
import { legacySearchResponse } from '../shapes/search';

export const handler = defineRoute('legacyRegularSearch', async ({ body }, { deps }) => ({
  body: await legacySearchResponse(searchOf(deps), body, 'keywords'),
}));
