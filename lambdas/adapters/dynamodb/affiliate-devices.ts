// The affiliate device id lives on the organization item (SCHEMA.organization): one GetItem to
// read, one conditional update to create, so two first calls at once still agree on one id.
// Failures reach customers as DB_TIMEOUT / DB_ERROR (storeFailure), never the SDK's words.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AffiliateDeviceStore } from '../../ports/affiliate';
import { SCHEMA } from './schema';
import { deadline, isConditionalFailure, storeFailure } from './keys';

export function dynamoAffiliateDeviceStore(documents: DynamoDBDocumentClient, tableName: string): AffiliateDeviceStore {
  const read = async (org: string, consistent: boolean): Promise<string | null> => {
    const command = new GetCommand({
      TableName: tableName,
      Key: SCHEMA.organization.key({ org }),
      ProjectionExpression: 'affiliateDeviceId',
      ConsistentRead: consistent,
    });
    let item: Record<string, unknown> | undefined;
    try {
      item = (await documents.send(command, deadline())).Item;
    } catch (error) {
      throw storeFailure(error);
    }
    const id = item?.affiliateDeviceId;
    return typeof id === 'string' && id ? id : null;
  };

  return {
    get: (org) => read(org, false),
    async create(org, deviceId, at) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: SCHEMA.organization.key({ org }),
            // The organization item normally exists (keys create it); if not, it is completed here.
            UpdateExpression:
              'SET affiliateDeviceId = :id, affiliateDeviceCreatedAt = :at, org = if_not_exists(org, :org), createdAt = if_not_exists(createdAt, :at)',
            ConditionExpression: 'attribute_not_exists(affiliateDeviceId)',
            ExpressionAttributeValues: { ':id': deviceId, ':at': at, ':org': org },
          }),
          deadline(),
        );
        return deviceId;
      } catch (error) {
        if (!isConditionalFailure(error)) throw storeFailure(error);
        // Another call stored one first: that one is the organization's id.
        const stored = await read(org, true);
        if (!stored) throw storeFailure(new Error('affiliate device id missing after a conditional failure'));
        return stored;
      }
    },
  };
}
