// Step of statemachines/crawl.asl.json (Record lost listing pages); see crawl-handlers.ts.
import { defineWorker } from './define';
import { crawlHandlers } from './crawl-handlers';

export const handler = defineWorker(crawlHandlers.lostBatch);
