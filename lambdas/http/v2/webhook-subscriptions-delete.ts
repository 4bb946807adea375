// DELETE /v2/webhooks/subscriptions/{subscription_id}: nothing more is sent to it.
import { defineRoute } from '../pipeline';
import { changesOf } from '../../composition/changes';

export const handler = defineRoute('v2ChangeSubscriptionDelete', async ({ params }, { org, deps }) => {
  await changesOf(deps).unsubscribe(org, params.subscription_id);
  return { body: { id: params.subscription_id, deleted: true as const } };
});
