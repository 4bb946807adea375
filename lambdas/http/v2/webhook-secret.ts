// GET /v2/webhooks/secret: the organization's signing secret (created on first use).
import { defineRoute } from '../pipeline';

export const handler = defineRoute('v2WebhookSecret', async (_request, { org, deps }) => ({
  body: await deps.webhooks.secret(org),
}));
