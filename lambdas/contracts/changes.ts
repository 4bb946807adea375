// The change feed's schemas: a change event, a page of them, a subscription and its delivery log.
import * as z from 'zod';
import { Timestamp } from './common';
import { CHANGE_TYPES, PRODUCT_CHANGED } from '../domain/changes/model';
import { ChangeEvent } from './change-event';
import { WebhookDelivery } from './webhooks';

export { ChangeEvent };

export const CHANGES_DESCRIPTION =
  "Changes of the vendors the organization extracted or crawled, from its first extraction or crawl of each, oldest first: a re-extraction that sees a product's or a variant's price, compare-at price or availability change, and a re-crawl that sees a listing appear, disappear or change price. Each change is recorded once (however often the same observation is retried) with the product URL, the variant (null for the product or a listing), the old and new value and when it was seen; `source` says whether an extraction (`country` set) or a crawl saw it. Page with `pagination.next_cursor` until `has_next` is false; a cursor read again later returns what was seen since. Changes of the last second are returned on the next read (writes land a moment after they are stamped). A vendor the organization never extracted or crawled is 404.";

export const ChangePage = z.object({
  data: z.array(ChangeEvent),
  pagination: z.object({ page_size: z.number().int(), next_cursor: z.string(), has_next: z.boolean() }),
  meta: z.object({ vendor: z.string().nullable() }),
});

export const ChangeSubscription = z
  .object({
    id: z.string().describe('whs_ + 24 hex characters'),
    url: z.string(),
    events: z.array(z.literal(PRODUCT_CHANGED)),
    vendors: z.array(z.string()).nullable().describe('null: every vendor the organization may see'),
    types: z.array(z.enum(CHANGE_TYPES)).nullable().describe('null: every type'),
    created_at: Timestamp,
  })
  .meta({ id: 'ChangeSubscription' });

export const SUBSCRIPTION_DESCRIPTION = `Signed POSTs of \`${PRODUCT_CHANGED}\` to \`url\` for every change seen after the subscription is created (of \`vendors\`, or every vendor the organization may see; of \`types\`, or all): JSON {id, event, created_at, data: {subscription_id, changes: [ChangeEvent...], next_cursor}, metadata: null}, with the headers, signature, retries (1, 5, 15, 60 minutes) and delivery log of every webhook (GET /v2/webhooks/secret). A subscription has one delivery in flight at a time, holding up to 100 observations in the order they were seen: the next is sent once it is delivered (or failed after its last attempt), so a product's changes arrive in order, each change in one delivery (deduplicate redeliveries on X-PDS-Delivery-Id). \`next_cursor\` resumes GET /v2/changes after the delivery. At most 20 subscriptions per organization; the URL must reach a public address.`;

export const ChangeSubscriptionDeliveries = z.object({
  subscription_id: z.string(),
  data: z.array(
    WebhookDelivery.omit({ execution_id: true, event: true }).extend({ event: z.literal(PRODUCT_CHANGED) }),
  ),
});
