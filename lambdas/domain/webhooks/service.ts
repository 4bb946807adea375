// Webhooks of executions: the executions service subscribes a new execution before it stores it,
// then reports its creation, state changes and progress (ExecutionEvents), which become deliveries
// on a queue; the delivery worker signs and posts each attempt and schedules the next with backoff
// until a 2xx or the last attempt; the organization reads its secret, rotates it, and reads the
// delivery log.
//
// Each event of an execution is delivered once: its delivery id comes from the execution and the
// event (progress: and its time slot), and the delivery record is created by a conditional write
// before the first attempt is enqueued, so two writers of the same event enqueue it once.
import { invalid } from '../errors';
import type { Execution } from '../executions/model';
import { TERMINAL } from '../executions/model';
import type { ExecutionEvents } from '../../ports/execution-events';
import type { DeliveryQueue, WebhookSecret, WebhookStore, WebhookTransport } from '../../ports/webhooks';
import {
  DEFAULT_RETRY_DELAYS_SECONDS,
  deliveryHeaders,
  deliveryIdFor,
  MAX_QUEUE_DELAY_SECONDS,
  newWebhookSecret,
  payloadOf,
  PROGRESS_INTERVAL_MS,
  DELIVERY_EVENTS,
  WEBHOOK_EVENTS,
  type DeliveryAttempt,
  type DeliveryEvent,
  type DeliveryMessage,
  type DeliveryRecord,
  type WebhookEvent,
  type WebhookSpec,
  type WebhookSubscription,
} from './model';

export interface WebhooksDeps {
  store: WebhookStore;
  queue: DeliveryQueue;
  transport: WebhookTransport;
  /** Internal execution read (no org check). */
  getExecution(id: string): Promise<Execution | null>;
  /** The org-scoped read of the API (404 for another organization's id). */
  findExecution(org: string, id: string): Promise<Execution>;
  now?: () => Date;
  /** Seconds before attempt 2, 3, ...; its length + 1 attempts in all. */
  retryDelaysSeconds?: readonly number[];
  progressIntervalMs?: number;
  /** A failure that must not fail the caller (an execution's transition, a worker's batch). */
  warn?: (message: string, context: Record<string, unknown>) => void;
  /** Told when a delivery is settled (delivered or failed): the change feed sends its next one. */
  onSettled?: (delivery: Pick<DeliveryRecord, 'execution_id' | 'delivery_id' | 'event' | 'org'>) => Promise<void>;
  /** Told after resumeUnsettled (a local restart): the change feed sends what waits. */
  onResume?: () => Promise<unknown>;
}

/** A delivery of something other than an execution's event, owned by `owner` (its delivery log's key). */
export interface OwnedDelivery {
  owner: string;
  org: string;
  event: DeliveryEvent;
  url: string;
  delivery_id: string;
  body: string;
}

/** The outcome of one processed queue message (for logs and tests). */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'deferred' | 'duplicate';

export const DELIVERY_LOG_LIMIT = 500;
/** In-process memory of which executions have a subscription, so progress costs no read per batch. */
const SUBSCRIPTION_CACHE_MS = PROGRESS_INTERVAL_MS;
const SUBSCRIPTION_CACHE_MAX = 5_000;

export type Webhooks = ReturnType<typeof createWebhooks>;

