// Step of statemachines/crawl.asl.json (Discovering collections); see crawl-handlers.ts.
import { defineWorker } from './define';
import { crawlHandlers } from './crawl-handlers';

export const handler = defineWorker(crawlHandlers.discover);
