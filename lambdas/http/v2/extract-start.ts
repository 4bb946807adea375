// POST /v2/extract: URL mode starts an extraction (202); every invalid entry is reported at once
// in invalid_urls. Vendor mode needs the crawl capability (501 after validation).
import { defineRoute } from '../pipeline';
import { AppError } from '../../domain/errors';

export const handler = defineRoute('v2ExtractStart', async ({ body }, { org, deps }) => {
  if (body.urls === undefined) {
    throw new AppError('NOT_IMPLEMENTED', 'POST /v2/extract with `vendor` (vendor mode) needs the crawl capability, which is not implemented yet; send `urls` instead');
  }
  const started = await deps.extractJobs.start({
    org,
    kind: 'extract-urls',
    urls: body.urls,
    options: {
      enableEnrichment: body.enable_enrichment,
      enableReviews: body.enable_reviews,
      enableImageTags: body.enable_image_tags,
      enableSimilarProducts: body.enable_similar_products,
      countryCode: body.country_code,
    },
    onInvalid: 'reject',
  });
  return {
    status: 202,
    body: { execution_id: started.execution_id, status: 'pending' as const, meta: { credits_used: started.credits_used, url_count: started.url_count } },
  };
});
