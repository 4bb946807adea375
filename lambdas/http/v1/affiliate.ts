// POST /v1/affiliate: up to 100 URLs -> tracking links; unsupported URLs say why (never a 4xx).
import { defineRoute } from '../pipeline';

export const handler = defineRoute('v1Affiliate', async ({ body }, { org, deps }) => ({
  body: await deps.affiliate.linkUrls(org, body.urls),
}));
