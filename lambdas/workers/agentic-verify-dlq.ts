// Consumer of agentic-verify-dlq (QUEUES dlqWorker): a candidate that failed maxReceiveCount times.
import { defineWorker } from './define';
import { agenticHandlers } from './agentic-handlers';

export const handler = defineWorker(agenticHandlers.deadLetters);
