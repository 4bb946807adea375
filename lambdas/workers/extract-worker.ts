// Consumer of extract-work (QUEUES): one message = one batch of URLs of an extraction.
import { defineWorker } from './define';
import { extractHandlers } from './extract-handlers';

export const handler = defineWorker(extractHandlers.worker);
