// GET /v1/products: the caller's extractions, most recent first.
import { defineRoute } from '../pipeline';
import { extractJobsOf } from '../../composition/extract-jobs';
import { v1ExecutionList } from '../shapes/extract-status';

export const handler = defineRoute('v1ProductsList', async ({ query }, { org, deps }) => ({
  body: v1ExecutionList(await extractJobsOf(deps).list({ org, status: query.status, page: 1, pageSize: query.limit })),
}));
