// Consumer of extract-work-dlq (QUEUES dlqWorker): a batch that failed maxReceiveCount times.
import { defineWorker } from './define';
import { extractHandlers } from './extract-handlers';

export const handler = defineWorker(extractHandlers.deadLetters);
