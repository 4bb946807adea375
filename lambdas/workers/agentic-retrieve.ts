// Step of statemachines/agentic-search.asl.json (WORKFLOWS agentic); see agentic-handlers.ts.
import { defineWorker } from './define';
import { agenticSearchHandlers } from './agentic-search-handlers';

export const handler = defineWorker(agenticSearchHandlers.retrieve);
