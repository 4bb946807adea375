import type { RateDecision, RateLimitPolicy } from '../domain/ratelimit/policy';

export interface RateLimitStore {
  /** Takes one token from the bucket `bucketId` at `nowMs`, atomically. */
  take(bucketId: string, policy: RateLimitPolicy, nowMs: number): Promise<RateDecision>;
}
