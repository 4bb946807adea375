// One change event, and the body of a `product.changed` delivery that carries a page of them (its
// own module: both the change feed's operations and the OpenAPI `webhooks` object use it).
import * as z from 'zod';
import { Timestamp } from './common';
import { CHANGE_TYPES, PRODUCT_CHANGED } from '../domain/changes/model';

export const ChangeEvent = z
  .object({
    id: z.string().describe('Stable: the same on every read and in every delivery'),
    type: z.enum(CHANGE_TYPES),
    vendor: z.string(),
    url: z.string().describe('The product (or listing) URL'),
    country: z.string().nullable().describe("The extraction's country; null for a crawl's listing"),
    source: z.enum(['extraction', 'crawl']),
    variant: z
      .object({ id: z.string(), sku: z.string().nullable(), title: z.string().nullable() })
      .nullable()
      .describe('null: the product (or listing) itself'),
    old_value: z
      .union([z.number(), z.boolean()])
      .nullable()
      .describe('Price, compare-at price or availability before; null for listing_added/removed'),
    new_value: z.union([z.number(), z.boolean()]).nullable(),
    currency: z.string().nullable(),
    seen_at: Timestamp,
  })
  .meta({ id: 'ChangeEvent' });

/** The body of a subscription's delivery (OpenAPI `webhooks.productChanged`). */
export const ProductChangedEvent = z
  .object({
    id: z.string().describe('The delivery id, also in X-PDS-Delivery-Id: the same on every redelivery'),
    event: z.literal(PRODUCT_CHANGED),
    created_at: Timestamp.describe('When the page was cut (the body is fixed then)'),
    data: z.object({
      subscription_id: z.string(),
      changes: z.array(ChangeEvent).describe('Up to 100 observations in the order they were seen'),
      next_cursor: z.string().describe('GET /v2/changes?cursor= resumes after this delivery'),
    }),
    metadata: z.null(),
  })
  .meta({ id: 'ProductChangedEvent' });
