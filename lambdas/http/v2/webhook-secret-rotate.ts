// POST /v2/webhooks/secret: a new signing secret, used by every attempt from now on.
import { defineRoute } from '../pipeline';
import { webhooksOf } from '../../composition/webhooks';

export const handler = defineRoute('v2WebhookSecretRotate', async (_request, { org, deps }) => ({
  body: await webhooksOf(deps).rotateSecret(org),
}));
