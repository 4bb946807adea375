// GET /v2/webhooks/secret: the organization's signing secret (created on first use).
import { defineRoute } from '../pipeline';
import { webhooksOf } from '../../composition/webhooks';

export const handler = defineRoute('v2WebhookSecret', async (_request, { org, deps }) => ({
  body: await webhooksOf(deps).secret(org),
}));
