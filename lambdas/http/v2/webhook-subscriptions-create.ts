// POST /v2/webhooks/subscriptions: signed `product.changed` deliveries of the change feed.
import { defineRoute } from '../pipeline';
import { changesOf } from '../../composition/changes';
import { vendorOf } from '../../domain/listings/catalog';
import { shapeSubscription } from './webhook-subscriptions-shape';

export const handler = defineRoute('v2ChangeSubscriptionCreate', async ({ body }, { org, deps }) => {
  const subscription = await changesOf(deps).subscribe(org, {
    url: body.url,
    events: body.events,
    vendors: body.vendors?.map(vendorOf),
    types: body.types,
  });
  return { body: shapeSubscription(subscription) };
});
