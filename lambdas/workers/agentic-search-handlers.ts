// The agentic-search workflow's steps that read the search index (Understand query, Retrieve
// candidates): their workers load it, not the extraction path (see agentic-handlers.ts).
import type { Container } from '../composition/container';
import type { PlanState } from '../domain/agentic/jobs';

export const agenticSearchHandlers = {
  understand: (event: { executionId: string }, deps: Container) => deps.agentic.jobs.steps.understand(event),
  retrieve: (event: PlanState, deps: Container) => deps.agentic.jobs.steps.retrieve(event),
};
