import { defineRoute } from '../pipeline';
import { listVendorSummaries } from '../../domain/vendors/service';

export const handler = defineRoute('legacyVendors', async (_request, { deps }) => ({
  body: { vendors: await listVendorSummaries(deps.vendors, deps.merchants) },
}));
