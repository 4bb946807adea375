import { defineRoute } from '../pipeline';
import { listVendorSummaries } from '../../domain/vendors/service';
import { serializedOnce } from '../render';

export const handler = defineRoute('legacyVendors', async (_request, { deps }) => {
  const summaries = await listVendorSummaries(deps.vendors, deps.merchants);
  return serializedOnce(summaries, 'legacy', () => ({ vendors: summaries }));
});
