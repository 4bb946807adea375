// The agentic-search workflow's steps that read the search index (Understand query, Retrieve
// candidates): their workers import it, not the extraction path (see agentic-handlers.ts).
import { agenticSearchJobsOf } from '../composition/agentic-search';
import type { Container } from '../composition/container';
import type { PlanState } from '../domain/agentic/jobs';

export const agenticSearchHandlers = {
  understand: (event: { executionId: string }, deps: Container) => agenticSearchJobsOf(deps).steps.understand(event),
  retrieve: (event: PlanState, deps: Container) => agenticSearchJobsOf(deps).steps.retrieve(event),
};
