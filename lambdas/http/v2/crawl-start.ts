// POST /v2/crawl: starts a crawl of a store (202); credits: 1 now, 1 per 100 listings found.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { webhooksOf } from '../../composition/webhooks';

export const handler = defineRoute('v2CrawlStart', async ({ body }, { org, deps }) => {
  await webhooksOf(deps).check(body.webhook);
  const started = await crawlOf(deps).jobs.start({
    org,
    vendor: body.vendor,
    maxListings: body.max_listings,
    countryCode: body.country_code,
    webhook: body.webhook,
  });
  return {
    status: 202,
    body: {
      execution_id: started.execution_id,
      status: 'pending' as const,
      meta: { credits_used: started.credits_used },
    },
  };
});
