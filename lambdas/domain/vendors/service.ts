import type { VendorStore } from '../../ports/vendors';
import type { MerchantDirectory } from '../affiliate/merchants';
import { invalid } from '../errors';
import { vendorKey } from '../extraction/url';
import type { ProductSeen, VendorRecord, VendorSummary } from './model';

export async function recordProductSeen(store: VendorStore, event: ProductSeen): Promise<void> {
  const key = vendorKey(event.vendor);
  if (!key) throw invalid(`vendor "${event.vendor}" is not a valid hostname`);
  const updated = event.updatedAt instanceof Date ? event.updatedAt : new Date(event.updatedAt);
  if (Number.isNaN(updated.getTime())) throw invalid(`updatedAt "${String(event.updatedAt)}" is not a timestamp`);
  await store.recordProductSeen({
    vendor: key,
    displayName: event.displayName?.trim() || undefined,
    newProduct: event.newProduct,
    updatedAt: updated.toISOString(),
  });
}

export const toSummary = (record: VendorRecord, merchants: MerchantDirectory): VendorSummary => ({
  vendor: record.vendor,
  latest_product_update_by_service: record.latestProductUpdate,
  product_count: record.productCount,
  in_affiliate_network: merchants.isMerchant(record.vendor),
});

export async function listVendorSummaries(store: VendorStore, merchants: MerchantDirectory): Promise<VendorSummary[]> {
  return (await store.listAll()).map((record) => toSummary(record, merchants));
}
