// The `webhook` field of every start operation, and the webhook operations' schemas (the
// organization's signing secret, an execution's delivery log).
import * as z from 'zod';
import { MAX_URL_LENGTH, Timestamp } from './common';
import { MAX_METADATA_BYTES, WEBHOOK_EVENTS } from '../domain/webhooks/model';
import { ProductChangedEvent } from './change-event';

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

export const WEBHOOK_DESCRIPTION = `Optional. Signed POSTs to \`webhook.url\` as the execution moves: \`started\` (once the start is accepted), \`progress\` (at most one per 10 s while running), \`completed\`, \`failed\` (a cancel or a timeout included); \`events\` picks some (default all). Each delivery is JSON {id, event, created_at, data: {execution_id, kind, status, error, created_at, start_date, stop_date, counts}, metadata} with headers \`X-PDS-Event\`, \`X-PDS-Delivery-Id\` (the same on every redelivery of one event), \`X-PDS-Attempt\`, \`X-PDS-Timestamp\` (Unix seconds) and \`X-PDS-Signature: v1=<hex HMAC-SHA256 of "{timestamp}.{raw body}" under the organization's secret>\` (GET /v2/webhooks/secret). A delivery that does not get a 2xx within 10 s is retried after 1, 5, 15 and 60 minutes, then marked failed; see GET /v2/webhooks/deliveries. The URL must be absolute http(s), without credentials, and reach a public address (private, loopback, link-local and metadata addresses are 400 INVALID_PARAMETER, and are refused again at every attempt).`;

const WebhookRequest = z
  .object(
    {
      url: z
        .string({ error: 'webhook.url must be a string' })
        .trim()
        .max(MAX_URL_LENGTH, { error: `webhook.url must be at most ${MAX_URL_LENGTH} characters` })
        .refine(isHttpUrl, { error: 'webhook.url must be an absolute http(s) URL' })
        .describe('Absolute http(s) URL of a public receiver'),
      events: z
        .array(
          z.enum(WEBHOOK_EVENTS, {
            error: `webhook.events entries must be one of ${WEBHOOK_EVENTS.join(', ')}`,
          }),
          { error: 'webhook.events must be an array of event names' },
        )
        .min(1, { error: 'webhook.events must name at least one event (omit it for all)' })
        .max(WEBHOOK_EVENTS.length, { error: `webhook.events must hold at most ${WEBHOOK_EVENTS.length} events` })
        .refine((events) => new Set(events).size === events.length, {
          error: 'webhook.events must not repeat an event',
        })
        .optional()
        .describe('Events to deliver; default all four'),
      metadata: z
        .record(z.string(), z.unknown(), { error: 'webhook.metadata must be a JSON object' })
        .refine((metadata) => Buffer.byteLength(JSON.stringify(metadata)) <= MAX_METADATA_BYTES, {
          error: `webhook.metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
        })
        .optional()
        .describe(`Any JSON object of at most ${MAX_METADATA_BYTES} bytes, echoed in every delivery`),
    },
    { error: 'webhook must be an object with a url' },
  )
  .meta({ id: 'WebhookRequest', description: WEBHOOK_DESCRIPTION });

/** The optional `webhook` of a start operation's body. */
export const webhookField = () => WebhookRequest.optional();

export const WebhookSecretResponse = z.object({
  secret: z.string().describe('HMAC-SHA256 key of X-PDS-Signature (whsec_ + 64 hex characters)'),
  created_at: Timestamp,
});

export const WebhookDelivery = z
  .object({
    delivery_id: z.string().describe('X-PDS-Delivery-Id: the same on every attempt of this event'),
    execution_id: z.string(),
    event: z.enum(WEBHOOK_EVENTS),
    url: z.string(),
    state: z
      .enum(['pending', 'retrying', 'delivered', 'failed'])
      .describe('delivered after a 2xx; failed after the last attempt'),
    created_at: Timestamp,
    updated_at: Timestamp,
    next_attempt_at: Timestamp.nullable().describe('When the next attempt is due (pending, retrying)'),
    attempts: z.array(
      z.object({
        attempt: z.number().int().describe('1-based'),
        at: Timestamp,
        status_code: z.number().int().nullable().describe("The receiver's status; null when none came"),
        error: z.string().nullable().describe('null for a 2xx'),
        duration_ms: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'WebhookDelivery' });

/** The body of every delivery (OpenAPI `webhooks`). */
const WebhookEventBody = z
  .object({
    id: z.string().describe('The delivery id, also in X-PDS-Delivery-Id: the same on every redelivery'),
    event: z.enum(WEBHOOK_EVENTS),
    created_at: Timestamp.describe('When the event happened (the body is fixed then)'),
    data: z.object({
      execution_id: z.string(),
      kind: z.enum(['products-batch', 'extract-urls', 'extract-vendor', 'crawl', 'agentic']),
      status: z.enum(['pending', 'running', 'completed', 'failed']),
      error: z.string().nullable().describe('null unless failed'),
      created_at: Timestamp,
      start_date: Timestamp.nullable(),
      stop_date: Timestamp.nullable(),
      counts: z
        .record(z.string(), z.union([z.number(), z.record(z.string(), z.number())]))
        .describe(
          "The execution's counts in its status's vocabulary: extractions requested, successful, failed, failed_by_reason, invalid, invalid_by_reason, pending (successful + failed + invalid + pending = requested, as meta.result) and credits_used; crawls collections_total, listings_total, credits_used; agentic searches candidates_total, candidates_verified, candidates_dropped, credits_used",
        ),
    }),
    metadata: z.record(z.string(), z.unknown()).nullable().describe("The start request's webhook.metadata"),
  })
  .meta({ id: 'WebhookEvent' });

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

const PRODUCT_CHANGED_DESCRIPTION = `A page of the change feed, delivered to a subscription's url (POST /v2/webhooks/subscriptions): up to 100 observations in the order they were seen; the next page is sent once this one is delivered or failed, so a product's changes arrive in order, each change in one delivery. Same headers, signature, retries and delivery log as every webhook; a redelivery carries the same X-PDS-Delivery-Id and the same body: deduplicate on it.`;

/** One webhook: its headers, the body a receiver gets and what it must answer. */
function webhook(summary: string, description: string, events: string, body: Record<string, unknown>) {
  return {
    post: {
      summary,
      description,
      parameters: [
        header('X-PDS-Event', events),
        header('X-PDS-Delivery-Id', 'The same on every attempt of this event: deduplicate on it'),
        header('X-PDS-Attempt', '1-based attempt number'),
        header('X-PDS-Timestamp', 'Unix seconds when this attempt was signed'),
        header('X-PDS-Signature', 'v1=<hex HMAC-SHA256 of "{X-PDS-Timestamp}.{raw body}" under the secret>'),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses: {
        '2XX': { description: 'Received; not delivered again' },
        default: { description: 'Anything else (or no answer within 10 s): retried with backoff' },
      },
    },
  };
}

/** The OpenAPI 3.1 `webhooks` object: what a receiver gets and must answer. */
export function webhooksObject(convert: (schema: z.ZodType) => Record<string, unknown>): Record<string, unknown> {
  return {
    executionEvent: webhook(
      'An execution event, delivered to the webhook.url of its start request',
      WEBHOOK_DESCRIPTION,
      'started, progress, completed or failed',
      convert(WebhookEventBody),
    ),
    productChanged: webhook(
      'Changes of products and listings, delivered to a change-feed subscription',
      PRODUCT_CHANGED_DESCRIPTION,
      'product.changed',
      convert(ProductChangedEvent),
    ),
  };
}
