// POST /api/product: one product by URL, synchronously (a fresh stored record when allowed).
import { defineRoute } from '../pipeline';
import { invalid } from '../../domain/errors';
import type { ExtractOptions } from '../../domain/extraction/types';
import { normalizeUrl } from '../../domain/extraction/url';
import { legacyProduct } from '../shapes/legacy-product';
import { summarizeSync } from '../shapes/legacy-sync';

export const handler = defineRoute('legacyProduct', async ({ body }, { deps }) => {
  const normalized = normalizeUrl(body.url);
  if (!normalized.ok) throw invalid(`url is not a valid product URL: ${normalized.problem}`, { parameter: 'url' });
  const options: ExtractOptions = {
    enableEnrichment: body.enable_enrichment,
    enableReviews: body.enable_reviews,
    enableImageTags: body.enable_image_tags,
    enableSimilarProducts: false,
    countryCode: body.country_code,
  };
  const extracted = await deps.extractNow({ urls: [body.url], options, forceExtraction: body.force_extraction });
  const result = extracted.results[0];
  const found = result.success && result.product !== null;
  return {
    body: {
      product: found ? legacyProduct(result.product!) : null,
      meta: {
        found,
        url: normalized.url,
        outcome: result.outcome,
        retry: result.retry,
        message: result.message,
        ...(result.final_url && result.final_url !== result.url ? { final_url: result.final_url } : {}),
        from_store: extracted.fromStore[0] === true,
        credits_used: summarizeSync([body.url], extracted.results, options).creditsUsed,
      },
    },
  };
});
