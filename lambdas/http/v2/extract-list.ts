// GET /v2/extract: the caller's extractions, most recent first, in the v2 envelope.
import { defineRoute } from '../pipeline';
import { extractJobsOf } from '../../composition/extract-jobs';
import { v2ExecutionList } from '../shapes/extract-status';

export const handler = defineRoute('v2ExtractList', async ({ query }, { org, deps }) => ({
  body: v2ExecutionList(
    await extractJobsOf(deps).list({ org, status: query.status, page: query.page, pageSize: query.page_size }),
  ),
}));
