// Extractions as executions: the API's use-cases (start, status, list, cancel) and the workflow's
// planning steps (Prepare, lost batches, Finalize, the failure step), none of which extracts a
// page; the batch worker's steps, which do, are extract-batch.ts.
import { dynamoExtractResultStore } from '../adapters/dynamodb/extract-results';
import { createExtractJobs } from '../domain/extract-jobs/jobs';
import { createExtractSteps } from '../domain/extract-jobs/steps';
import { productCatalogOf } from './catalog';
import { capability } from './container';
import { executionsOf } from './executions';
import { stepFunctionsOf } from './step-functions';
import { changesOf } from './changes';

export const EXTRACT_WORKFLOW = 'extract';

export const extractResultsOf = capability((base) =>
  dynamoExtractResultStore(base.clients.documents, base.config.tableName),
);

export const extractJobsOf = capability((base) =>
  createExtractJobs({
    executions: executionsOf(base),
    results: extractResultsOf(base),
    workflows: stepFunctionsOf(base).workflows,
    workflowName: EXTRACT_WORKFLOW,
    deadlineSeconds: base.deadlineSeconds(EXTRACT_WORKFLOW),
    grantVendors: (org, vendors) => changesOf(base).grant(org, vendors),
  }),
);

/** The steps without the engine: processBatch is extract-batch.ts's. */
export const extractPlanningOf = capability((base) =>
  createExtractSteps({
    executions: executionsOf(base),
    results: extractResultsOf(base),
    catalog: productCatalogOf(base),
  }),
);
