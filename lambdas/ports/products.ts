// The latest extracted record per product URL and country.
import type { ProductRecord } from '../domain/extraction/types';

/** Which optional parts the stored record was extracted with. */
export interface ProductFlags {
  enrichment: boolean;
  reviews: boolean;
  image_tags: boolean;
  similar_products: boolean;
}

export interface StoredProduct {
  /** Canonical (normalised) product URL: the key together with the country. */
  url: string;
  country: string;
  /** Vendor key (hostname without www.), or null when none can be read. */
  vendor: string | null;
  product: ProductRecord;
  flags: ProductFlags;
  /** When the service stored this record (ISO, Z). */
  updated_at: string;
}

export interface ProductStore {
  /** Replaces the record for url+country; firstSeen is true only the first time the URL is stored in any country. */
  put(record: StoredProduct): Promise<{ firstSeen: boolean }>;
  get(url: string, country: string): Promise<StoredProduct | null>;
  /** Most recently updated first; optionally one vendor and/or updated at or after `updatedSince`. */
  listUpdated(query: { vendor?: string; updatedSince?: string; offset: number; limit: number }): Promise<{ items: StoredProduct[]; total: number }>;
}
