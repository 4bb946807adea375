// Step of statemachines/crawl.asl.json (Determining crawl method); see crawl-handlers.ts.
import { defineWorker } from './define';
import { crawlHandlers } from './crawl-handlers';

export const handler = defineWorker(crawlHandlers.determine);
