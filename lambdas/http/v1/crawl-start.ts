// POST /v1/crawl: body `domain` (or its alias `url`), optional max_listings and country_code.
import { defineRoute } from '../pipeline';
import { crawlOf } from '../../composition/crawl';
import { webhooksOf } from '../../composition/webhooks';

export const handler = defineRoute('v1CrawlStart', async ({ body }, { org, deps }) => {
  await webhooksOf(deps).check(body.webhook);
  const started = await crawlOf(deps).jobs.start({
    org,
    vendor: (body.domain ?? body.url)!,
    maxListings: body.max_listings,
    countryCode: body.country_code,
    webhook: body.webhook,
  });
  return { body: { success: true as const, execution_id: started.execution_id } };
});
