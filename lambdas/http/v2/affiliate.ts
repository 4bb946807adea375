// POST /v2/affiliate: the v1 results in the v2 envelope, counts in meta, one page of all results.
import { defineRoute } from '../pipeline';
import { affiliateOf } from '../../composition/affiliate';
import { paginate } from '../../contracts/common';

export const handler = defineRoute('v2Affiliate', async ({ body }, { org, deps }) => {
  const { results, total_processed, successful, failed } = await affiliateOf(deps).linkUrls(org, body.urls);
  const page = paginate(results, 1, results.length);
  return { body: { data: page.items, pagination: page.pagination, meta: { total_processed, successful, failed } } };
});
