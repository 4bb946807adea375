import { defineRoute } from '../pipeline';
import { merchantsOf } from '../../composition/merchants';
import { listVendorSummaries } from '../../domain/vendors/service';
import { serializedOnce } from '../render';

export const handler = defineRoute('v1Vendors', async (_request, { deps }) => {
  const summaries = await listVendorSummaries(deps.vendors, merchantsOf(deps));
  return serializedOnce(summaries, 'v1', () => ({ data: summaries, meta: {} }));
});
