// POST /v1/affiliate: up to 100 URLs -> tracking links; unsupported URLs say why (never a 4xx).
import { defineRoute } from '../pipeline';
import { affiliateOf } from '../../composition/affiliate';

export const handler = defineRoute('v1Affiliate', async ({ body }, { org, deps }) => ({
  body: await affiliateOf(deps).linkUrls(org, body.urls),
}));
