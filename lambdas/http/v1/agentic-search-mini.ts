// POST /v1/agentic-search-mini: the best 10 for the understood query, enriched (on the fly where
// the catalog holds no attributes); enrichment off nulls the attributes. Credits per DECISIONS.
import { defineRoute } from '../pipeline';
import { enricherOf } from '../../composition/enricher';
import { searchOf } from '../../composition/search';
import { miniSearch } from '../../domain/agentic/mini';
import { MINI_RESULTS, miniSearchCredits } from '../../domain/agentic/search';
import { miniV1 } from '../shapes/search';

export const handler = defineRoute('v1AgenticSearchMini', async ({ body }, { deps }) => {
  const found = await miniSearch(
    { search: searchOf(deps), enricher: enricherOf(deps) },
    {
      query: body.query,
      enrichment: body.enable_enrichment,
      offset: 0,
      limit: MINI_RESULTS,
    },
  );
  const products = found.items.map((item) => miniV1(item, body.enable_enrichment));
  return {
    body: {
      products,
      meta: {
        totalItems: products.length,
        urls: products.map((p) => p.url),
        credits_used: miniSearchCredits(body.enable_enrichment),
      },
    },
  };
});
