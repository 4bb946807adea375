// Consumer of agentic-verify-dlq (QUEUES dlqWorker): a candidate that failed maxReceiveCount times.
import { defineWorker } from './define';
import { agenticStepHandlers } from './agentic-step-handlers';

export const handler = defineWorker(agenticStepHandlers.deadLetters);
