import { defineRoute } from '../pipeline';
import { listVendorSummaries } from '../../domain/vendors/service';

export const handler = defineRoute('v1Vendors', async (_request, { deps }) => ({
  body: { data: await listVendorSummaries(deps.vendors, deps.merchants), meta: {} },
}));
