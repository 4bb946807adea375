// Signed webhooks of executions: what a subscription is, what one delivery carries, how it is
// signed and how its id is made. Plain values and pure functions; the use-cases are service.ts.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Execution, ExecutionKind, ExecutionStatus } from '../executions/model';
import { readCounts } from '../extract-jobs/model';
import { crawlCredits, crawlOptionsOf } from '../crawl/model';
import { AGENTIC_CREDITS } from '../agentic/search';

export const WEBHOOK_EVENTS = ['started', 'progress', 'completed', 'failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Every event a delivery carries: an execution's, or a change-feed subscription's `product.changed`. */
export const DELIVERY_EVENTS = [...WEBHOOK_EVENTS, 'product.changed'] as const;
export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

/** `metadata` is echoed in every delivery; bounded so it always fits in one SQS message. */
export const MAX_METADATA_BYTES = 2048;
/** At most one `progress` delivery per execution in this window. */
export const PROGRESS_INTERVAL_MS = 10_000;
/** Request timeout of one delivery attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** SQS caps DelaySeconds at 15 minutes: a longer backoff is waited out in hops of at most this. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
/** The default backoff between attempts (1, 5, 15, 60 minutes): five attempts in all. */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [60, 300, 900, 3600];

export const SIGNATURE_HEADER = 'x-pds-signature';
export const TIMESTAMP_HEADER = 'x-pds-timestamp';
export const DELIVERY_ID_HEADER = 'x-pds-delivery-id';
export const EVENT_HEADER = 'x-pds-event';
export const ATTEMPT_HEADER = 'x-pds-attempt';
export const WEBHOOK_USER_AGENT = 'ProductDataService-Webhooks/1.0';

/** What a start operation accepted (validated by the contract and the target check). */
export interface WebhookSpec {
  url: string;
  /** Default: every event. */
  events?: WebhookEvent[];
  metadata?: Record<string, unknown>;
}

export interface WebhookSubscription {
  execution_id: string;
  org: string;
  url: string;
  events: WebhookEvent[];
  metadata: Record<string, unknown> | null;
  created_at: string;
}

export type DeliveryState = 'pending' | 'retrying' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no response came (refused, timeout, blocked). */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** One event's delivery to one subscription, with every attempt: the delivery log's entry. */
export interface DeliveryRecord {
  delivery_id: string;
  execution_id: string;
  org: string;
  event: DeliveryEvent;
  url: string;
  state: DeliveryState;
  created_at: string;
  updated_at: string;
  /** When the next attempt is due (retrying), else null. */
  next_attempt_at: string | null;
  attempts: DeliveryAttempt[];
}

/** The queue message of one attempt: the body is fixed at the event, so every attempt sends the same bytes. */
export interface DeliveryMessage {
  delivery_id: string;
  execution_id: string;
  org: string;
  event: DeliveryEvent;
  url: string;
  body: string;
  /** 1-based. */
  attempt: number;
  /** Epoch ms before which the attempt must not run (a backoff longer than one queue delay). */
  due_at?: number;
}

/**
 * The execution's counts in its status's vocabulary, so a receiver checks what the status would
 * show from the payload alone: an extraction's successful + failed + invalid + pending = requested
 * (meta.result, results.meta), a crawl's totals, an agentic search's candidates.
 */
export type WebhookCounts = Record<string, number | Record<string, number>>;

const nonNegative = (n: number | undefined) => Math.max(0, n ?? 0);

export function countsOf(execution: Execution): WebhookCounts {
  const c = execution.counters;
  if (execution.kind === 'crawl') {
    const { maxListings } = crawlOptionsOf(execution);
    const found = nonNegative(c.listings_found);
    const listingsFound = maxListings === null ? found : Math.min(found, maxListings);
    return {
      collections_total: nonNegative(c.collections_total ?? c.collections_found),
      listings_total: nonNegative(c.listings_total ?? listingsFound),
      credits_used: Math.max(1, c.credits ?? crawlCredits(listingsFound)),
    };
  }
  if (execution.kind === 'agentic') {
    return {
      candidates_total: nonNegative(execution.input.candidates),
      candidates_verified: nonNegative(c.verified),
      candidates_dropped: nonNegative(c.dropped),
      credits_used: c.credits ?? AGENTIC_CREDITS,
    };
  }
  const counts = readCounts(execution);
  return {
    requested: counts.requested,
    successful: counts.successful,
    failed: counts.failed,
    failed_by_reason: counts.failed_by_reason as Record<string, number>,
    invalid: counts.invalid,
    invalid_by_reason: counts.invalid_by_reason as Record<string, number>,
    pending: counts.pending,
    credits_used: counts.credits,
  };
}

export interface WebhookPayload {
  id: string;
  event: WebhookEvent;
  created_at: string;
  data: {
    execution_id: string;
    kind: ExecutionKind;
    status: ExecutionStatus;
    error: string | null;
    created_at: string;
    start_date: string | null;
    stop_date: string | null;
    counts: WebhookCounts;
  };
  metadata: Record<string, unknown> | null;
}

/** The same execution and event always give the same id; progress ids also carry their time slot. */
export function deliveryIdFor(executionId: string, event: WebhookEvent, slot?: number): string {
  const digest = createHash('sha256')
    .update(`${executionId}\n${event}\n${slot ?? ''}`)
    .digest('hex');
  return `whd_${digest.slice(0, 32)}`;
}

export function payloadOf(
  deliveryId: string,
  event: WebhookEvent,
  execution: Execution,
  metadata: Record<string, unknown> | null,
  at: Date,
): WebhookPayload {
  return {
    id: deliveryId,
    event,
    created_at: at.toISOString(),
    data: {
      execution_id: execution.id,
      kind: execution.kind,
      status: execution.status,
      error: execution.error,
      created_at: execution.created_at,
      start_date: execution.start_date,
      stop_date: execution.stop_date,
      counts: countsOf(execution),
    },
    metadata,
  };
}

/** `v1=` + hex HMAC-SHA256 of `${timestamp}.${body}` under the organization's secret. */
export function signature(secret: string, timestamp: number | string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does: recompute the signature and compare in constant time, and refuse
 * timestamps older (or newer) than `toleranceSeconds` (replays).
 */
export function verifySignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  nowMs: number,
  toleranceSeconds = 300,
): boolean {
  const { timestamp, signature: presented } = headers;
  if (!timestamp || !presented || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(signature(secret, timestamp, body));
  return presented
    .split(',')
    .map((part) => Buffer.from(part.trim()))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
}

export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('hex')}`;

/** The headers of one attempt (content type and user agent included). */
export function deliveryHeaders(
  message: Pick<DeliveryMessage, 'delivery_id' | 'event' | 'attempt' | 'body'>,
  secret: string,
  at: Date,
): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: signature(secret, timestamp, message.body),
    [DELIVERY_ID_HEADER]: message.delivery_id,
    [EVENT_HEADER]: message.event,
    [ATTEMPT_HEADER]: String(message.attempt),
  };
}
