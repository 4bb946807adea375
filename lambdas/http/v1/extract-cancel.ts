// DELETE /v1/extract/{execution_id}: cancel; 409 when finished or waiting for a crawl.
import { defineRoute } from '../pipeline';
import { extractJobsOf } from '../../composition/extract-jobs';

export const handler = defineRoute('v1ExtractCancel', async ({ params }, { org, deps }) => {
  const cancelled = await extractJobsOf(deps).cancel({ org, executionId: params.execution_id });
  return { body: { success: true as const, execution_id: cancelled.execution_id, status: 'failed' as const } };
});
