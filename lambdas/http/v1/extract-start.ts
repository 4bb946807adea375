// POST /v1/extract: vendor-based extraction of `domain`'s listings (flags default true); waits
// for `crawl_id`, or for a crawl it starts itself when the vendor has no listings.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { webhooksOf } from '../../composition/webhooks';
import { extractOptionsFrom } from '../../domain/extraction/options';

export const handler = defineRoute('v1ExtractStart', async ({ body }, { org, deps }) => {
  await webhooksOf(deps).check(body.webhook);
  const started = await crawlOf(deps).jobs.startVendorExtraction({
    org,
    vendor: body.domain,
    maxProducts: body.max_products,
    crawlId: body.crawl_id,
    options: extractOptionsFrom(body),
    webhook: body.webhook,
  });
  return { body: { success: true as const, execution_id: started.execution_id } };
});
