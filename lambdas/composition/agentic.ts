// Agentic search as an execution of the agentic workflow (v2): start, status and the steps that
// read and write only the execution and its entries (Rank, the failure step, the dead letters).
// The steps that search (agentic-search.ts) and verify (agentic-verify.ts) are built over the
// same executions with the search index or the extraction path added, in modules of their own so
// the other functions import neither.
import { createAgenticJobs, type AgenticJobs, type AgenticJobsDeps } from '../domain/agentic/jobs';
import { capability, type Container } from './container';
import { executionsOf } from './executions';
import { extractResultsOf } from './extract-jobs';
import { stepFunctionsOf } from './step-functions';

export const AGENTIC_WORKFLOW = 'agentic';

/** The agentic jobs over `base`, with what the calling function's steps reach. */
export function agenticJobsWith(base: Container, uses: Pick<AgenticJobsDeps, 'search' | 'verify'>): AgenticJobs {
  return createAgenticJobs({
    executions: executionsOf(base),
    results: extractResultsOf(base),
    workflows: stepFunctionsOf(base).workflows,
    workflowName: AGENTIC_WORKFLOW,
    deadlineSeconds: base.deadlineSeconds(AGENTIC_WORKFLOW),
    ...uses,
  });
}

export const agenticJobsOf = capability((base) => agenticJobsWith(base, {}));
