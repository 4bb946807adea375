// The vendor list, read once per `ttlMs` per process instead of once per call: every vendors
// call (three families, any page) reads the whole list, which is one GSI query of every vendor.
//
// Trade-off: a product stored by another process (an extraction worker Lambda) shows in the
// list up to `ttlMs` later; the GSI the list is read from is eventually consistent anyway.
// Writes through this store clear the cached list at once. Failures are never cached.
// Every caller within one period gets the same frozen array, so what is derived from it (the
// vendor summaries, domain/vendors/service.ts) is computed once per period too.
// Refresh ahead: a call in the second half of the period starts the next read in the background
// and is answered from the list it has; under steady traffic no call waits for a read. The bound
// holds: a list read at t is served until t + ttlMs at the latest (t: when its read started).
import type { VendorStore } from '../../ports/vendors';
import type { VendorRecord } from './model';

export const VENDOR_LIST_TTL_MS = 1_000;
/**
 * Kept warm: for this long after its last use the list is read again on its own when its
 * refresh is due (every ttlMs / 2), so a caller back after a pause of up to this long does not
 * wait for the read; past it, nothing is read until the next call. The bound is unchanged.
 */
export const VENDOR_LIST_KEEP_WARM_MS = 5_000;

export interface VendorListCacheOptions {
  ttlMs?: number;
  /** See VENDOR_LIST_KEEP_WARM_MS; 0 turns it off. Default: that, or 0 with an injected clock. */
  keepWarmMs?: number;
  /** Clock in ms (tests move it). */
  clock?: () => number;
}

export function withVendorListCache(store: VendorStore, options: VendorListCacheOptions = {}): VendorStore {
  const ttlMs = options.ttlMs ?? VENDOR_LIST_TTL_MS;
  const clock = options.clock ?? Date.now;
  // Timers run on the real clock: with a test's clock, off unless asked for.
  const keepWarmMs = options.keepWarmMs ?? (options.clock ? 0 : VENDOR_LIST_KEEP_WARM_MS);
  let lastUse = Number.NEGATIVE_INFINITY;
  let warming: ReturnType<typeof setTimeout> | undefined;
  let cached: { records: VendorRecord[]; until: number; refreshFrom: number } | undefined;
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
      return fresh() ?? (await read());
    },

    peekAll: () => fresh(),
  };

  /** The cached list while it is fresh (starting the refresh ahead when due), else undefined. */
  function fresh(): VendorRecord[] | undefined {
    const now = clock();
    lastUse = now;
    if (!cached || cached.until <= now) return undefined;
    // A failed refresh is not this caller's: the first caller after expiry reads and sees it.
    if (now >= cached.refreshFrom && !reading) read().catch(() => undefined);
    return cached.records;
  }

  /** Reads again at `refreshFrom` if the list is still in use by then (within keepWarmMs of its last use). */
  function keepWarm(refreshFrom: number): void {
    if (keepWarmMs <= 0 || warming) return;
    warming = setTimeout(
      () => {
        warming = undefined;
        if (clock() - lastUse <= keepWarmMs && !reading) read().catch(() => undefined);
      },
      Math.max(0, refreshFrom - clock()),
    );
    // Never keeps a process alive.
    (warming as { unref?: () => void }).unref?.();
  }

  /** The read in flight, or a new one; remembered (from its start) unless a write came meanwhile. */
  function read(): Promise<VendorRecord[]> {
    if (!reading) {
      const startedAt = generation;
      const began = clock();
      const read = store
        .listAll()
        .then((records) => Object.freeze(records) as VendorRecord[])
        .finally(() => {
          if (reading === read) reading = undefined;
        });
      read.then(
        (records) => {
          if (startedAt !== generation) return;
          cached = { records, until: began + ttlMs, refreshFrom: began + ttlMs / 2 };
          keepWarm(cached.refreshFrom);
        },
        () => undefined, // the callers get the failure
      );
      reading = read;
    }
    return reading;
  }
}
