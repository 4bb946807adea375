// A change-feed subscription as the API shows it (its cursor and delivery in flight are internal).
import type { ChangeSubscription } from '../../ports/changes';
import type { ChangeType } from '../../domain/changes/model';

export const shapeSubscription = (subscription: ChangeSubscription) => ({
  id: subscription.id,
  url: subscription.url,
  events: ['product.changed' as const],
  vendors: subscription.vendors,
  types: subscription.types as ChangeType[] | null,
  created_at: subscription.created_at,
});
