// Step of statemachines/extract.asl.json (WORKFLOWS extract); see extract-handlers.ts.
import { defineWorker } from './define';
import { extractHandlers } from './extract-handlers';

export const handler = defineWorker(extractHandlers.finalize);
