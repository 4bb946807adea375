// GET /v2/webhooks/subscriptions: the organization's change-feed subscriptions, oldest first.
import { defineRoute } from '../pipeline';
import { changesOf } from '../../composition/changes';
import { shapeSubscription } from './webhook-subscriptions-shape';

export const handler = defineRoute('v2ChangeSubscriptionList', async (_request, { org, deps }) => {
  const list = await changesOf(deps).list(org);
  list.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return { body: { data: list.map(shapeSubscription) } };
});
