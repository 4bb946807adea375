// POST /api/products: synchronous extraction of up to 50 URLs, one element per input URL.
import { defineRoute } from '../pipeline';
import type { ExtractOptions } from '../../domain/extraction/types';
import { legacyResult } from '../shapes/legacy-product';
import { summarizeSync } from '../shapes/legacy-sync';

export const handler = defineRoute('legacyProducts', async ({ body }, { deps }) => {
  const options: ExtractOptions = {
    enableEnrichment: body.enable_enrichment,
    enableReviews: false,
    enableImageTags: false,
    enableSimilarProducts: false,
    countryCode: body.country_code,
  };
  const extracted = await deps.extractNow({ urls: body.urls, options, forceExtraction: body.force_extraction });
  const summary = summarizeSync(body.urls, extracted.results, options);
  return {
    body: {
      products: extracted.results.map(legacyResult),
      meta: {
        total_requested: extracted.total_requested,
        total_successful: extracted.total_successful,
        total_failed: extracted.total_failed,
        urls_processed: summary.urlsProcessed,
        credits_used: summary.creditsUsed,
      },
    },
  };
});
