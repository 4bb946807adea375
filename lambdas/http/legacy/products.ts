// POST /api/products: synchronous extraction of up to 50 URLs, one element per input URL.
import { defineRoute } from '../pipeline';
import { extractNowOf } from '../../composition/extraction';
import { extractOptionsFrom } from '../../domain/extraction/options';
import { legacyResult } from '../shapes/legacy-product';

export const handler = defineRoute('legacyProducts', async ({ body }, { deps }) => {
  const extracted = await extractNowOf(deps)({
    urls: body.urls,
    options: extractOptionsFrom(body),
    forceExtraction: body.force_extraction,
  });
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
