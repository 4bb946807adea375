// Change-feed subscriptions in the single table (SCHEMA.changeSubscription): one item per
// subscription under its organization, in the gsi1 CHANGESUBS list for dispatch; the cursor and
// the delivery in flight move by conditional Update, so two dispatches never send one page twice.
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { ChangeSubscription, ChangeSubscriptionStore } from '../../ports/changes';
import { deadline, isConditionalFailure, storeFailure } from './keys';
import { SCHEMA } from './schema';

const FIELDS = [
  'id',
  'org',
  'url',
  'events',
  'vendors',
  'types',
  'created_at',
  'cursor',
  'in_flight',
  'in_flight_body',
] as const;
const pick = (item: Record<string, unknown>) =>
  Object.fromEntries(FIELDS.map((field) => [field, item[field] ?? null])) as unknown as ChangeSubscription;

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw storeFailure(error);
  }
}

export function dynamoChangeSubscriptions(
  documents: DynamoDBDocumentClient,
  tableName: string,
): ChangeSubscriptionStore {
  const key = (org: string, id: string) => SCHEMA.changeSubscription.key({ org, id });

  async function query(input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>, limit: number) {
    const found: ChangeSubscription[] = [];
    let start: Record<string, unknown> | undefined;
    for (let page = 0; page < 20 && found.length < limit; page++) {
      const out = await guarded(() =>
        documents.send(new QueryCommand({ TableName: tableName, ...input, ExclusiveStartKey: start }), deadline()),
      );
      for (const item of out.Items ?? []) found.push(pick(item));
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return found.slice(0, limit);
  }

  return {
    async create(subscription) {
      await guarded(() =>
        documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...key(subscription.org, subscription.id),
              ...SCHEMA.changeSubscription.gsi1.keys({ id: subscription.id }),
              entity: SCHEMA.changeSubscription.entity,
              ...subscription,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
          deadline(),
        ),
      );
    },

    async get(org, id) {
      const out = await guarded(() =>
        documents.send(new GetCommand({ TableName: tableName, Key: key(org, id), ConsistentRead: true }), deadline()),
      );
      return out.Item ? pick(out.Item) : null;
    },

    list: (org) =>
      query(
        {
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': SCHEMA.changeSubscription.pk({ org }),
            ':prefix': SCHEMA.changeSubscription.skPrefix,
          },
          ConsistentRead: true,
        },
        1_000,
      ),

    all: (limit) =>
      query(
        {
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': SCHEMA.changeSubscription.gsi1.pk({}) },
        },
        limit,
      ),

    async delete(org, id) {
      try {
        await documents.send(
          new DeleteCommand({ TableName: tableName, Key: key(org, id), ConditionExpression: 'attribute_exists(pk)' }),
          deadline(),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw storeFailure(error);
      }
    },

    async advance(org, id, fromCursor, cursor, inFlight) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(org, id),
            UpdateExpression: inFlight
              ? 'SET #cursor = :cursor, in_flight = :inFlight, in_flight_body = :body'
              : 'SET #cursor = :cursor',
            ConditionExpression:
              fromCursor === null
                ? 'attribute_exists(pk) AND (attribute_not_exists(#cursor) OR #cursor = :null)'
                : 'attribute_exists(pk) AND #cursor = :from',
            ExpressionAttributeNames: { '#cursor': 'cursor' },
            ExpressionAttributeValues: {
              ':cursor': cursor,
              ...(inFlight ? { ':inFlight': inFlight.id, ':body': inFlight.body } : {}),
              ...(fromCursor === null ? { ':null': null } : { ':from': fromCursor }),
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
  };
}
