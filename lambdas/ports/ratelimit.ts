import type { RateDecision, RateLimitPolicy } from '../domain/ratelimit/policy';

export interface RateLimitStore {
  /**
   * Takes one token from the bucket `bucketId` at `nowMs`, atomically. A decision the store can
   * make without the table (a leased token, a bucket known to be full) comes back as a value.
   */
  take(bucketId: string, policy: RateLimitPolicy, nowMs: number): Promise<RateDecision> | RateDecision;
}
