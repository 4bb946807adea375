// DELETE /v2/extract/{execution_id}: cancel; 409 CONFLICT when finished or waiting on a crawl.
import { defineRoute } from '../pipeline';
import { extractJobsOf } from '../../composition/extract-jobs';
import { CANCELLED_MESSAGE } from '../../domain/executions/model';

export const handler = defineRoute('v2ExtractCancel', async ({ params }, { org, deps }) => {
  const cancelled = await extractJobsOf(deps).cancel({ org, executionId: params.execution_id });
  return {
    body: {
      execution_id: cancelled.execution_id,
      status: 'failed' as const,
      error: cancelled.error ?? CANCELLED_MESSAGE,
    },
  };
});
