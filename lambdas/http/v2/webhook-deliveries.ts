// GET /v2/webhooks/deliveries?execution_id=: the execution's delivery log, oldest first.
import { defineRoute } from '../pipeline';
import { webhooksOf } from '../../composition/webhooks';

export const handler = defineRoute('v2WebhookDeliveries', async ({ query }, { org, deps }) => {
  const log = await webhooksOf(deps).deliveries(org, query.execution_id);
  return { body: { execution_id: log.execution_id, data: log.deliveries.map(({ org: _org, ...entry }) => entry) } };
});
