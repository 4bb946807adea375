import type { ApiKeyRecord, Organization } from '../domain/accounts/keys';

export interface AccountStore {
  /** The key with this hash, revoked or not; null when unknown. */
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /**
   * What findKeyByHash would answer when a cache in front of the store has it now (its
   * refresh-ahead runs as for a hit); undefined when it must be read. Stores without a cache
   * leave it out.
   */
  peekKeyByHash?(keyHash: string): ApiKeyRecord | null | undefined;
  /** Creates the key; false when a key with this hash already exists (idempotent bootstrap). */
  putKey(record: ApiKeyRecord): Promise<boolean>;
  listKeys(org?: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; the revoked record, or null when no key has this id. */
  revokeKey(keyId: string, at: string): Promise<ApiKeyRecord | null>;
  getOrganization(org: string): Promise<Organization | null>;
  /** Creates the organization when missing; never overwrites an existing one. */
  ensureOrganization(org: string, at: string): Promise<void>;
  setOrganizationRateLimit(org: string, limit: Organization['rateLimit'] | null): Promise<void>;
  /**
   * Records the development key's id exactly once; false when one was already recorded (so a
   * second start never mints another).
   */
  claimDevelopmentKey(keyId: string, at: string): Promise<boolean>;
}
