// POST /v2/extract: URL mode starts an extraction (202); every invalid entry is reported at once
// in invalid_urls. Vendor mode extracts the vendor's listings, or waits (meta.waiting_for) for
// `crawl_id` or for a crawl it starts itself when the vendor has no listings.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { extractJobsOf } from '../../composition/extract-jobs';
import { webhooksOf } from '../../composition/webhooks';
import { extractOptionsFrom } from '../../domain/extraction/options';

export const handler = defineRoute('v2ExtractStart', async ({ body }, { org, deps }) => {
  await webhooksOf(deps).check(body.webhook);
  if (body.urls === undefined) {
    const started = await crawlOf(deps).jobs.startVendorExtraction({
      org,
      vendor: body.vendor!,
      maxProducts: body.max_products,
      crawlId: body.crawl_id,
      options: extractOptionsFrom(body),
      webhook: body.webhook,
    });
    return {
      status: 202,
      body: {
        execution_id: started.execution_id,
        status: 'pending' as const,
        meta: {
          credits_used: started.credits_used,
          listings_count: started.listings_count,
          products_to_process: started.products_to_process,
        },
      },
    };
  }
  const started = await extractJobsOf(deps).start({
    org,
    kind: 'extract-urls',
    urls: body.urls,
    options: extractOptionsFrom(body),
    onInvalid: 'reject',
    webhook: body.webhook,
  });
  return {
    status: 202,
    body: {
      execution_id: started.execution_id,
      status: 'pending' as const,
      meta: { credits_used: started.credits_used, url_count: started.url_count },
    },
  };
});
