import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { VendorStore } from '../../ports/vendors';
import type { VendorRecord } from '../../domain/vendors/model';
import { deadline, isConditionalFailure, storeFailure, VENDORS_INDEX_PK, vendorItem } from './keys';

const MAX_PAGES = 1_000;

const toRecord = (item: Record<string, any>): VendorRecord => ({
  vendor: item.vendor,
  displayName: item.displayName ?? item.vendor,
  // Listed (crawls) and extracted products overlap: the larger count holds both without double counting.
  productCount: Math.max(Number(item.productCount ?? 0), Number(item.listingCount ?? 0)),
  latestProductUpdate: item.latestProductUpdate,
});

export function dynamoVendorStore(documents: DynamoDBDocumentClient, tableName: string): VendorStore {
  const recordProductsSeen: VendorStore['recordProductsSeen'] = async ({
    vendor,
    displayName,
    newProducts,
    updatedAt,
  }) => {
    const setName = displayName ? 'displayName = :name' : 'displayName = if_not_exists(displayName, :vendor)';
    const base = {
      TableName: tableName,
      Key: vendorItem(vendor),
      ExpressionAttributeNames: { '#vendor': 'vendor' },
      ExpressionAttributeValues: {
        ':vendor': vendor,
        ':pk': VENDORS_INDEX_PK,
        ':count': newProducts,
        ...(displayName ? { ':name': displayName } : {}),
      },
    };
    const setCommon = `SET #vendor = :vendor, gsi1pk = :pk, gsi1sk = :vendor, ${setName}`;
    // One update when updatedAt is the newest (the usual case); when an older event arrives
    // late, the condition fails and a second update counts it without moving the timestamp back.
    // Either update is one atomic ADD, so concurrent writers never lose a count.
    try {
      await documents.send(
        new UpdateCommand({
          ...base,
          UpdateExpression: `${setCommon}, latestProductUpdate = :at ADD productCount :count`,
          ConditionExpression: 'attribute_not_exists(latestProductUpdate) OR latestProductUpdate < :at',
          ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':at': updatedAt },
        }),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      await documents.send(new UpdateCommand({ ...base, UpdateExpression: `${setCommon} ADD productCount :count` }));
    }
  };

  return {
    async recordProductSeen({ newProduct, ...event }) {
      await recordProductsSeen({ ...event, newProducts: newProduct ? 1 : 0 });
    },

    recordProductsSeen,

    async recordListings({ vendor, displayName, listings, updatedAt }) {
      const values = {
        ':vendor': vendor,
        ':pk': VENDORS_INDEX_PK,
        ':n': listings,
        ':at': updatedAt,
        ...(displayName ? { ':name': displayName } : {}),
      };
      const setName = displayName ? 'displayName = :name' : 'displayName = if_not_exists(displayName, :vendor)';
      const common = {
        TableName: tableName,
        Key: vendorItem(vendor),
        ExpressionAttributeNames: { '#vendor': 'vendor' },
      };
      try {
        await documents.send(
          new UpdateCommand({
            ...common,
            UpdateExpression: `SET #vendor = :vendor, gsi1pk = :pk, gsi1sk = :vendor, ${setName}, listingCount = :n, latestProductUpdate = :at`,
            ConditionExpression: 'attribute_not_exists(latestProductUpdate) OR latestProductUpdate < :at',
            ExpressionAttributeValues: values,
          }),
        );
      } catch (error) {
        if (!isConditionalFailure(error)) throw error;
        const { ':at': _at, ...rest } = values;
        await documents.send(
          new UpdateCommand({
            ...common,
            UpdateExpression: `SET #vendor = :vendor, gsi1pk = :pk, gsi1sk = :vendor, ${setName}, listingCount = :n`,
            ExpressionAttributeValues: rest,
          }),
        );
      }
    },

    async listAll() {
      try {
        const records: VendorRecord[] = [];
        let start: Record<string, any> | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const out = await documents.send(
            new QueryCommand({
              TableName: tableName,
              IndexName: 'gsi1',
              KeyConditionExpression: 'gsi1pk = :pk',
              ExpressionAttributeValues: { ':pk': VENDORS_INDEX_PK },
              ExclusiveStartKey: start,
            }),
            deadline(),
          );
          for (const item of out.Items ?? []) if (item.latestProductUpdate) records.push(toRecord(item));
          start = out.LastEvaluatedKey;
          if (!start) break;
        }
        return records;
      } catch (error) {
        throw storeFailure(error);
      }
    },

    async get(vendor) {
      try {
        const out = await documents.send(new GetCommand({ TableName: tableName, Key: vendorItem(vendor) }), deadline());
        return out.Item?.latestProductUpdate ? toRecord(out.Item) : null;
      } catch (error) {
        throw storeFailure(error);
      }
    },
  };
}
