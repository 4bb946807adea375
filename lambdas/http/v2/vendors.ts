import { defineRoute } from '../pipeline';
import { paginate } from '../../contracts/common';
import { listVendorSummaries } from '../../domain/vendors/service';
import { serializedOnce } from '../render';

// The summaries are one shared array per vendor-list period (domain/vendors/list-cache.ts): each
// page of it is shaped and serialised once per period, not per call.
export const handler = defineRoute('v2Vendors', async ({ query }, { deps }) => {
  const summaries = await listVendorSummaries(deps.vendors, deps.merchants);
  return serializedOnce(summaries, `${query.page}:${query.page_size}`, () => {
    const page = paginate(summaries, query.page, query.page_size);
    return { data: page.items, pagination: page.pagination, meta: {} };
  });
});
