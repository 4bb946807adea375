// Account use-cases: authenticate a presented key, create/list/revoke keys, bootstrap.
import type { AccountStore } from '../../ports/accounts';
import type { Scope } from '../../topology/routes';
import {
  ALL_SCOPES,
  checkKey,
  checkOrgName,
  generateKey,
  generateKeyId,
  hashKey,
  parseBootstrapSpec,
  type ApiKeyRecord,
} from './keys';

export interface Principal {
  org: string;
  keyId: string;
  scopes: Scope[];
}

/** Keys found valid here, remembered with their hash; past this many the memo starts again. */
const KNOWN_HASHES_MAX = 1_000;
// The SHA-256 of a key in steady use is computed once, not per call. Only keys the store just
// called valid go in (a flood of made-up keys cannot fill it); one found unknown or revoked leaves
// it. The memo changes nothing about validity: every call still asks the store (and its cache).
const knownHashes = new Map<string, string>();

// One principal per key record (records are shared by the key cache for its period), not one per call.
const principals = new WeakMap<ApiKeyRecord, Principal>();

function principalOf(record: ApiKeyRecord): Principal {
  let principal = principals.get(record);
  if (!principal) principals.set(record, (principal = { org: record.org, keyId: record.keyId, scopes: record.scopes }));
  return principal;
}

/** The store's answer for a key as authenticateKey gives it. */
function judged(presented: string, keyHash: string, known: boolean, record: ApiKeyRecord | null): Principal | null {
  if (!record || record.revokedAt) {
    if (known) knownHashes.delete(presented);
    return null;
  }
  if (!known) {
    if (knownHashes.size >= KNOWN_HASHES_MAX) knownHashes.clear();
    knownHashes.set(presented, keyHash);
  }
  return principalOf(record);
}

export async function authenticateKey(store: AccountStore, presented: string): Promise<Principal | null> {
  if (!presented) return null;
  const known = knownHashes.get(presented);
  const keyHash = known ?? hashKey(presented);
  return judged(presented, keyHash, known !== undefined, await store.findKeyByHash(keyHash));
}

/**
 * authenticateKey's answer without waiting, for a key in steady use: when its hash is remembered
 * and the store's cache holds it (peekKeyByHash); undefined when authenticateKey must run.
 */
export function knownPrincipal(store: AccountStore, presented: string): Principal | null | undefined {
  const keyHash = knownHashes.get(presented);
  if (keyHash === undefined || !store.peekKeyByHash) return undefined;
  const record = store.peekKeyByHash(keyHash);
  return record === undefined ? undefined : judged(presented, keyHash, true, record);
}

export interface CreatedKey {
  key: string;
  keyId: string;
  org: string;
  scopes: Scope[];
}

/** Creates a key for `org` (creating the organization if needed). `key` lets callers choose it. */
export async function createKey(
  store: AccountStore,
  input: { org: string; scopes?: Scope[]; key?: string },
  now: Date = new Date(),
): Promise<CreatedKey & { created: boolean }> {
  const orgProblem = checkOrgName(input.org);
  if (orgProblem) throw new Error(orgProblem);
  const key = input.key ?? generateKey();
  const keyProblem = checkKey(key);
  if (keyProblem) throw new Error(keyProblem);
  const scopes = input.scopes?.length ? input.scopes : [...ALL_SCOPES];
  const at = now.toISOString();
  await store.ensureOrganization(input.org, at);
  const record: ApiKeyRecord = { keyId: generateKeyId(), keyHash: hashKey(key), org: input.org, scopes, createdAt: at };
  const created = await store.putKey(record);
  if (!created) {
    const existing = await store.findKeyByHash(record.keyHash);
    if (existing && existing.org !== input.org) {
      throw new Error(`that key already belongs to another organization (${existing.org})`);
    }
    return {
      key,
      keyId: existing?.keyId ?? record.keyId,
      org: input.org,
      scopes: existing?.scopes ?? scopes,
      created: false,
    };
  }
  return { key, keyId: record.keyId, org: input.org, scopes, created: true };
}

/** Creates the keys of PDS_BOOTSTRAP_KEYS; running it again changes nothing. */
export async function bootstrapKeys(
  store: AccountStore,
  spec: string | undefined,
  now: Date = new Date(),
): Promise<CreatedKey[]> {
  const entries = parseBootstrapSpec(spec);
  const results: CreatedKey[] = [];
  for (const entry of entries) {
    const { created: _created, ...result } = await createKey(store, entry, now);
    results.push(result);
  }
  return results;
}

export const DEVELOPMENT_ORG = 'local-dev';

/**
 * The first start without bootstrap keys mints one development key and returns it (to print);
 * every later call returns null, because the claim is persisted before the key is stored.
 */
export async function ensureDevelopmentKey(store: AccountStore, now: Date = new Date()): Promise<CreatedKey | null> {
  const keyId = generateKeyId();
  const claimed = await store.claimDevelopmentKey(keyId, now.toISOString());
  if (!claimed) return null;
  const key = generateKey();
  const at = now.toISOString();
  await store.ensureOrganization(DEVELOPMENT_ORG, at);
  const scopes = [...ALL_SCOPES];
  await store.putKey({ keyId, keyHash: hashKey(key), org: DEVELOPMENT_ORG, scopes, createdAt: at });
  return { key, keyId, org: DEVELOPMENT_ORG, scopes };
}
