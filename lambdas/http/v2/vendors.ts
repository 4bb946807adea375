import { defineRoute } from '../pipeline';
import { paginate } from '../../contracts/common';
import { listVendorSummaries } from '../../domain/vendors/service';

export const handler = defineRoute('v2Vendors', async ({ query }, { deps }) => {
  const page = paginate(await listVendorSummaries(deps.vendors, deps.merchants), query.page, query.page_size);
  return { body: { data: page.items, pagination: page.pagination, meta: {} } };
});
