// For receivers of the service's webhooks: check a delivery's signature and timestamp, then read
// it as the typed event of the OpenAPI document's `executionEvent` webhook. The check itself is
// the service's own (verifySignature in lambdas/domain/webhooks/model.ts), so a receiver built on
// this client accepts exactly what the service signs. Node only (node:crypto).
import {
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifySignature,
} from '../lambdas/domain/webhooks/model';
import type { components } from './schema';

export type WebhookEvent = components['schemas']['WebhookEvent'];

export interface ReceivedWebhook {
  /** The same on every redelivery of one event: deduplicate on it. */
  deliveryId: string;
  event: WebhookEvent;
}

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies one delivery (`X-PDS-Signature` over `X-PDS-Timestamp` and the raw body, with the
 * organization's secret from GET /v2/webhooks/secret; timestamps further than `toleranceSeconds`
 * from now are refused as replays) and returns it parsed; WebhookSignatureError otherwise.
 * `rawBody` must be the bytes as received, before any JSON parsing.
 */
export function receiveWebhook(
  secret: string,
  headers: HeaderSource,
  rawBody: string,
  { nowMs = Date.now(), toleranceSeconds = 300 }: { nowMs?: number; toleranceSeconds?: number } = {},
): ReceivedWebhook {
  const timestamp = header(headers, TIMESTAMP_HEADER);
  const signature = header(headers, SIGNATURE_HEADER);
  if (!verifySignature(secret, { timestamp, signature }, rawBody, nowMs, toleranceSeconds))
    throw new WebhookSignatureError(
      !timestamp || !signature
        ? `missing ${!timestamp ? 'X-PDS-Timestamp' : 'X-PDS-Signature'} header`
        : 'signature or timestamp does not match (wrong secret, altered body, or older than the tolerance)',
    );
  const event = JSON.parse(rawBody) as WebhookEvent;
  const deliveryId = header(headers, DELIVERY_ID_HEADER) ?? event.id;
  if (header(headers, EVENT_HEADER) && header(headers, EVENT_HEADER) !== event.event)
    throw new WebhookSignatureError('X-PDS-Event does not match the body');
  return { deliveryId, event };
}
