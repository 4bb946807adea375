// Webhooks' seams: where subscriptions, delivery logs and organization secrets live, the queue
// that carries delivery attempts, and the outbound HTTP that posts them.
import type {
  DeliveryAttempt,
  DeliveryMessage,
  DeliveryRecord,
  DeliveryState,
  WebhookSubscription,
} from '../domain/webhooks/model';

export interface WebhookSecret {
  secret: string;
  created_at: string;
}

export interface WebhookStore {
  putSubscription(subscription: WebhookSubscription): Promise<void>;
  /** Strongly consistent: a subscription written before a read is always seen. */
  getSubscription(executionId: string): Promise<WebhookSubscription | null>;
  /**
   * Takes the execution's progress slot: true (and the slot moves to `nowMs`) only when the last
   * one is at least `intervalMs` old, so concurrent workers send one progress event per window.
   */
  claimProgressSlot(executionId: string, nowMs: number, intervalMs: number): Promise<boolean>;
  /** Creates the delivery record with its body; false when it already exists (the event was already sent). */
  createDelivery(record: DeliveryRecord, body: string): Promise<boolean>;
  getDelivery(executionId: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /**
   * Appends the attempt and sets the state, only while the record holds `attempt.attempt - 1`
   * attempts (a duplicate of the same attempt records nothing); false when it did not hold.
   */
  recordAttempt(
    executionId: string,
    deliveryId: string,
    attempt: DeliveryAttempt,
    state: DeliveryState,
    nextAttemptAt: string | null,
  ): Promise<boolean>;
  /** Sets the state without an attempt (the dead-letter consumer gives a delivery up). */
  setState(executionId: string, deliveryId: string, state: DeliveryState, at: string): Promise<void>;
  /** Every delivery of an execution (bounded), in no particular order. */
  listDeliveries(executionId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Deliveries still pending or retrying (bounded), with the body their attempts send. */
  listUnsettled(limit: number): Promise<Array<DeliveryRecord & { body: string }>>;
  getSecret(org: string): Promise<WebhookSecret | null>;
  /** Stores the secret unless one exists; returns the organization's secret either way. */
  createSecret(org: string, secret: WebhookSecret): Promise<WebhookSecret>;
  /** Replaces the secret. */
  replaceSecret(org: string, secret: WebhookSecret): Promise<WebhookSecret>;
}

export interface DeliveryQueue {
  /** Enqueues one attempt, visible after `delaySeconds` (0..900). */
  send(message: DeliveryMessage, delaySeconds: number): Promise<void>;
}

export interface WebhookResponse {
  status: number;
}

export interface WebhookTransport {
  /**
   * POSTs the body; resolves with the receiver's status (any status), rejects when no response
   * came (refused, timed out, a non-public address). Redirects are not followed.
   */
  post(url: string, headers: Record<string, string>, body: string): Promise<WebhookResponse>;
  /** Why a target may not be used (private, loopback, malformed...), or null when it may. */
  refusal(url: string): Promise<string | null>;
}
