// Product records in the single table:
//
//   latest record   pk PRODUCT#<sha256(url) 32 hex>  sk COUNTRY#<cc>
//                   gsi1 PRODUCTS#<vendor> / <updated_at>#<hash>#<cc>   (a vendor's feed)
//                   gsi2 PRODUCTS / <updated_at>#<hash>#<cc>            (the all-vendor feed)
//                   record as JSON string `product`, or gzip `product_gz` above 32 KB
//   first-seen mark pk PRODUCT#<hash>  sk FIRST_SEEN   (conditional put: who writes it first
//                   reports newProduct, so a product counts once for its vendor)
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ProductStore, StoredProduct } from '../../ports/products';
import { isConditionalFailure } from './keys';

const INLINE_LIMIT = 32 * 1024;
const MAX_FEED_ITEMS = 20_000;

const hashOf = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);
const recordKey = (url: string, country: string) => ({ pk: `PRODUCT#${hashOf(url)}`, sk: `COUNTRY#${country.toLowerCase()}` });

function fromItem(item: Record<string, any>): StoredProduct {
  const json = typeof item.product === 'string' ? item.product : gunzipSync(Buffer.from(item.product_gz)).toString('utf8');
  return { url: item.url, country: item.country, vendor: item.vendor ?? null, product: JSON.parse(json), flags: item.flags, updated_at: item.updated_at };
}

export function dynamoProductStore(documents: DynamoDBDocumentClient, tableName: string): ProductStore {
  return {
    async put(record) {
      const json = JSON.stringify(record.product);
      const key = recordKey(record.url, record.country);
      const order = `${record.updated_at}#${hashOf(record.url)}#${record.country}`;
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...key,
            entity: 'product',
            url: record.url,
            country: record.country,
            vendor: record.vendor,
            flags: record.flags,
            updated_at: record.updated_at,
            ...(json.length > INLINE_LIMIT ? { product_gz: gzipSync(json) } : { product: json }),
            ...(record.vendor ? { gsi1pk: `PRODUCTS#${record.vendor}`, gsi1sk: order } : {}),
            gsi2pk: 'PRODUCTS',
            gsi2sk: order,
          },
        }),
      );
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: key.pk, sk: 'FIRST_SEEN', url: record.url, first_seen_at: record.updated_at },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { firstSeen: true };
      } catch (error) {
        if (isConditionalFailure(error)) return { firstSeen: false };
        throw error;
      }
    },

    async get(url, country) {
      const out = await documents.send(new GetCommand({ TableName: tableName, Key: recordKey(url, country) }));
      return out.Item ? fromItem(out.Item) : null;
    },

    async listUpdated({ vendor, updatedSince, offset, limit }) {
      const index = vendor ? 'gsi1' : 'gsi2';
      const values: Record<string, string> = { ':pk': vendor ? `PRODUCTS#${vendor}` : 'PRODUCTS' };
      let condition = `${index}pk = :pk`;
      if (updatedSince) {
        values[':since'] = updatedSince;
        condition += ` AND ${index}sk >= :since`;
      }
      const keys: Array<Record<string, string>> = [];
      let total = 0;
      let start: Record<string, any> | undefined;
      for (let page = 0; page < 1_000 && total < MAX_FEED_ITEMS; page++) {
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: index,
            KeyConditionExpression: condition,
            ExpressionAttributeValues: values,
            ProjectionExpression: 'pk, sk',
            ScanIndexForward: false,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) {
          if (total >= offset && keys.length < limit) keys.push({ pk: item.pk, sk: item.sk });
          total++;
        }
        start = out.LastEvaluatedKey;
        if (!start) break;
      }
      const items = await Promise.all(keys.map((key) => documents.send(new GetCommand({ TableName: tableName, Key: key }))));
      return { items: items.flatMap((out) => (out.Item ? [fromItem(out.Item)] : [])), total };
    },
  };
}
