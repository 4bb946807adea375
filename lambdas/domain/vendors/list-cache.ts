// The vendor list, read once per `ttlMs` per process instead of once per call: every vendors
// call (three families, any page) reads the whole list, which is one GSI query of every vendor.
//
// Trade-off: a product stored by another process (an extraction worker Lambda) shows in the
// list up to `ttlMs` later; the GSI the list is read from is eventually consistent anyway.
// Writes through this store clear the cached list at once. Failures are never cached.
// Every caller within one period gets the same frozen array, so what is derived from it (the
// vendor summaries, domain/vendors/service.ts) is computed once per period too.
import type { VendorStore } from '../../ports/vendors';
import type { VendorRecord } from './model';

export const VENDOR_LIST_TTL_MS = 1_000;

export interface VendorListCacheOptions {
  ttlMs?: number;
  /** Clock in ms (tests move it). */
  clock?: () => number;
}

export function withVendorListCache(store: VendorStore, options: VendorListCacheOptions = {}): VendorStore {
  const ttlMs = options.ttlMs ?? VENDOR_LIST_TTL_MS;
  const clock = options.clock ?? Date.now;
  let cached: { records: VendorRecord[]; until: number } | undefined;
  // One read in flight at a time; concurrent calls share it.
  let reading: Promise<VendorRecord[]> | undefined;
  let generation = 0;

  const forget = () => {
    generation++;
    cached = undefined;
    reading = undefined;
  };
  async function writing(write: Promise<void>): Promise<void> {
    try {
      await write;
    } finally {
      // A list read while the write was in flight may predate it.
      forget();
    }
  }

  return {
    async recordProductSeen(event) {
      forget();
      await writing(store.recordProductSeen(event));
    },

    async recordProductsSeen(event) {
      forget();
      await writing(store.recordProductsSeen(event));
    },

    async recordListings(event) {
      forget();
      await writing(store.recordListings(event));
    },

    get: (vendor) => store.get(vendor),

    async listAll() {
      if (cached && cached.until > clock()) return cached.records;
      if (!reading) {
        const startedAt = generation;
        const read = store
          .listAll()
          .then((records) => Object.freeze(records) as VendorRecord[])
          .finally(() => {
            if (reading === read) reading = undefined;
          });
        read.then(
          (records) => {
            if (startedAt === generation) cached = { records, until: clock() + ttlMs };
          },
          () => undefined, // the callers get the failure
        );
        reading = read;
      }
      return await reading;
    },
  };
}
