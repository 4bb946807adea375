// Consumer of crawl-work (QUEUES): one message = one batch of listing pages of a crawl; see crawl-handlers.ts.
import { defineWorker } from './define';
import { crawlHandlers } from './crawl-handlers';

export const handler = defineWorker(crawlHandlers.worker);