export function createWebhooks(deps: WebhooksDeps) {
  const { store, queue, transport } = deps;
  const now = deps.now ?? (() => new Date());
  const delays = deps.retryDelaysSeconds ?? DEFAULT_RETRY_DELAYS_SECONDS;
  const progressIntervalMs = deps.progressIntervalMs ?? PROGRESS_INTERVAL_MS;
  const warn = deps.warn ?? (() => undefined);
  const subscriptions = new Map<string, { subscription: WebhookSubscription | null; until: number }>();

  async function secretFor(org: string): Promise<WebhookSecret> {
    return (
      (await store.getSecret(org)) ??
      store.createSecret(org, { secret: newWebhookSecret(), created_at: now().toISOString() })
    );
  }

  /** Creates the delivery (once per id) and enqueues its first attempt. */
  async function emit(
    subscription: WebhookSubscription,
    event: WebhookEvent,
    execution: Execution,
    slot?: number,
  ): Promise<void> {
    if (!subscription.events.includes(event)) return;
    const at = now();
    const deliveryId = deliveryIdFor(execution.id, event, slot);
    const record: DeliveryRecord = {
      delivery_id: deliveryId,
      execution_id: execution.id,
      org: subscription.org,
      event,
      url: subscription.url,
      state: 'pending',
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
      next_attempt_at: at.toISOString(),
      attempts: [],
    };
    const body = JSON.stringify(payloadOf(deliveryId, event, execution, subscription.metadata, at));
    if (!(await store.createDelivery(record, body))) return;
    await queue.send(
      {
        delivery_id: deliveryId,
        execution_id: execution.id,
        org: subscription.org,
        event,
        url: subscription.url,
        body,
        attempt: 1,
      },
      0,
    );
  }

  const terminalEvent = (execution: Execution): WebhookEvent | null =>
    execution.status === 'completed' ? 'completed' : execution.status === 'failed' ? 'failed' : null;

  async function cachedSubscription(executionId: string): Promise<WebhookSubscription | null> {
    const nowMs = Date.now();
    const cached = subscriptions.get(executionId);
    if (cached && cached.until > nowMs) return cached.subscription;
    const subscription = await store.getSubscription(executionId);
    if (subscriptions.size >= SUBSCRIPTION_CACHE_MAX) subscriptions.clear();
    subscriptions.set(executionId, { subscription, until: nowMs + SUBSCRIPTION_CACHE_MS });
    return subscription;
  }

  /** The executions service's listener: subscriptions, `started`, terminal transitions and throttled progress. */
  const events: ExecutionEvents = {
    /**
     * Stores what the caller sent (and the organization's secret) before the execution exists:
     * a failure fails the start with nothing stored, so a retry starts one execution, with its webhook.
     */
    async subscribe(execution, spec) {
      const subscription: WebhookSubscription = {
        execution_id: execution.id,
        org: execution.org,
        url: spec.url,
        events: spec.events?.length ? WEBHOOK_EVENTS.filter((e) => spec.events!.includes(e)) : [...WEBHOOK_EVENTS],
        metadata: spec.metadata ?? null,
        created_at: now().toISOString(),
      };
      await secretFor(execution.org);
      await store.putSubscription(subscription);
      subscriptions.set(execution.id, { subscription, until: Date.now() + SUBSCRIPTION_CACHE_MS });
    },
    /** `started`, once the execution is stored; a lost event only warns (the execution and its later events stand). */
    async created(execution) {
      try {
        const subscription = await cachedSubscription(execution.id);
        if (subscription) await emit(subscription, 'started', execution);
      } catch (error) {
        warn('Webhook started event not sent', { executionId: execution.id, error: (error as Error).message });
      }
    },
    async transitioned(execution) {
      const event = terminalEvent(execution);
      if (!event) return;
      try {
        const subscription = await store.getSubscription(execution.id);
        if (subscription) await emit(subscription, event, execution);
      } catch (error) {
        warn('webhook event not enqueued', { executionId: execution.id, event, error: (error as Error).message });
      }
    },
    async progressed(executionId) {
      try {
        const subscription = await cachedSubscription(executionId);
        if (!subscription?.events.includes('progress')) return;
        const nowMs = now().getTime();
        if (!(await store.claimProgressSlot(executionId, nowMs, progressIntervalMs))) return;
        const execution = await deps.getExecution(executionId);
        if (!execution || TERMINAL.has(execution.status)) return;
        await emit(subscription, 'progress', execution, nowMs);
      } catch (error) {
        warn('webhook progress event not enqueued', { executionId, error: (error as Error).message });
      }
    },
  };

  /** The settle hook; its failure only warns (the delivery is settled either way). */
  async function settled(delivery: Pick<DeliveryRecord, 'execution_id' | 'delivery_id' | 'event' | 'org'>) {
    try {
      await deps.onSettled?.(delivery);
    } catch (error) {
      warn('webhook settle hook failed', { deliveryId: delivery.delivery_id, error: (error as Error).message });
    }
  }

  /** Enqueues the next attempt of a stored delivery (its first, after a lost send or a restart). */
  async function enqueueNext(record: DeliveryRecord & { body: string }) {
    const nowMs = now().getTime();
    const dueAt = record.next_attempt_at ? Date.parse(record.next_attempt_at) : nowMs;
    const remaining = Math.max(0, Math.ceil((dueAt - nowMs) / 1000));
    await queue.send(
      {
        delivery_id: record.delivery_id,
        execution_id: record.execution_id,
        org: record.org,
        event: record.event,
        url: record.url,
        body: record.body,
        attempt: record.attempts.length + 1,
        ...(remaining > 0 ? { due_at: dueAt } : {}),
      },
      Math.min(MAX_QUEUE_DELAY_SECONDS, remaining),
    );
  }

  /** Waits out the rest of a backoff longer than one queue delay; true when it was not due yet. */
  async function deferIfEarly(message: DeliveryMessage): Promise<boolean> {
    const remainingMs = (message.due_at ?? 0) - now().getTime();
    if (remainingMs <= 1000) return false;
    await queue.send(message, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(remainingMs / 1000)));
    return true;
  }

  return {
    events,

    /**
     * Checks a start request's webhook before anything starts: 400 INVALID_PARAMETER when the
     * target may not be used (the outbound rules of extraction).
     */
    async check(spec: WebhookSpec | undefined): Promise<void> {
      if (!spec) return;
      const refusal = await transport.refusal(spec.url);
      if (refusal) throw invalid(`webhook.url ${refusal}`, { parameter: 'webhook.url' });
    },

    /** Why a receiver may not be used (the outbound rules of extraction), or null. */
    refusal: (url: string) => transport.refusal(url),

    /** One queue message: sign and post the attempt, then record it and schedule the next. */
    async deliver(message: DeliveryMessage): Promise<AttemptOutcome> {
      if (await deferIfEarly(message)) return 'deferred';
      const record = await store.getDelivery(message.execution_id, message.delivery_id);
      // Gone, settled, or this attempt already made (SQS delivers at least once).
      if (!record || record.state === 'delivered' || record.state === 'failed') return 'duplicate';
      if (record.attempts.length >= message.attempt) return 'duplicate';
      const { secret } = await secretFor(message.org);
      const started = now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = (await transport.post(message.url, deliveryHeaders(message, secret, started), message.body)).status;
        if (status < 200 || status > 299) error = `HTTP ${status}`;
      } catch (failure) {
        error = (failure as Error).message.slice(0, 300);
      }
      const attempt: DeliveryAttempt = {
        attempt: message.attempt,
        at: started.toISOString(),
        status_code: status,
        error,
        duration_ms: Math.max(0, now().getTime() - started.getTime()),
      };
      if (error === null) {
        await store.recordAttempt(message.execution_id, message.delivery_id, attempt, 'delivered', null);
        await settled(message);
        return 'delivered';
      }
      const delaySeconds = delays[message.attempt - 1];
      if (delaySeconds === undefined) {
        await store.recordAttempt(message.execution_id, message.delivery_id, attempt, 'failed', null);
        await settled(message);
        return 'failed';
      }
      const dueAt = now().getTime() + delaySeconds * 1000;
      // The next attempt is enqueued before this one is recorded: if recording fails, SQS
      // redelivers this message, which posts again (same delivery id) and is recorded then.
      await queue.send(
        { ...message, attempt: message.attempt + 1, due_at: dueAt },
        Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds),
      );
      await store.recordAttempt(
        message.execution_id,
        message.delivery_id,
        attempt,
        'retrying',
        new Date(dueAt).toISOString(),
      );
      return 'retrying';
    },

    /**
     * Enqueues the next attempt of every unsettled delivery (bounded): after a local restart,
     * whose queue lived in the previous process's memory. A message still queued somewhere is
     * harmless: an attempt already made is a duplicate and posts nothing.
     */
    async resumeUnsettled(limit = 1000): Promise<number> {
      const unsettled = await store.listUnsettled(limit);
      for (const record of unsettled) await enqueueNext(record);
      await deps.onResume?.();
      return unsettled.length;
    },

    /**
     * Creates a delivery that is no execution's event (once per delivery id) and enqueues its
     * first attempt: signed, retried and logged like every other. False when it existed already.
     */
    async sendOwned(delivery: OwnedDelivery): Promise<boolean> {
      const at = now().toISOString();
      const record: DeliveryRecord = {
        delivery_id: delivery.delivery_id,
        execution_id: delivery.owner,
        org: delivery.org,
        event: delivery.event,
        url: delivery.url,
        state: 'pending',
        created_at: at,
        updated_at: at,
        next_attempt_at: at,
        attempts: [],
      };
      await secretFor(delivery.org);
      if (!(await store.createDelivery(record, delivery.body))) return false;
      await enqueueNext({ ...record, body: delivery.body });
      return true;
    },

    /** One stored delivery of an owner (an execution or a subscription), with its body. */
    ownedDelivery: (owner: string, deliveryId: string) => store.getDelivery(owner, deliveryId),

    /** Enqueues a stored delivery's next attempt again (its first send was lost). */
    resend: enqueueNext,

    /** An owner's delivery log, oldest first (the caller checked the owner is the organization's). */
    async ownedLog(owner: string): Promise<DeliveryRecord[]> {
      const records = await store.listDeliveries(owner, DELIVERY_LOG_LIMIT);
      return records.sort(
        (a, b) => a.created_at.localeCompare(b.created_at) || a.delivery_id.localeCompare(b.delivery_id),
      );
    },

    /** The dead-letter consumer: a message that kept failing inside the worker is given up. */
    async giveUp(message: DeliveryMessage): Promise<void> {
      const record = await store.getDelivery(message.execution_id, message.delivery_id);
      if (!record || record.state === 'delivered' || record.state === 'failed') return;
      await store.setState(message.execution_id, message.delivery_id, 'failed', now().toISOString());
      await settled(message);
    },

    /** The delivery log of the caller's execution, oldest first (404 for another organization's id). */
    async deliveries(
      org: string,
      executionId: string,
    ): Promise<{ execution_id: string; deliveries: DeliveryRecord[] }> {
      const execution = await deps.findExecution(org, executionId);
      const records = await store.listDeliveries(execution.id, DELIVERY_LOG_LIMIT);
      records.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.delivery_id.localeCompare(b.delivery_id));
      return { execution_id: execution.id, deliveries: records };
    },

    /** The organization's signing secret, created on first use. */
    secret: (org: string) => secretFor(org),

    /** A new secret; deliveries signed from now on use it. */
    rotateSecret: (org: string) =>
      store.replaceSecret(org, { secret: newWebhookSecret(), created_at: now().toISOString() }),
  };
}

/** Parses a delivery queue message; null when it can never be processed. */
export function parseDeliveryMessage(text: string): DeliveryMessage | null {
  try {
    const m = JSON.parse(text) as Partial<DeliveryMessage>;
    if (
      typeof m.delivery_id !== 'string' ||
      typeof m.execution_id !== 'string' ||
      typeof m.org !== 'string' ||
      typeof m.url !== 'string' ||
      typeof m.body !== 'string' ||
      !DELIVERY_EVENTS.includes(m.event as DeliveryEvent) ||
      !Number.isInteger(m.attempt) ||
      (m.attempt as number) < 1
    )
      return null;
    if (m.due_at !== undefined && typeof m.due_at !== 'number') return null;
    return m as DeliveryMessage;
  } catch {
    return null;
  }
}
