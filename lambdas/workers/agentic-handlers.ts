// The agentic-search workflow's Lambda handlers over the container (statemachines/
// agentic-search.asl.json, WORKFLOWS agentic), all together (tests, tools). They live in three
// modules by what they import, and each deployed worker module (agentic-*.ts, one `defineWorker`
// line) imports its own: agentic-search-handlers.ts (understand, retrieve: the search index),
// agentic-verify-handler.ts (verify: the extraction path), agentic-step-handlers.ts (rank, fail,
// the dead letters: neither).
import { agenticSearchHandlers } from './agentic-search-handlers';
import { agenticStepHandlers } from './agentic-step-handlers';
import { agenticVerifyHandler } from './agentic-verify-handler';

export const agenticHandlers = {
  ...agenticSearchHandlers,
  ...agenticStepHandlers,
  /** SQS consumer of agentic-verify: one message = one candidate. */
  verify: agenticVerifyHandler,
};
