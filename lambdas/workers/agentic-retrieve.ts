// Step of statemachines/agentic-search.asl.json (WORKFLOWS agentic); see agentic-handlers.ts.
import { defineWorker } from './define';
import { agenticHandlers } from './agentic-handlers';

export const handler = defineWorker(agenticHandlers.retrieve);
