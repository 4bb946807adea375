// Consumer of extract-work-dlq (QUEUES dlqWorker): a batch that failed maxReceiveCount times.
import { getJobsDeps } from '../composition/jobs';
import { extractHandlers } from './extract-handlers';

export const handler = extractHandlers(getJobsDeps).deadLetters;
