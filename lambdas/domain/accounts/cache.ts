// A short-lived in-process cache of key lookups in front of an AccountStore, so an authenticated
// call does not read the table for its key every time.
//
// Trade-off (documented for clients): a key revoked from ANOTHER process (the keys CLI, another
// Lambda instance) keeps working here for up to `ttlMs`; a key created elsewhere after it was
// presented unknown is refused for up to `negativeTtlMs`. Writes made through this store
// (putKey, revokeKey) take effect here at once.
// Refresh ahead: a known key presented in the second half of its period is read again in the
// background while the call is answered from the cache, so a key in steady use never waits for a
// read; the bound holds (an entry counts from when its read started).
import type { AccountStore } from '../../ports/accounts';
import type { ApiKeyRecord } from './keys';

/** Revocation made elsewhere takes effect within this time. */
export const KEY_CACHE_TTL_MS = 5_000;
/** Unknown keys are asked again after this time (a key just created elsewhere works by then). */
export const UNKNOWN_KEY_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

export interface KeyCacheOptions {
  ttlMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  /** Clock in ms (tests move it). */
  clock?: () => number;
}

export interface CachedAccountStore extends AccountStore {
  /** Forgets every cached lookup. */
  clearKeyCache(): void;
}

interface Entry {
  record: ApiKeyRecord | null;
  until: number;
  /** From then on a hit starts the next read in the background (known keys only). */
  refreshFrom: number;
}

export function withKeyCache(store: AccountStore, options: KeyCacheOptions = {}): CachedAccountStore {
  const ttlMs = options.ttlMs ?? KEY_CACHE_TTL_MS;
  const negativeTtlMs = options.negativeTtlMs ?? UNKNOWN_KEY_CACHE_TTL_MS;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const clock = options.clock ?? Date.now;
  // Known and unknown keys apart, so a flood of made-up keys cannot push the real ones out.
  const known = new Map<string, Entry>();
  const unknown = new Map<string, Entry>();
  // Lookups in flight: concurrent calls with one key share a single read.
  const reading = new Map<string, Promise<ApiKeyRecord | null>>();
  let generation = 0;

  const remember = (map: Map<string, Entry>, keyHash: string, entry: Entry) => {
    map.delete(keyHash);
    if (map.size >= maxEntries) map.delete(map.keys().next().value!); // oldest first
    map.set(keyHash, entry);
  };
  const forget = (keyHash: string) => {
    generation++;
    known.delete(keyHash);
    unknown.delete(keyHash);
    reading.delete(keyHash);
  };

  return {
    listKeys: (org) => store.listKeys(org),
    getOrganization: (org) => store.getOrganization(org),
    ensureOrganization: (org, at) => store.ensureOrganization(org, at),
    setOrganizationRateLimit: (org, limit) => store.setOrganizationRateLimit(org, limit),
    claimDevelopmentKey: (keyId, at) => store.claimDevelopmentKey(keyId, at),

    findKeyByHash(keyHash) {
      const hit = cached(keyHash);
      if (hit !== undefined) return Promise.resolve(hit);
      return reading.get(keyHash) ?? lookup(keyHash);
    },

    peekKeyByHash: (keyHash) => cached(keyHash),

    async putKey(record) {
      forget(record.keyHash);
      try {
        return await store.putKey(record);
      } finally {
        forget(record.keyHash);
      }
    },

    async revokeKey(keyId, at) {
      const revoked = await store.revokeKey(keyId, at);
      if (revoked) forget(revoked.keyHash);
      return revoked;
    },

    clearKeyCache() {
      generation++;
      known.clear();
      unknown.clear();
      reading.clear();
    },
  };

  /** The cached answer for the key while it is fresh (starting the refresh ahead when due), else undefined. */
  function cached(keyHash: string): ApiKeyRecord | null | undefined {
    const now = clock();
    const hit = known.get(keyHash) ?? unknown.get(keyHash);
    if (!hit || hit.until <= now) return undefined;
    // A failed refresh is not this caller's: the first call after expiry reads and sees it.
    if (now >= hit.refreshFrom && !reading.has(keyHash)) lookup(keyHash).catch(() => undefined);
    return hit.record;
  }

  /** Reads the key (one read per key at a time) and remembers it from the read's start. */
  function lookup(keyHash: string): Promise<ApiKeyRecord | null> {
    const startedAt = generation;
    const began = clock();
    const read = store.findKeyByHash(keyHash).then(
      (record) => {
        if (reading.get(keyHash) === read) reading.delete(keyHash);
        // A write through this store during the read: its result may predate the write.
        if (startedAt === generation) {
          if (record) remember(known, keyHash, { record, until: began + ttlMs, refreshFrom: began + ttlMs / 2 });
          else remember(unknown, keyHash, { record: null, until: began + negativeTtlMs, refreshFrom: Infinity });
        }
        return record;
      },
      (error) => {
        if (reading.get(keyHash) === read) reading.delete(keyHash);
        throw error;
      },
    );
    reading.set(keyHash, read);
    return read;
  }
}
