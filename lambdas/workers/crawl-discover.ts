// Step of statemachines/crawl.asl.json (Discovering collections); see crawl-page-handlers.ts.
import { defineWorker } from './define';
import { crawlPageHandlers } from './crawl-page-handlers';

export const handler = defineWorker(crawlPageHandlers.discover);
