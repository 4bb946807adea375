// GET /v1/extract: the caller's vendor-based extractions, most recent first.
import { defineRoute } from '../pipeline';
import { extractJobsOf } from '../../composition/extract-jobs';
import { v1ExecutionList } from '../shapes/extract-status';

export const handler = defineRoute('v1ExtractList', async ({ query }, { org, deps }) => {
  // Vendor-mode runs among the organization's extractions; the newest 100 are searched.
  const list = await extractJobsOf(deps).list({ org, status: query.status, page: 1, pageSize: 100 });
  return {
    body: v1ExecutionList({
      ...list,
      items: list.items.filter((item) => item.kind === 'extract-vendor').slice(0, query.limit),
    }),
  };
});
