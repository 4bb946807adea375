// Step of statemachines/crawl.asl.json (plans the next wave of listing pages); see crawl-handlers.ts.
import { defineWorker } from './define';
import { crawlHandlers } from './crawl-handlers';

export const handler = defineWorker(crawlHandlers.plan);
