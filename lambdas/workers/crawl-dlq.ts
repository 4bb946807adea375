// Consumer of crawl-work-dlq (QUEUES dlqWorker): a batch that failed maxReceiveCount times; see crawl-handlers.ts.
import { defineWorker } from './define';
import { crawlHandlers } from './crawl-handlers';

export const handler = defineWorker(crawlHandlers.deadLetters);
