// Vendor summaries: one per store (vendor key = lower-case hostname without "www."), kept up to
// date by the extraction jobs through recordProductSeen.
export interface VendorRecord {
  vendor: string;
  displayName: string;
  productCount: number;
  /** ISO timestamp of the newest product update seen; max over all calls. */
  latestProductUpdate: string;
}

export interface VendorSummary {
  vendor: string;
  latest_product_update_by_service: string;
  product_count: number;
  in_affiliate_network: boolean;
}

export interface ProductSeen {
  /** Vendor key: hostname without www. */
  vendor: string;
  displayName?: string;
  /** True only the first time this product is stored: only then product_count grows. */
  newProduct: boolean;
  updatedAt: string | Date;
}

/** Products of one vendor stored together (an extraction batch). */
export interface ProductsSeen {
  vendor: string;
  displayName?: string;
  /** How many of them were stored for the first time: product_count grows by this. */
  newProducts: number;
  /** The newest of their update instants. */
  updatedAt: string | Date;
}
