// Consumer of agentic-verify (QUEUES): one message = one candidate of an agentic search.
import { defineWorker } from './define';
import { agenticHandlers } from './agentic-handlers';

export const handler = defineWorker(agenticHandlers.verify);
