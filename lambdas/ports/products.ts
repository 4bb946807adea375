// The latest extracted record per product URL and country.
import type { ProductRecord } from '../domain/extraction/types';

/** Which optional parts the stored record was extracted with. */
export interface ProductFlags {
  enrichment: boolean;
  reviews: boolean;
  image_tags: boolean;
  similar_products: boolean;
}

/**
 * A product serialized once for every write that stores it (an extract batch's record and claim):
 * its JSON, and the stores' packed form of that JSON, made by the first write that needs it and
 * reused by the next, so the same bytes are neither serialized nor compressed twice.
 */
export interface SerializedProduct {
  readonly json: string;
  packed?: Uint8Array;
}

export interface StoredProduct {
  /** Canonical (normalised) product URL: the key together with the country. */
  url: string;
  country: string;
  /** Vendor key (hostname without www.), or null when none can be read. */
  vendor: string | null;
  product: ProductRecord;
  /** Written only: the product serialized already (an extract batch's product, shared with its claim). */
  serialized?: SerializedProduct;
  flags: ProductFlags;
  /** When the service stored this record (ISO, Z). */
  updated_at: string;
}

export interface ProductStore {
  /** Replaces the record for url+country; firstSeen is true only the first time the URL is stored in any country. */
  put(record: StoredProduct): Promise<{ firstSeen: boolean }>;
  get(url: string, country: string): Promise<StoredProduct | null>;
  /** Most recently updated first; optionally one vendor and/or updated at or after `updatedSince`. */
  listUpdated(query: {
    vendor?: string;
    updatedSince?: string;
    offset: number;
    limit: number;
  }): Promise<{ items: StoredProduct[]; total: number }>;
}

/** A stored product of an extract batch as its batch claim keeps it (see BatchClaim.products). */
export interface ClaimedProduct {
  url: string;
  vendor: string | null;
  /** The record's updated_at; also the first-seen instant of a new product. */
  at: string;
  /** No first-seen mark when the batch was read: counted for its vendor once the claim holds. */
  isNew: boolean;
}

/**
 * A product store that also writes many records at once (the DynamoDB adapter): one round trip
 * per 25 records instead of one each, for the extract worker's batches.
 */
export interface BatchProductStore extends ProductStore {
  /** put() for each record; firstSeen in the same order (a URL listed twice is new at most once). */
  putAll(records: StoredProduct[]): Promise<Array<{ firstSeen: boolean }>>;
  /** Writes the records only (no first-seen marks): one batch write per 25. */
  putRecords(records: StoredProduct[]): Promise<void>;
  /** The URLs (of these) that have a first-seen mark: one BatchGet per 100. */
  seenBefore(urls: readonly string[]): Promise<Set<string>>;
  /**
   * Writes first-seen marks without a condition (batch writes of 25): the caller decided these
   * URLs are new (an extract batch's claim). Writing the same mark again changes nothing read.
   */
  markFirstSeen(marks: ReadonlyArray<{ url: string; at: string }>): Promise<void>;
}
