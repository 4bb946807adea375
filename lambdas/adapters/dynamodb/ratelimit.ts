// GCRA token bucket (see domain/ratelimit/policy.ts) with single-item conditional updates: no
// read-modify-write window, so concurrent Lambdas can never admit more than the bucket allows.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateLimitStore } from '../../ports/ratelimit';
import { admitUntil, emissionIntervalMs, refusal } from '../../domain/ratelimit/policy';
import { deadline, isConditionalFailure, rateItem } from './keys';

/** Races between the two updates resolve within a couple of rounds; beyond that, refuse. */
const MAX_ROUNDS = 4;

export function dynamoRateLimitStore(documents: DynamoDBDocumentClient, tableName: string): RateLimitStore {
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
    async take(bucketId, policy, nowMs) {
      const interval = emissionIntervalMs(policy);
      const limit = admitUntil(policy, nowMs);
      const key = rateItem(bucketId);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        // Busy bucket with room left: push TAT one interval further.
        const advanced = await tryUpdate({
          Key: key,
          UpdateExpression: 'SET tat = tat + :interval',
          ConditionExpression: 'tat > :now AND tat <= :limit',
          ExpressionAttributeValues: { ':interval': interval, ':now': nowMs, ':limit': limit },
        });
        if (advanced) return { allowed: true, retryAfterSeconds: 0 };
        // Idle (or new) bucket: TAT restarts from now.
        const restarted = await tryUpdate({
          Key: key,
          UpdateExpression: 'SET tat = :fresh',
          ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
          ExpressionAttributeValues: { ':fresh': nowMs + interval, ':now': nowMs },
        });
        if (restarted) return { allowed: true, retryAfterSeconds: 0 };
        // Neither matched: either the bucket is full, or another caller moved TAT between the two.
        const current = await documents.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }), deadline());
        const tat = Number(current.Item?.tat);
        if (Number.isFinite(tat) && tat > limit) return refusal(policy, tat, nowMs);
      }
      return { allowed: false, retryAfterSeconds: 1 };
    },
  };
}
