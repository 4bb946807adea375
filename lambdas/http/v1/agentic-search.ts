// POST /v1/agentic-search: understand, retrieve, apply the profile, verify against the live pages
// and rank, in this request; up to 8 products, fewer when some cannot be verified.
import { defineRoute } from '../pipeline';
import { verifyUrlsOf } from '../../composition/verify-urls';
import { searchOf } from '../../composition/search';
import { runAgenticSearch } from '../../domain/agentic/search';
import { legacyProduct } from '../shapes/legacy-product';

export const handler = defineRoute('v1AgenticSearch', async ({ body }, { deps }) => {
  // v1 products carry their attributes: verification asks for the enriched record.
  const result = await runAgenticSearch(
    { search: searchOf(deps), verify: verifyUrlsOf(deps) },
    { query: body.query, profile: body.customer_profile, enrichment: true },
  );
  return {
    body: {
      products: result.products.map(({ product }) => legacyProduct(product)),
      meta: {
        urls: result.products.map(({ url }) => url),
        totalItems: result.products.length,
        credits_used: result.credits,
      },
    },
  };
});
