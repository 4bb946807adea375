// A vendor's stored product records a page at a time, by an opaque cursor, for feeds that must
// cover a whole catalog without holding it.
import type { StoredProduct } from './products';

export interface ProductPages {
  /**
   * Up to `limit` records of the vendor in `country`, least recently updated first, after
   * `cursor` (null: from the start). `cursor` of the answer is null at the end. A record updated
   * while a reader pages moves behind its cursor and is read again, with its new values.
   * An unreadable cursor throws the domain's invalid-parameter error.
   */
  page(query: {
    vendor: string;
    country: string;
    cursor: string | null;
    limit: number;
  }): Promise<{ records: StoredProduct[]; cursor: string | null }>;
}
