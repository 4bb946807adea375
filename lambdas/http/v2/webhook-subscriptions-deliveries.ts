// GET /v2/webhooks/subscriptions/{subscription_id}/deliveries: its delivery log, oldest first.
import { defineRoute } from '../pipeline';
import { changesOf } from '../../composition/changes';

export const handler = defineRoute('v2ChangeSubscriptionDeliveries', async ({ params }, { org, deps }) => {
  const log = await changesOf(deps).deliveries(org, params.subscription_id);
  return {
    body: {
      subscription_id: params.subscription_id,
      data: log.map(({ org: _org, execution_id: _owner, event: _event, ...entry }) => ({
        ...entry,
        event: 'product.changed' as const,
      })),
    },
  };
});
