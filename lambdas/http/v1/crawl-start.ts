// POST /v1/crawl: body `domain` (or its alias `url`), optional max_listings and country_code.
import { defineRoute } from '../pipeline';

export const handler = defineRoute('v1CrawlStart', async ({ body }, { org, deps }) => {
  await deps.webhooks.check(body.webhook);
  const started = await deps.crawl.jobs.start({
    org,
    vendor: (body.domain ?? body.url)!,
    maxListings: body.max_listings,
    countryCode: body.country_code,
  });
  await deps.webhooks.subscribe(org, started.execution_id, body.webhook);
  return { body: { success: true as const, execution_id: started.execution_id } };
});
