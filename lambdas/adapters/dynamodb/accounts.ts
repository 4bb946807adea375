import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { AccountStore } from '../../ports/accounts';
import type { ApiKeyRecord, Organization } from '../../domain/accounts/keys';
import { SCHEMA } from './schema';
import { API_KEYS_INDEX_PK, deadline, devKeyClaimItem, isConditionalFailure, keyItem, orgItem } from './keys';

const toKey = (item: Record<string, any>): ApiKeyRecord => ({
  keyId: item.keyId,
  keyHash: item.keyHash,
  org: item.org,
  scopes: item.scopes,
  createdAt: item.createdAt,
  ...(item.revokedAt ? { revokedAt: item.revokedAt } : {}),
});

const MAX_PAGES = 1_000;

export function dynamoAccountStore(documents: DynamoDBDocumentClient, tableName: string): AccountStore {
  const queryAll = async (input: ConstructorParameters<typeof QueryCommand>[0]) => {
    const items: Record<string, any>[] = [];
    let start: Record<string, any> | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const out = await documents.send(new QueryCommand({ ...input, ExclusiveStartKey: start }), deadline());
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return items;
  };

  return {
    async findKeyByHash(keyHash) {
      const out = await documents.send(new GetCommand({ TableName: tableName, Key: keyItem(keyHash) }), deadline());
      return out.Item ? toKey(out.Item) : null;
    },

    async putKey(record) {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keyItem(record.keyHash),
              ...record,
              ...SCHEMA.apiKey.gsi1.keys({ org: record.org, createdAt: record.createdAt, keyId: record.keyId }),
              ...SCHEMA.apiKey.gsi2.keys({ keyId: record.keyId }),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw error;
      }
    },

    async listKeys(org) {
      const items = await queryAll({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: org ? 'gsi1pk = :pk AND begins_with(gsi1sk, :org)' : 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': API_KEYS_INDEX_PK, ...(org ? { ':org': `${org}#` } : {}) },
      });
      return items.map(toKey);
    },

    async revokeKey(keyId, at) {
      const found = await queryAll({
        TableName: tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': SCHEMA.apiKey.gsi2.pk({ keyId }) },
      });
      if (!found.length) return null;
      const record = toKey(found[0]);
      const out = await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyItem(record.keyHash),
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ExpressionAttributeValues: { ':at': at },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toKey(out.Attributes ?? { ...record, revokedAt: at });
    },

    async getOrganization(org) {
      const out = await documents.send(new GetCommand({ TableName: tableName, Key: orgItem(org) }), deadline());
      if (!out.Item) return null;
      const organization: Organization = { org: out.Item.org, createdAt: out.Item.createdAt };
      if (out.Item.rateLimit) organization.rateLimit = out.Item.rateLimit;
      return organization;
    },

    async ensureOrganization(org, at) {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...orgItem(org), org, createdAt: at },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (!isConditionalFailure(error)) throw error;
      }
    },

    async setOrganizationRateLimit(org, limit) {
      await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: orgItem(org),
          ...(limit
            ? {
                UpdateExpression: 'SET rateLimit = :limit, org = :org',
                ExpressionAttributeValues: { ':limit': limit, ':org': org },
              }
            : { UpdateExpression: 'REMOVE rateLimit' }),
        }),
      );
    },

    async claimDevelopmentKey(keyId, at) {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...devKeyClaimItem(), keyId, createdAt: at },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw error;
      }
    },
  };
}
