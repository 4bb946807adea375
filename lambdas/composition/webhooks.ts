// Signed webhooks of executions: subscriptions, delivery logs and secrets in the table, attempts
// on the webhook-deliveries queue, outbound POSTs under the fetcher's address rules (PDS_RESOLVE
// hosts allowed, PDS_WEBHOOK_ALLOW_PRIVATE for local development).
import { dynamoExecutionStore } from '../adapters/dynamodb/executions';
import { dynamoWebhookStore } from '../adapters/dynamodb/webhooks';
import { createSqsDeliveryQueue } from '../adapters/webhooks/queue';
import { createWebhookTransport } from '../adapters/webhooks/transport';
import { findExecution } from '../domain/executions/service';
import { createWebhooks, type Webhooks } from '../domain/webhooks/service';
import type { DeliveryQueue } from '../ports/webhooks';
import { logger } from '../observability/logger';
import { capability } from './container';
import { changesOf } from './changes';
import { PRODUCT_CHANGED } from '../domain/changes/model';

export const WEBHOOK_QUEUE = 'webhook-deliveries';

// Deliveries read executions from the store; they never start or stop a workflow, so a function
// that only records changes (an extraction) ships no workflow engine.
export const webhooksOf = capability((base): Webhooks => {
  const { config, clients } = base;
  const executions = dynamoExecutionStore(clients.documents, config.tableName);
  // The queue URL is read on the first send: a process without it (a unit test's container) can
  // still build the capability, and fails only when it would enqueue.
  let queue: DeliveryQueue | undefined;
  const deliveryQueue: DeliveryQueue = {
    send(message, delaySeconds) {
      if (!queue) {
        const url = config.queueUrls[WEBHOOK_QUEUE];
        if (!url) throw new Error(`No URL configured for queue "${WEBHOOK_QUEUE}"`);
        queue = createSqsDeliveryQueue(clients.sqs, url);
      }
      return queue.send(message, delaySeconds);
    },
  };
  return createWebhooks({
    store: dynamoWebhookStore(clients.documents, config.tableName),
    queue: deliveryQueue,
    transport: createWebhookTransport({ resolve: config.resolve, allowPrivate: config.webhooks.allowPrivateTargets }),
    getExecution: (id) => executions.get(id),
    findExecution: (org, id) => findExecution(executions, org, id),
    now: () => base.clock.now(),
    retryDelaysSeconds: config.webhooks.retryDelaysSeconds,
    warn: (message, context) => logger.warn(message, context),
    // The change feed's subscriptions send one page at a time: the next once one is settled.
    onSettled: (delivery) =>
      delivery.event === PRODUCT_CHANGED
        ? changesOf(base).settled(delivery.execution_id, delivery.org)
        : Promise.resolve(),
    onResume: () => changesOf(base).dispatchAll(),
  });
});
