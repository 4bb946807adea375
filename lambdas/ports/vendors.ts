import type { ProductSeen, ProductsSeen, VendorRecord } from '../domain/vendors/model';

export interface VendorStore {
  /** Upsert: count +1 when newProduct, latest update = max(stored, updatedAt). */
  recordProductSeen(event: {
    vendor: string;
    displayName?: string;
    newProduct: boolean;
    updatedAt: string;
  }): Promise<void>;
  /** Many products of one vendor in one write: count + newProducts, latest update = max(stored, updatedAt). */
  recordProductsSeen(event: {
    vendor: string;
    displayName?: string;
    newProducts: number;
    updatedAt: string;
  }): Promise<void>;
  /**
   * A crawl's end: the vendor now has `listings` listings (SET, not added: a re-crawl recounts).
   * product_count shows the larger of extracted products and listings, so a product that is
   * both listed and extracted counts once. Latest update = max(stored, updatedAt).
   */
  recordListings(event: { vendor: string; displayName?: string; listings: number; updatedAt: string }): Promise<void>;
  /** Every vendor, ordered by vendor key. */
  listAll(): Promise<VendorRecord[]>;
  /**
   * What listAll would answer when a cache in front of the store has it now (its refresh-ahead
   * runs as for a hit); undefined when it must be read. Stores without a cache leave it out.
   */
  peekAll?(): VendorRecord[] | undefined;
  get(vendor: string): Promise<VendorRecord | null>;
}

export type { ProductSeen, ProductsSeen };
