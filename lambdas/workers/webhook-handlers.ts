// The webhook delivery queue's consumers over the container; the deployed worker modules
// (webhook-deliver.ts, webhook-dlq.ts) are one `defineWorker` line each.
import type { SQSEvent } from 'aws-lambda';
import type { Container } from '../composition/container';
import { webhooksOf } from '../composition/webhooks';
import { parseDeliveryMessage } from '../domain/webhooks/service';
import { logger } from '../observability/logger';
import { processSqsBatch } from './define';

export const webhookHandlers = {
  /**
   * One message = one attempt: signed POST, then the record and the next attempt (backoff). A
   * receiver's non-2xx is not a batch failure (the retry is a new, delayed message); a failure
   * inside the worker (the table, the queue) is, and SQS redelivers it.
   */
  deliver: (event: SQSEvent, deps: Container) =>
    processSqsBatch(
      event,
      async (record) => {
        const message = parseDeliveryMessage(record.body);
        if (!message)
          return logger.warn('webhook-deliver: dropping a malformed message', { messageId: record.messageId });
        const outcome = await webhooksOf(deps).deliver(message);
        logger.debug('webhook attempt', {
          deliveryId: message.delivery_id,
          executionId: message.execution_id,
          event: message.event,
          attempt: message.attempt,
          outcome,
        });
      },
      { inParallel: true },
    ),

  /** Dead letters: a delivery whose message failed inside the worker maxReceiveCount times is failed. */
  deadLetters: (event: SQSEvent, deps: Container) =>
    processSqsBatch(event, async (record) => {
      const message = parseDeliveryMessage(record.body);
      if (!message) return;
      await webhooksOf(deps).giveUp(message);
      logger.warn('webhook delivery given up after repeated worker failures', {
        deliveryId: message.delivery_id,
        executionId: message.execution_id,
      });
    }),
};
