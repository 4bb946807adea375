// POST /api/products: synchronous extraction of up to 50 URLs, one element per input URL.
import { defineRoute } from '../pipeline';
import { extractNowOf } from '../../composition/extraction';
import { grantUrlVendors } from '../../composition/changes';
import { extractOptionsFrom } from '../../domain/extraction/options';
import { legacyResult } from '../shapes/legacy-product';

export const handler = defineRoute('legacyProducts', async ({ body }, { deps, org }) => {
  const [extracted] = await Promise.all([
    extractNowOf(deps)({
      urls: body.urls,
      options: extractOptionsFrom(body),
      forceExtraction: body.force_extraction,
    }),
    grantUrlVendors(deps, org, body.urls),
  ]);
  return {
    body: {
      products: extracted.results.map(legacyResult),
      meta: {
        total_requested: extracted.total_requested,
        total_successful: extracted.total_successful,
        total_failed: extracted.total_failed,
        urls_processed: extracted.urls_processed,
        credits_used: extracted.credits_used,
      },
    },
  };
});
