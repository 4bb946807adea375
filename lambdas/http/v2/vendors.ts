import { defineRoute } from '../pipeline';
import { paginate } from '../../contracts/common';
import { knownVendorSummaries, listVendorSummaries } from '../../domain/vendors/service';
import type { VendorSummary } from '../../domain/vendors/model';
import { serializedOnce } from '../render';

// The summaries are one shared array per vendor-list period (domain/vendors/list-cache.ts): each
// page of it is shaped and serialised once per period, not per call. While the list is cached the
// answer comes without waiting on a promise.
export const handler = defineRoute('v2Vendors', ({ query }, { deps }) => {
  const page = (summaries: VendorSummary[]) =>
    serializedOnce(summaries, `${query.page}:${query.page_size}`, () => {
      const { items, pagination } = paginate(summaries, query.page, query.page_size);
      return { data: items, pagination, meta: {} };
    });
  const known = knownVendorSummaries(deps.vendors, deps.merchants);
  return known ? page(known) : listVendorSummaries(deps.vendors, deps.merchants).then(page);
});
