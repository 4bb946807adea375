// GET /v2/webhooks/deliveries?execution_id=: the execution's delivery log, oldest first.
import { defineRoute } from '../pipeline';

export const handler = defineRoute('v2WebhookDeliveries', async ({ query }, { org, deps }) => {
  const log = await deps.webhooks.deliveries(org, query.execution_id);
  return { body: { execution_id: log.execution_id, data: log.deliveries.map(({ org: _org, ...entry }) => entry) } };
});
