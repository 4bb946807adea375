// Consumer of agentic-verify (QUEUES): one message = one candidate of an agentic search.
import { defineWorker } from './define';
import { agenticVerifyHandler } from './agentic-verify-handler';

export const handler = defineWorker(agenticVerifyHandler);
