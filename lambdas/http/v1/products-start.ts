// POST /v1/products: start an extraction of up to 1000 URLs; malformed entries become results.
import { defineRoute } from '../pipeline';

export const handler = defineRoute('v1ProductsStart', async ({ body }, { org, deps }) => {
  const started = await deps.extractJobs.start({
    org,
    kind: 'products-batch',
    urls: body.urls,
    options: {
      enableEnrichment: body.enable_enrichment,
      enableReviews: body.enable_reviews,
      enableImageTags: body.enable_image_tags,
      enableSimilarProducts: false,
      countryCode: body.country_code,
    },
    onInvalid: 'record',
  });
  return { body: { success: true as const, execution_id: started.execution_id } };
});
