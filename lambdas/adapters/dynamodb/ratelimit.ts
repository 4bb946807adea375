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
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateLimitStore } from '../../ports/ratelimit';
import { admitUntil, emissionIntervalMs, refusal } from '../../domain/ratelimit/policy';
import { deadline, isConditionalFailure, rateItem } from './keys';

/** Races between the two updates resolve within a couple of rounds; beyond that, refuse. */
const MAX_ROUNDS = 4;

/** Buckets whose last written TAT is remembered (oldest forgotten first). */
const KNOWN_TAT_MAX = 10_000;

export function dynamoRateLimitStore(documents: DynamoDBDocumentClient, tableName: string): RateLimitStore {
  const knownTat = new Map<string, number>();
  const learn = (bucketId: string, tat: number) => {
    if (!Number.isFinite(tat) || tat <= (knownTat.get(bucketId) ?? -Infinity)) return;
    knownTat.delete(bucketId);
    if (knownTat.size >= KNOWN_TAT_MAX) knownTat.delete(knownTat.keys().next().value!);
    knownTat.set(bucketId, tat);
  };

  /** The TAT written, or null when the condition did not hold. */
  const tryUpdate = async (input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<number | null> => {
    try {
      const out = await documents.send(new UpdateCommand({ TableName: tableName, ...input, ReturnValues: 'UPDATED_NEW' }), deadline());
      return Number(out.Attributes?.tat);
    } catch (error) {
      if (isConditionalFailure(error)) return null;
      throw error;
    }
  };

  return {
    async take(bucketId, policy, startMs) {
      const interval = emissionIntervalMs(policy);
      const key = rateItem(bucketId);
      const begun = Date.now();
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
        nowMs = startMs + (Date.now() - begun);
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
        const current = await documents.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }), deadline());
        const tat = Number(current.Item?.tat);
        if (Number.isFinite(tat)) learn(bucketId, tat);
        if (Number.isFinite(tat) && tat > limit) return refusal(policy, tat, nowMs);
      }
      return { allowed: false, retryAfterSeconds: 1 };
    },
  };
}
