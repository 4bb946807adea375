import { defineRoute } from '../pipeline';
import { paginate } from '../../contracts/common';
import { usageForPeriod } from '../../domain/usage/service';

export const handler = defineRoute('v2Usage', async ({ query }, { deps, org, now }) => {
  const page = paginate(await usageForPeriod(deps.usage, org, query.period, now), query.page, query.page_size);
  return { body: { data: page.items, pagination: page.pagination, meta: { period: query.period } } };
});
