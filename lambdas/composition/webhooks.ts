// The webhooks capability from the container: subscriptions, delivery logs and secrets in the
// table, attempts on the webhook-deliveries queue, outbound POSTs under the fetcher's address
// rules (PDS_RESOLVE hosts allowed, PDS_WEBHOOK_ALLOW_PRIVATE for local development).
import type { Container } from './container';
import { dynamoWebhookStore } from '../adapters/dynamodb/webhooks';
import { createSqsDeliveryQueue } from '../adapters/webhooks/queue';
import { createWebhookTransport } from '../adapters/webhooks/transport';
import { createWebhooks, type Webhooks } from '../domain/webhooks/service';
import type { Executions } from '../domain/executions/service';
import type { DeliveryQueue } from '../ports/webhooks';
import { logger } from '../observability/logger';

export const WEBHOOK_QUEUE = 'webhook-deliveries';

export function createWebhooksCapability(
  container: Pick<Container, 'config' | 'clients' | 'clock'>,
  executions: () => Executions,
): Webhooks {
  const { config } = container;
  // The queue URL is read on the first send: a process without it (a unit test's container) can
  // still build the capability, and fails only when it would enqueue.
  let queue: DeliveryQueue | undefined;
  const deliveryQueue: DeliveryQueue = {
    send(message, delaySeconds) {
      if (!queue) {
        const url = config.queueUrls[WEBHOOK_QUEUE];
        if (!url) throw new Error(`No URL configured for queue "${WEBHOOK_QUEUE}"`);
        queue = createSqsDeliveryQueue(container.clients.sqs, url);
      }
      return queue.send(message, delaySeconds);
    },
  };
  return createWebhooks({
    store: dynamoWebhookStore(container.clients.documents, config.tableName),
    queue: deliveryQueue,
    transport: createWebhookTransport({ resolve: config.resolve, allowPrivate: config.webhooks.allowPrivateTargets }),
    getExecution: (id) => executions().get(id),
    findExecution: (org, id) => executions().find(org, id),
    abandon: async (id, reason) => {
      await executions().fail(id, reason);
    },
    now: () => container.clock.now(),
    retryDelaysSeconds: config.webhooks.retryDelaysSeconds,
    warn: (message, context) => logger.warn(message, context),
  });
}
