// Consumer of render-work-dlq (QUEUES dlqWorker): a part that failed maxReceiveCount times.
import { extractPlanningOf } from '../composition/extract-jobs';
import { defineWorker } from './define';
import { renderHandlers } from './render-handlers';

export const handler = defineWorker(renderHandlers(extractPlanningOf, extractPlanningOf).deadLetters);
