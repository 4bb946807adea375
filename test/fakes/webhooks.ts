// An in-memory WebhookStore with the DynamoDB adapter's conditions (create once, attempts in
// order, progress slots), for use-case tests of lambdas/domain/webhooks.
import type { WebhookSecret, WebhookStore } from '../../lambdas/ports/webhooks';
import type { DeliveryRecord, WebhookSubscription } from '../../lambdas/domain/webhooks/model';

export function memoryWebhookStore() {
  const subscriptions = new Map<string, WebhookSubscription & { last_progress_ms?: number }>();
  const deliveries = new Map<string, DeliveryRecord>();
  const bodies = new Map<string, string>();
  const secrets = new Map<string, WebhookSecret>();
  const copy = <T>(value: T): T => structuredClone(value);
  const store: WebhookStore = {
    async putSubscription(subscription) {
      subscriptions.set(subscription.execution_id, copy(subscription));
    },
    async getSubscription(id) {
      const found = subscriptions.get(id);
      if (!found) return null;
      const { last_progress_ms: _, ...subscription } = found;
      return copy(subscription);
    },
    async claimProgressSlot(id, nowMs, intervalMs) {
      const found = subscriptions.get(id);
      if (!found) return false;
      if (found.last_progress_ms !== undefined && found.last_progress_ms > nowMs - intervalMs) return false;
      found.last_progress_ms = nowMs;
      return true;
    },
    async createDelivery(record, body) {
      if (deliveries.has(record.delivery_id)) return false;
      deliveries.set(record.delivery_id, copy(record));
      bodies.set(record.delivery_id, body);
      return true;
    },
    async getDelivery(_executionId, deliveryId) {
      const found = deliveries.get(deliveryId);
      return found ? copy(found) : null;
    },
    async recordAttempt(_executionId, deliveryId, attempt, state, nextAttemptAt) {
      const found = deliveries.get(deliveryId);
      if (!found || found.attempts.length !== attempt.attempt - 1) return false;
      found.attempts.push(copy(attempt));
      found.state = state;
      found.updated_at = attempt.at;
      found.next_attempt_at = nextAttemptAt;
      return true;
    },
    async setState(_executionId, deliveryId, state, at) {
      const found = deliveries.get(deliveryId);
      if (!found) return;
      found.state = state;
      found.updated_at = at;
      found.next_attempt_at = null;
    },
    async listDeliveries(executionId, limit) {
      return [...deliveries.values()]
        .filter((d) => d.execution_id === executionId)
        .slice(0, limit)
        .map(copy);
    },
    async listUnsettled(limit) {
      return [...deliveries.values()]
        .filter((d) => d.state === 'pending' || d.state === 'retrying')
        .slice(0, limit)
        .map((d) => ({ ...copy(d), body: bodies.get(d.delivery_id)! }));
    },
    async getSecret(org) {
      return secrets.get(org) ?? null;
    },
    async createSecret(org, secret) {
      if (!secrets.has(org)) secrets.set(org, secret);
      return secrets.get(org)!;
    },
    async replaceSecret(org, secret) {
      secrets.set(org, secret);
      return secret;
    },
  };
  return { store, deliveries, subscriptions, secrets };
}
