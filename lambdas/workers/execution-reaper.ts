// Scheduled (CDK: every 5 minutes; locally the runtime may call it): fails executions whose
// deadline passed without a terminal state. Status reads reap their own execution too.
import { defineWorker } from './define';
import { extractHandlers } from './extract-handlers';

export const handler = defineWorker(extractHandlers.reaper);
