// Consumer of extract-work (QUEUES): one message = one batch of URLs of an extraction.
import { defineWorker } from './define';
import { extractBatchWorker } from './extract-batch-handler';

export const handler = defineWorker(extractBatchWorker);
