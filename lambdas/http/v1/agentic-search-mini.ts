// POST /v1/agentic-search-mini: the best 10 for the understood query; enrichment off nulls the
// attributes. Credits per DECISIONS in meta.credits_used.
import { defineRoute } from '../pipeline';
import { MINI_RESULTS, miniSearchCredits } from '../../domain/agentic/search';
import { miniV1 } from '../shapes/search';

export const handler = defineRoute('v1AgenticSearchMini', async ({ body }, { deps }) => {
  const found = await deps.search.search({ query: body.query, mode: 'understand', offset: 0, limit: MINI_RESULTS });
  const products = found.hits.map((hit) => miniV1(hit.item, body.enable_enrichment));
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
