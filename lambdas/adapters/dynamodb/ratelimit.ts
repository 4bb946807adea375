// GCRA token bucket (see domain/ratelimit/policy.ts) with single-item conditional updates: no
// read-modify-write window, so concurrent Lambdas can never admit more than the bucket allows.
//
// Fast paths, both only ever stricter than the table:
// - Each update returns the TAT it wrote; the store remembers it per bucket. TAT never moves
//   back (an advance adds an interval; a restart only happens once TAT <= now and sets it past
//   now), so the table's TAT is at least the remembered one. A call that the remembered TAT
//   already refuses is refused without a round trip.
// - The remembered TAT also predicts which of the two updates will match (busy bucket: advance;
//   idle bucket: restart), so an admitted call normally costs exactly one UpdateItem.
// - Group commit: calls on one bucket that arrive while an update for it is in flight wait for
//   it, then try to take all their n tokens in one conditional update. It holds only where n
//   calls one after another at that instant would all be admitted (TAT + (n-1) intervals within
//   the limit), so it never admits more than single takes would; when it does not hold, each
//   call takes its own token as before.
// - Leases (fast buckets only): a group of n >= 2 calls that found the bucket busy takes n more
//   tokens in the same update (a lone call with no lease takes one more), valid for the bucket's lease time (leaseMsOf: the time it refills
//   1/16 of its burst, 50 ms to 1 s); the next calls of this process within that
//   time are admitted from them without a round trip; when it runs low (3/4 spent, or 3/4 of
//   its time gone) the next lease is taken in the background, sized by the demand measured, and
//   replaces it, so steady traffic never waits on the table. The lease is booked as if its calls came
//   at the end of its validity (TAT = max(TAT after the n, now + lease time) + leased intervals), so
//   however this process spends it, no other caller can be admitted where the reference model
//   would refuse. The price is on the strict side: what a lease leaves unused, and the booking's
//   lead, are lost to the bucket, so under sustained overload a leasing process is admitted a bit
//   less than the rate (measured: 2055 of the reference model's 2395 calls over 2 s at 4x the
//   rate of a 1000/s bucket; never more). PDS_RATE_LIMIT_LEASES=off restores exact admission.
//   Only where n intervals fit in LEASE_MS
//   (rate >= n / LEASE_MS, e.g. >= 40/s for n = 2) and a lease time of refill is at most a quarter of
//   the burst: other buckets keep the exact per-call path, so their admissions match the
//   reference model call for call.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateLimitStore } from '../../ports/ratelimit';
import {
  admitUntil,
  emissionIntervalMs,
  refusal,
  type RateDecision,
  type RateLimitPolicy,
} from '../../domain/ratelimit/policy';
import { deadline, isConditionalFailure, rateItem } from './keys';

/**
 * A round lost to another caller moving TAT is retried; only a full bucket refuses. Bounded, so
 * a pathological storm still answers (refusing); 4 rounds under-admitted with three clients on a
 * loaded machine.
 */
const MAX_ROUNDS = 12;

/** Buckets whose last written TAT is remembered (oldest forgotten first). */
const KNOWN_TAT_MAX = 10_000;

/**
 * Shortest time leased tokens may be spent (ms after the update that took them); also the
 * eligibility rule: a group of n leases only where n intervals fit in it.
 */
export const LEASE_MS = 50;
/** Longest lease: a bucket with room to spare leases for up to this long. */
export const LEASE_MAX_MS = 1000;
/** A lease lasts as long as the bucket takes to refill this share of its burst (within the bounds above). */
const LEASE_BURST_SHARE = 16;
/**
 * A bucket's last lease sizes the next one taken by a lone call this soon after it ended: traffic
 * that pauses (a client between batches) resumes after one round trip, instead of ramping up
 * again through a single take, a group's small lease and its renewal (three round trips).
 */
const LEASE_MEMORY_MS = 60_000;
/** Most tokens one lease takes (and never more than a quarter of the burst). */
const LEASE_MAX = 8192;

/**
 * How long a lease of `policy` lasts: the time to refill 1/16 of its burst, between LEASE_MS and
 * LEASE_MAX_MS. A bucket close to its limit (400 burst at 1000/s) keeps 50 ms leases; one with
 * room to spare (the bench's 1,000,000/s) leases for a second, so a lease's renewal, taken in the
 * background a quarter of its life before it ends, arrives long before it runs out even when the
 * table answers slowly (tens of ms on a loaded machine): no call waits for the table.
 */
export const leaseMsOf = (policy: RateLimitPolicy): number =>
  Math.min(
    LEASE_MAX_MS,
    Math.max(LEASE_MS, Math.floor((policy.burst / LEASE_BURST_SHARE) * emissionIntervalMs(policy))),
  );

