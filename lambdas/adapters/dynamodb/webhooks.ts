// Webhook subscriptions, delivery logs and organization secrets in the single table
// (SCHEMA.webhookSubscription, webhookDelivery, webhookSecret). Every write that decides
// "once" is conditional; failures reach callers as DB_TIMEOUT / DB_ERROR (storeFailure).
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { WebhookSecret, WebhookStore } from '../../ports/webhooks';
import type { DeliveryRecord, WebhookSubscription } from '../../domain/webhooks/model';
import { createHash } from 'node:crypto';
import { SCHEMA, WEBHOOK_UNSETTLED_SHARDS } from './schema';
import { deadline, isConditionalFailure, storeFailure } from './keys';
import { TABLE } from '../../topology/table';

const subscriptionKey = (executionId: string) => SCHEMA.webhookSubscription.key({ executionId });
const deliveryKey = (executionId: string, deliveryId: string) =>
  SCHEMA.webhookDelivery.key({ executionId, deliveryId });
const secretKey = (org: string) => SCHEMA.webhookSecret.key({ org });
const shardOf = (deliveryId: string) => createHash('sha256').update(deliveryId).digest()[0] % WEBHOOK_UNSETTLED_SHARDS;
const SETTLED: ReadonlySet<string> = new Set(['delivered', 'failed']);

const SUBSCRIPTION_FIELDS = ['execution_id', 'org', 'url', 'events', 'metadata', 'created_at'] as const;
const DELIVERY_FIELDS = [
  'delivery_id',
  'execution_id',
  'org',
  'event',
  'url',
  'state',
  'created_at',
  'updated_at',
  'next_attempt_at',
  'attempts',
] as const;

function pick<T>(item: Record<string, unknown>, fields: readonly string[]): T {
  return Object.fromEntries(fields.map((field) => [field, item[field] ?? null])) as T;
}

