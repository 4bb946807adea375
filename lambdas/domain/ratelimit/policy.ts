// Token bucket per API key, implemented as GCRA (generic cell rate algorithm): the bucket is a
// single number, the "theoretical arrival time" (TAT). Each admitted call pushes TAT forward by
// one emission interval; a call is refused while TAT lies more than (burst - 1) intervals ahead.
// Equivalent to a token bucket of `burst` tokens refilled at `ratePerSecond`, but it needs no
// read-modify-write: the store advances TAT with one conditional update, which stays correct
// across many concurrent Lambdas.
export interface RateLimitPolicy {
  ratePerSecond: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a call would be admitted (>= 1 when refused). */
  retryAfterSeconds: number;
}

export const emissionIntervalMs = (policy: RateLimitPolicy): number => 1000 / policy.ratePerSecond;

/** Latest TAT at which one more call is still admitted. */
export const admitUntil = (policy: RateLimitPolicy, nowMs: number): number =>
  nowMs + (policy.burst - 1) * emissionIntervalMs(policy);

export function refusal(policy: RateLimitPolicy, tat: number, nowMs: number): RateDecision {
  const waitMs = tat - admitUntil(policy, nowMs);
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Pure reference model of the same decision (the store implements it atomically). */
export function decide(
  policy: RateLimitPolicy,
  tat: number | undefined,
  nowMs: number,
): { decision: RateDecision; tat: number } {
  const base = tat === undefined || tat <= nowMs ? nowMs : tat;
  if (base > admitUntil(policy, nowMs)) return { decision: refusal(policy, base, nowMs), tat: base };
  return { decision: { allowed: true, retryAfterSeconds: 0 }, tat: base + emissionIntervalMs(policy) };
}

export function checkPolicy(policy: RateLimitPolicy): string | null {
  if (!(policy.ratePerSecond > 0) || !Number.isFinite(policy.ratePerSecond))
    return 'ratePerSecond must be a positive number';
  if (!(policy.burst >= 1) || !Number.isInteger(policy.burst)) return 'burst must be a positive integer';
  return null;
}
