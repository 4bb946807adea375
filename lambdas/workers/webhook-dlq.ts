// Consumer of webhook-deliveries-dlq (QUEUES dlqWorker): deliveries given up.
import { defineWorker } from './define';
import { webhookHandlers } from './webhook-handlers';

export const handler = defineWorker(webhookHandlers.deadLetters);