export function dynamoWebhookStore(documents: DynamoDBDocumentClient, tableName: string): WebhookStore {
  async function send<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw storeFailure(error);
    }
  }

  async function readSecret(org: string, consistent: boolean): Promise<WebhookSecret | null> {
    const out = await send(() =>
      documents.send(
        new GetCommand({ TableName: tableName, Key: secretKey(org), ConsistentRead: consistent }),
        deadline(),
      ),
    );
    const item = out.Item;
    return item && typeof item.secret === 'string'
      ? { secret: item.secret, created_at: String(item.created_at) }
      : null;
  }

  const secretItem = (org: string, secret: WebhookSecret) => ({
    ...secretKey(org),
    entity: SCHEMA.webhookSecret.entity,
    org,
    secret: secret.secret,
    created_at: secret.created_at,
  });

  return {
    async putSubscription(subscription: WebhookSubscription) {
      await send(() =>
        documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...subscriptionKey(subscription.execution_id),
              entity: SCHEMA.webhookSubscription.entity,
              ...subscription,
            },
          }),
          deadline(),
        ),
      );
    },

    async getSubscription(executionId) {
      const out = await send(() =>
        documents.send(
          new GetCommand({ TableName: tableName, Key: subscriptionKey(executionId), ConsistentRead: true }),
          deadline(),
        ),
      );
      return out.Item ? pick<WebhookSubscription>(out.Item, SUBSCRIPTION_FIELDS) : null;
    },

    async claimProgressSlot(executionId, nowMs, intervalMs) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: subscriptionKey(executionId),
            UpdateExpression: 'SET last_progress_ms = :now',
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(last_progress_ms) OR last_progress_ms <= :before)',
            ExpressionAttributeValues: { ':now': nowMs, ':before': nowMs - intervalMs },
          }),
          deadline(),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw storeFailure(error);
      }
    },

    async createDelivery(record: DeliveryRecord, body: string) {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...deliveryKey(record.execution_id, record.delivery_id),
              ...SCHEMA.webhookDelivery.gsi2.keys({
                shard: shardOf(record.delivery_id),
                createdAt: record.created_at,
                deliveryId: record.delivery_id,
              }),
              entity: SCHEMA.webhookDelivery.entity,
              ...record,
              body,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
          deadline(),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw storeFailure(error);
      }
    },

    async getDelivery(executionId, deliveryId) {
      const out = await send(() =>
        documents.send(
          new GetCommand({ TableName: tableName, Key: deliveryKey(executionId, deliveryId), ConsistentRead: true }),
          deadline(),
        ),
      );
      return out.Item ? pick<DeliveryRecord>(out.Item, DELIVERY_FIELDS) : null;
    },

    async recordAttempt(executionId, deliveryId, attempt, state, nextAttemptAt) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: deliveryKey(executionId, deliveryId),
            // A settled delivery leaves the unsettled index.
            UpdateExpression: `SET attempts = list_append(attempts, :attempt), #state = :state, updated_at = :at, next_attempt_at = :next${
              SETTLED.has(state) ? ' REMOVE gsi2pk, gsi2sk' : ''
            }`,
            ConditionExpression: 'attribute_exists(pk) AND size(attempts) = :before',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ':attempt': [attempt],
              ':state': state,
              ':at': attempt.at,
              ':next': nextAttemptAt,
              ':before': attempt.attempt - 1,
            },
          }),
          deadline(),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw storeFailure(error);
      }
    },

    async setState(executionId, deliveryId, state, at) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: deliveryKey(executionId, deliveryId),
            UpdateExpression: `SET #state = :state, updated_at = :at, next_attempt_at = :null${
              SETTLED.has(state) ? ' REMOVE gsi2pk, gsi2sk' : ''
            }`,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':state': state, ':at': at, ':null': null },
          }),
          deadline(),
        );
      } catch (error) {
        if (!isConditionalFailure(error)) throw storeFailure(error);
      }
    },

    async listDeliveries(executionId, limit) {
      const records: DeliveryRecord[] = [];
      let start: Record<string, unknown> | undefined;
      // Bounded: at most `limit` records, in pages of the store's own size.
      for (let page = 0; page < 20 && records.length < limit; page++) {
        const out = await send(() =>
          documents.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
              ExpressionAttributeValues: {
                ':pk': SCHEMA.webhookDelivery.pk({ executionId }),
                ':prefix': SCHEMA.webhookDelivery.skPrefix,
              },
              ConsistentRead: true,
              Limit: limit - records.length,
              ExclusiveStartKey: start,
            }),
            deadline(),
          ),
        );
        for (const item of out.Items ?? []) records.push(pick<DeliveryRecord>(item, DELIVERY_FIELDS));
        start = out.LastEvaluatedKey;
        if (!start) break;
      }
      return records;
    },

    async listUnsettled(limit) {
      const found: Array<DeliveryRecord & { body: string }> = [];
      for (let shard = 0; shard < WEBHOOK_UNSETTLED_SHARDS && found.length < limit; shard++) {
        let start: Record<string, unknown> | undefined;
        for (let page = 0; page < 20 && found.length < limit; page++) {
          const out = await send(() =>
            documents.send(
              new QueryCommand({
                TableName: tableName,
                IndexName: TABLE.indexes[1].name,
                KeyConditionExpression: 'gsi2pk = :pk',
                ExpressionAttributeValues: { ':pk': SCHEMA.webhookDelivery.gsi2.pk({ shard }) },
                Limit: limit - found.length,
                ExclusiveStartKey: start,
              }),
              deadline(),
            ),
          );
          for (const item of out.Items ?? []) {
            if (typeof item.body !== 'string' || SETTLED.has(String(item.state))) continue;
            found.push({ ...pick<DeliveryRecord>(item, DELIVERY_FIELDS), body: item.body });
          }
          start = out.LastEvaluatedKey;
          if (!start) break;
        }
      }
      return found;
    },

    getSecret: (org) => readSecret(org, true),

    async createSecret(org, secret) {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: secretItem(org, secret),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
          deadline(),
        );
        return secret;
      } catch (error) {
        if (!isConditionalFailure(error)) throw storeFailure(error);
        const stored = await readSecret(org, true);
        if (!stored) throw storeFailure(new Error('webhook secret missing after a conditional failure'));
        return stored;
      }
    },

    async replaceSecret(org, secret) {
      await send(() =>
        documents.send(new PutCommand({ TableName: tableName, Item: secretItem(org, secret) }), deadline()),
      );
      return secret;
    },
  };
}
