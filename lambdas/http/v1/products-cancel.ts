// DELETE /v1/products/{execution_id}: cancel; 409 when already finished.
import { defineRoute } from '../pipeline';
import { extractJobsOf } from '../../composition/extract-jobs';

export const handler = defineRoute('v1ProductsCancel', async ({ params }, { org, deps }) => {
  const cancelled = await extractJobsOf(deps).cancel({ org, executionId: params.execution_id });
  return { body: { success: true as const, execution_id: cancelled.execution_id, status: 'failed' as const } };
});
