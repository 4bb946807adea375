import { defineRoute } from '../pipeline';
import { merchantsOf } from '../../composition/merchants';
import { paginate } from '../../contracts/common';
import { knownVendorSummaries, listVendorSummaries } from '../../domain/vendors/service';
import type { VendorSummary } from '../../domain/vendors/model';
import { serializedOnce } from '../render';

// The summaries are one shared array per vendor-list period (domain/vendors/list-cache.ts): each
// page of it is shaped and serialised once per period, not per call. While the list is cached the
// answer comes without waiting on a promise.
function vendorsPage(summaries: VendorSummary[], page: number, size: number) {
  return serializedOnce(summaries, `${page}:${size}`, () => {
    const { items, pagination } = paginate(summaries, page, size);
    return { data: items, pagination, meta: {} };
  });
}

export const handler = defineRoute('v2Vendors', ({ query }, { deps }) => {
  const known = knownVendorSummaries(deps.vendors, merchantsOf(deps));
  if (known) return vendorsPage(known, query.page, query.page_size);
  return listVendorSummaries(deps.vendors, merchantsOf(deps)).then((summaries) =>
    vendorsPage(summaries, query.page, query.page_size),
  );
});
