// GCRA token bucket (see domain/ratelimit/policy.ts) with single-item conditional updates: no
// read-modify-write window, so concurrent Lambdas can never admit more than the bucket allows.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateLimitStore } from '../../ports/ratelimit';
import { admitUntil, emissionIntervalMs, refusal } from '../../domain/ratelimit/policy';
import { deadline, isConditionalFailure, rateItem } from './keys';

/** Races between the two updates resolve within a couple of rounds; beyond that, refuse. */
const MAX_ROUNDS = 4;

/** Buckets remembered as busy (last call advanced TAT), to try the likely update first. */
const BUSY_HINTS_MAX = 10_000;

export function dynamoRateLimitStore(documents: DynamoDBDocumentClient, tableName: string): RateLimitStore {
  const busy = new Set<string>();
  const tryUpdate = async (input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<boolean> => {
    try {
      await documents.send(new UpdateCommand({ TableName: tableName, ...input }), deadline());
      return true;
    } catch (error) {
      if (isConditionalFailure(error)) return false;
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
      const remember = (isBusy: boolean) => {
        if (!isBusy) busy.delete(bucketId);
        else if (busy.size < BUSY_HINTS_MAX) busy.add(bucketId);
      };
      for (let round = 0; round < MAX_ROUNDS; round++) {
        // A retry happens later than the first try: move the caller's clock on by the time spent.
        nowMs = startMs + (Date.now() - begun);
        limit = admitUntil(policy, nowMs);
        // The order only saves a write: whichever condition holds, exactly one of them can match.
        const busyFirst = busy.has(bucketId);
        if (await (busyFirst ? advance() : restart())) {
          remember(busyFirst);
          return { allowed: true, retryAfterSeconds: 0 };
        }
        if (await (busyFirst ? restart() : advance())) {
          remember(!busyFirst);
          return { allowed: true, retryAfterSeconds: 0 };
        }
        // Neither matched: either the bucket is full, or another caller moved TAT between the two.
        const current = await documents.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }), deadline());
        const tat = Number(current.Item?.tat);
        if (Number.isFinite(tat) && tat > limit) {
          remember(true);
          return refusal(policy, tat, nowMs);
        }
      }
      return { allowed: false, retryAfterSeconds: 1 };
    },
  };
}
