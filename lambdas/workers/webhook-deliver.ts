// Consumer of webhook-deliveries (QUEUES worker): one signed attempt per message.
import { defineWorker } from './define';
import { webhookHandlers } from './webhook-handlers';

export const handler = defineWorker(webhookHandlers.deliver);
