// Consumer of crawl-work (QUEUES): one message = one batch of listing pages of a crawl; see crawl-page-handlers.ts.
import { defineWorker } from './define';
import { crawlPageHandlers } from './crawl-page-handlers';

export const handler = defineWorker(crawlPageHandlers.worker);
