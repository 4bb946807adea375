// The webhook delivery queue: one SendMessage per attempt with its DelaySeconds (the backoff).
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryQueue } from '../../ports/webhooks';
import { MAX_QUEUE_DELAY_SECONDS } from '../../domain/webhooks/model';

export function createSqsDeliveryQueue(sqs: SQSClient, queueUrl: string): DeliveryQueue {
  return {
    async send(message, delaySeconds) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(message),
          DelaySeconds: Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(delaySeconds))),
        }),
      );
    },
  };
}
