import { defineRoute } from '../pipeline';
import { merchantsOf } from '../../composition/merchants';
import { listVendorSummaries } from '../../domain/vendors/service';
import { serializedOnce } from '../render';

export const handler = defineRoute('legacyVendors', async (_request, { deps }) => {
  const summaries = await listVendorSummaries(deps.vendors, merchantsOf(deps));
  return serializedOnce(summaries, 'legacy', () => ({ vendors: summaries }));
});
