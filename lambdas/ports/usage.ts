export interface UsageStore {
  /** Adds one call for (org, route template) in the hour bucket. */
  increment(org: string, path: string, hourBucket: string): Promise<void>;
  /** Per-bucket rows of `org` from `fromBucket` on (null: all time). */
  read(org: string, fromBucket: string | null): Promise<Array<{ path: string; calls: number }>>;
}
