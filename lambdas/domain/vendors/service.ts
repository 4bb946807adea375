import type { VendorStore } from '../../ports/vendors';
import type { MerchantDirectory } from '../affiliate/merchants';
import { invalid } from '../errors';
import { vendorKey } from '../extraction/url';
import type { ProductSeen, ProductsSeen, VendorRecord, VendorSummary } from './model';

/** The vendor key, display name and ISO instant of an event; bad values are INVALID_PARAMETER. */
function checked(event: { vendor: string; displayName?: string; updatedAt: string | Date }) {
  const vendor = vendorKey(event.vendor);
  if (!vendor) throw invalid(`vendor "${event.vendor}" is not a valid hostname`);
  const updated = event.updatedAt instanceof Date ? event.updatedAt : new Date(event.updatedAt);
  if (Number.isNaN(updated.getTime())) throw invalid(`updatedAt "${String(event.updatedAt)}" is not a timestamp`);
  return { vendor, displayName: event.displayName?.trim() || undefined, updatedAt: updated.toISOString() };
}

export async function recordProductSeen(store: VendorStore, event: ProductSeen): Promise<void> {
  await store.recordProductSeen({ ...checked(event), newProduct: event.newProduct });
}

/** Products of one vendor stored together: one vendor write whatever their number. */
export async function recordProductsSeen(store: VendorStore, event: ProductsSeen): Promise<void> {
  if (!Number.isSafeInteger(event.newProducts) || event.newProducts < 0)
    throw invalid(`newProducts ${event.newProducts} is not a count`);
  await store.recordProductsSeen({ ...checked(event), newProducts: event.newProducts });
}

export const toSummary = (record: VendorRecord, merchants: MerchantDirectory): VendorSummary => ({
  vendor: record.vendor,
  latest_product_update_by_service: record.latestProductUpdate,
  product_count: record.productCount,
  in_affiliate_network: merchants.isMerchant(record.vendor),
});

// Summaries of one vendor list, kept as long as the list itself is (the list cache hands out the
// same frozen array until it reads again, at most VENDOR_LIST_TTL_MS later): no per-request mapping.
const summariesOf = new WeakMap<
  readonly VendorRecord[],
  { merchants: MerchantDirectory; summaries: VendorSummary[] }
>();

export async function listVendorSummaries(store: VendorStore, merchants: MerchantDirectory): Promise<VendorSummary[]> {
  return summariesFor(await store.listAll(), merchants);
}

/**
 * listVendorSummaries' answer without waiting when the store's cache holds the list
 * (peekAll); undefined when it must be read.
 */
export function knownVendorSummaries(store: VendorStore, merchants: MerchantDirectory): VendorSummary[] | undefined {
  const records = store.peekAll?.();
  return records && summariesFor(records, merchants);
}

function summariesFor(records: VendorRecord[], merchants: MerchantDirectory): VendorSummary[] {
  const known = summariesOf.get(records);
  if (known && known.merchants === merchants) return known.summaries;
  const summaries = records.map((record) => toSummary(record, merchants));
  // Only a shared (frozen) list is worth remembering; summaries are frozen as they are shared too.
  if (Object.isFrozen(records))
    summariesOf.set(records, { merchants, summaries: Object.freeze(summaries) as VendorSummary[] });
  return summaries;
}
