// POST /v2/webhooks/secret: a new signing secret, used by every attempt from now on.
import { defineRoute } from '../pipeline';

export const handler = defineRoute('v2WebhookSecretRotate', async (_request, { org, deps }) => ({
  body: await deps.webhooks.rotateSecret(org),
}));
