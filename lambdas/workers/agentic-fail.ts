// Step of statemachines/agentic-search.asl.json (WORKFLOWS agentic); see agentic-handlers.ts.
import { defineWorker } from './define';
import { agenticStepHandlers } from './agentic-step-handlers';

export const handler = defineWorker(agenticStepHandlers.fail);
