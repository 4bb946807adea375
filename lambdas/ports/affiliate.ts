// The per-organization affiliate device id: created once, never changed.
export interface AffiliateDeviceStore {
  /** The organization's device id, or null before its first affiliate use. */
  get(org: string): Promise<string | null>;
  /**
   * Stores `deviceId` for `org` unless one exists (a conditional write) and returns the id that
   * is stored afterwards: the new one, or the one a concurrent first call stored before it.
   */
  create(org: string, deviceId: string, at: string): Promise<string>;
}