/** An admission (shared: decisions are only read). */
const ADMITTED: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

interface Waiter {
  resolve(decision: RateDecision): void;
  reject(error: unknown): void;
  /** The caller's clock at the call: a call is judged at its arrival, waiting does not age it. */
  startMs: number;
}

export function dynamoRateLimitStore(
  documents: DynamoDBDocumentClient,
  tableName: string,
  options: {
    leases?: boolean;
    /** Measures the time a call spends retrying (its judged instant moves on by it); tests freeze it. */
    elapsedClock?: () => number;
  } = {},
): RateLimitStore {
  const leasing = options.leases ?? true;
  const elapsedClock = options.elapsedClock ?? Date.now;
  const knownTat = new Map<string, number>();
  const learn = (bucketId: string, tat: number) => {
    if (!Number.isFinite(tat) || tat <= (knownTat.get(bucketId) ?? -Infinity)) return;
    knownTat.delete(bucketId);
    if (knownTat.size >= KNOWN_TAT_MAX) knownTat.delete(knownTat.keys().next().value!);
    knownTat.set(bucketId, tat);
  };

  /** The TAT written, or null when the condition did not hold. */
  const tryUpdate = async (
    input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>,
  ): Promise<number | null> => {
    try {
      const out = await documents.send(
        new UpdateCommand({ TableName: tableName, ...input, ReturnValues: 'UPDATED_NEW' }),
        deadline(),
      );
      return Number(out.Attributes?.tat);
    } catch (error) {
      if (isConditionalFailure(error)) return null;
      throw error;
    }
  };

  /** n tokens in one update at `nowMs`, all or none; false when they do not all fit (or a race). */
  const takeMany = async (bucketId: string, policy: RateLimitPolicy, n: number, nowMs: number): Promise<boolean> => {
    if (n > policy.burst) return false;
    const interval = emissionIntervalMs(policy);
    const key = rateItem(bucketId);
    // The last of the n calls must still find TAT within the limit.
    const lastLimit = admitUntil(policy, nowMs) - (n - 1) * interval;
    const known = knownTat.get(bucketId);
    if (known !== undefined && known > lastLimit) return false;
    const advance = () =>
      tryUpdate({
        Key: key,
        UpdateExpression: 'SET tat = tat + :step',
        ConditionExpression: 'tat > :now AND tat <= :limit',
        ExpressionAttributeValues: { ':step': n * interval, ':now': nowMs, ':limit': lastLimit },
      });
    const restart = () =>
      tryUpdate({
        Key: key,
        UpdateExpression: 'SET tat = :fresh',
        ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
        ExpressionAttributeValues: { ':fresh': nowMs + n * interval, ':now': nowMs },
      });
    const busyFirst = known !== undefined && known > nowMs;
    const written = (await (busyFirst ? advance() : restart())) ?? (await (busyFirst ? restart() : advance()));
    if (written === null) return false;
    learn(bucketId, written);
    return true;
  };

  // Per bucket and policy: the calls waiting while an update is in flight (absent: none in flight).
  const groups = new Map<string, Waiter[]>();
  // Per bucket and policy: tokens already taken from the table, spendable until `until` (caller's
  // clock); `spent` and `since` measure the demand for the next lease.
  const leases = new Map<
    string,
    { tokens: number; until: number; size: number; spent: number; since: number; renewing: boolean }
  >();

  /**
   * n tokens for the waiting calls plus `extra` leased ones, in one update at `nowMs`; false when
   * they do not all fit (or a race). Requires n intervals <= LEASE_MS (see the header).
   */
  const takeWithLease = async (
    bucketId: string,
    policy: RateLimitPolicy,
    n: number,
    extra: number,
    nowMs: number,
  ): Promise<boolean> => {
    const interval = emissionIntervalMs(policy);
    const key = rateItem(bucketId);
    const lastLimit = admitUntil(policy, nowMs) - (n + extra - 1) * interval;
    const known = knownTat.get(bucketId);
    if (known !== undefined && known > lastLimit) return false;
    // Busy for the whole lease after the n: TAT only moves on. Otherwise TAT restarts from the
    // lease's end (the n fit before it, as n intervals <= LEASE_MS).
    const leaseMs = leaseMsOf(policy);
    const busyFrom = nowMs + leaseMs - n * interval;
    const advance = () =>
      tryUpdate({
        Key: key,
        UpdateExpression: 'SET tat = tat + :step',
        ConditionExpression: 'tat > :now AND tat >= :busyFrom AND tat <= :limit',
        ExpressionAttributeValues: {
          ':step': (n + extra) * interval,
          ':now': nowMs,
          ':busyFrom': busyFrom,
          ':limit': lastLimit,
        },
      });
    const restart = () =>
      tryUpdate({
        Key: key,
        UpdateExpression: 'SET tat = :fresh',
        ConditionExpression: 'attribute_not_exists(tat) OR ((tat < :busyFrom OR tat <= :now) AND tat <= :limit)',
        ExpressionAttributeValues: {
          ':fresh': nowMs + leaseMs + extra * interval,
          ':now': nowMs,
          ':busyFrom': busyFrom,
          ':limit': lastLimit,
        },
      });
    const busyFirst = known !== undefined && known >= busyFrom && known > nowMs;
    const written = (await (busyFirst ? advance() : restart())) ?? (await (busyFirst ? restart() : advance()));
    if (written === null) return false;
    learn(bucketId, written);
    return true;
  };

  /**
   * How many tokens a group of n may lease (0: none). Slow buckets never lease, nor buckets whose
   * refill during a lease is more than a quarter of their burst (the booking would cost too much).
   */
  const leaseSize = (policy: RateLimitPolicy, n: number, want = n): number => {
    if (!leasing || n * emissionIntervalMs(policy) > LEASE_MS || emissionIntervalMs(policy) > LEASE_MS) return 0;
    if ((leaseMsOf(policy) / 1000) * policy.ratePerSecond > policy.burst / 4) return 0;
    return Math.max(0, Math.min(want, LEASE_MAX, Math.floor((policy.burst - n) / 4)));
  };

  /**
   * A new lease replaces what is left of the previous one: the previous lease's tokens are only
   * ever spent before this one is booked, which the booking (from max(TAT, now + LEASE_MS)) covers.
   */
  const grant = (group: string, tokens: number, until: number, now: number) => {
    const state = leases.get(group);
    if (state) Object.assign(state, { tokens, until, size: tokens });
    else {
      if (leases.size >= KNOWN_TAT_MAX) leases.delete(leases.keys().next().value!);
      leases.set(group, { tokens, until, size: tokens, spent: 0, since: now, renewing: false });
    }
  };

  /** Spends a leased token at `startMs` if one is left; renews ahead when the lease runs low. */
  const spend = (group: string, bucketId: string, policy: RateLimitPolicy, startMs: number): boolean => {
    const state = leases.get(group);
    if (!state) return false;
    // A spent or expired lease stays as the bucket's demand record (see runGroup).
    if (state.tokens === 0 || startMs > state.until) return false;
    state.tokens--;
    state.spent++;
    const leaseMs = leaseMsOf(policy);
    if (!state.renewing && (state.tokens * 4 <= state.size || startMs >= state.until - leaseMs / 4)) {
      // The next lease is taken before this one runs out, sized by the demand since the last one.
      const elapsed = startMs - state.since;
      const want = elapsed > 0 ? Math.ceil(((state.spent * leaseMs) / elapsed) * 1.5) : state.size * 2;
      const size = leaseSize(policy, 0, Math.max(2, want));
      state.spent = 0;
      state.since = startMs;
      if (size > 0) {
        state.renewing = true;
        takeWithLease(bucketId, policy, 0, size, startMs)
          .then((ok) => (ok ? grant(group, size, startMs + leaseMs, startMs) : undefined))
          .catch(() => undefined) // a failed renewal only means the next calls ask the table
          .finally(() => {
            state.renewing = false;
          });
      }
    }
    return true;
  };

  const runGroup = async (group: string, bucketId: string, policy: RateLimitPolicy, first: Waiter) => {
    const settle = (waiter: Waiter) => takeOne(bucketId, policy, waiter.startMs).then(waiter.resolve, waiter.reject);
    const admitted: RateDecision = { allowed: true, retryAfterSeconds: 0 };
    // A bucket whose lease ran out moments ago: its first call takes the next lease (sized as the
    // last one) in its own update, so the calls queued behind it need no second round trip.
    // A lone call on a bucket fast enough for group leases takes one token ahead: its next call
    // spends it and renews, sized by the demand measured, so one-at-a-time callers stop waiting
    // for the table after their second call too.
    const recent = leases.get(group);
    const extra =
      recent && first.startMs - recent.until <= LEASE_MEMORY_MS
        ? leaseSize(policy, 1, recent.size)
        : leaseSize(policy, 2) > 0
          ? leaseSize(policy, 1, 1)
          : 0;
    if (extra > 0) {
      try {
        if (await takeWithLease(bucketId, policy, 1, extra, first.startMs)) {
          grant(group, extra, first.startMs + leaseMsOf(policy), first.startMs);
          first.resolve(admitted);
        } else await settle(first);
      } catch (error) {
        first.reject(error);
      }
    } else await settle(first);
    // Bounded: every pass settles the calls that were waiting; new ones only come from callers.
    for (let waiting = groups.get(group)!.splice(0); waiting.length; waiting = groups.get(group)!.splice(0)) {
      // Calls a lease taken meanwhile covers are admitted from it.
      const batch = waiting.filter((waiter) => {
        if (!spend(group, bucketId, policy, waiter.startMs)) return true;
        waiter.resolve(admitted);
        return false;
      });
      if (!batch.length) continue;
      // Judged as n calls at its latest arrival (it is served no earlier); TAT moves n intervals.
      const nowMs = Math.max(...batch.map((waiter) => waiter.startMs));
      let together = false;
      if (batch.length > 1) {
        try {
          const extra = batch.length > 1 ? leaseSize(policy, batch.length) : 0;
          if (extra > 0 && (await takeWithLease(bucketId, policy, batch.length, extra, nowMs))) {
            together = true;
            grant(group, extra, nowMs + leaseMsOf(policy), nowMs);
          } else together = await takeMany(bucketId, policy, batch.length, nowMs);
        } catch (error) {
          for (const waiter of batch) waiter.reject(error);
          continue;
        }
      }
      if (together) for (const waiter of batch) waiter.resolve({ allowed: true, retryAfterSeconds: 0 });
      else await Promise.all(batch.map(settle));
    }
    groups.delete(group);
  };

  // The last group's name, so a steady caller does not build the same string per call.
  let lastGroup = { bucketId: '', rate: 0, burst: 0, name: '' };
  const groupOf = (bucketId: string, policy: RateLimitPolicy) => {
    const { ratePerSecond: rate, burst } = policy;
    if (lastGroup.bucketId !== bucketId || lastGroup.rate !== rate || lastGroup.burst !== burst)
      lastGroup = { bucketId, rate, burst, name: `${bucketId}\n${rate}\n${burst}` };
    return lastGroup.name;
  };

  return {
    take(bucketId, policy, startMs) {
      const group = groupOf(bucketId, policy);
      // Leased tokens are already booked in the table: spending one needs no round trip.
      if (spend(group, bucketId, policy, startMs)) return ADMITTED;
      const known = knownTat.get(bucketId);
      if (known !== undefined && known > admitUntil(policy, startMs)) return refusal(policy, known, startMs);
      return new Promise<RateDecision>((resolve, reject) => {
        const waiter: Waiter = { resolve, reject, startMs };
        const waiting = groups.get(group);
        if (waiting) {
          waiting.push(waiter);
          return;
        }
        groups.set(group, []);
        void runGroup(group, bucketId, policy, waiter);
      });
    },
  };

  async function takeOne(bucketId: string, policy: RateLimitPolicy, startMs: number): Promise<RateDecision> {
    const interval = emissionIntervalMs(policy);
    const key = rateItem(bucketId);
    const begun = elapsedClock();
    let nowMs = startMs;
    let limit = admitUntil(policy, nowMs);
    // Busy bucket with room left: push TAT one interval further.
    const advance = () =>
      tryUpdate({
        Key: key,
        UpdateExpression: 'SET tat = tat + :interval',
        ConditionExpression: 'tat > :now AND tat <= :limit',
        ExpressionAttributeValues: { ':interval': interval, ':now': nowMs, ':limit': limit },
      });
    // Idle (or new) bucket: TAT restarts from now.
    const restart = () =>
      tryUpdate({
        Key: key,
        UpdateExpression: 'SET tat = :fresh',
        ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
        ExpressionAttributeValues: { ':fresh': nowMs + interval, ':now': nowMs },
      });
    const admitted = (tat: number) => {
      learn(bucketId, tat);
      return { allowed: true, retryAfterSeconds: 0 };
    };
    for (let round = 0; round < MAX_ROUNDS; round++) {
      // A retry happens later than the first try: move the caller's clock on by the time spent.
      nowMs = startMs + (elapsedClock() - begun);
      limit = admitUntil(policy, nowMs);
      const known = knownTat.get(bucketId);
      if (known !== undefined && known > limit) return refusal(policy, known, nowMs);
      // The order only saves a write: whichever condition holds, exactly one of them can match.
      const busyFirst = known !== undefined && known > nowMs;
      const first = await (busyFirst ? advance() : restart());
      if (first !== null) return admitted(first);
      const second = await (busyFirst ? restart() : advance());
      if (second !== null) return admitted(second);
      // Neither matched: either the bucket is full, or another caller moved TAT between the two.
      const current = await documents.send(
        new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
        deadline(),
      );
      const tat = Number(current.Item?.tat);
      if (Number.isFinite(tat)) learn(bucketId, tat);
      if (Number.isFinite(tat) && tat > limit) return refusal(policy, tat, nowMs);
    }
    return { allowed: false, retryAfterSeconds: 1 };
  }
}
