// A vendor's product records by cursor: gsi1 (PRODUCTS#<vendor>, <updated_at>#<hash>#<cc>) read
// oldest first, the country filtered in the query; the cursor is DynamoDB's LastEvaluatedKey,
// base64url JSON, bound to the vendor it was given for.
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { invalid } from '../../domain/errors';
import type { ProductPages } from '../../ports/product-pages';
import type { StoredProduct } from '../../ports/products';
import { fromItem } from './products';
import { SCHEMA } from './schema';

/** Queries per page at most: a page of a country that few records have still ends. */
const MAX_QUERIES = 20;
const KEY_NAMES = ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const;

function decode(cursor: string, pk: string): Record<string, string> {
  let key: Record<string, unknown> | null = null;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = null;
  }
  const valid =
    key !== null &&
    typeof key === 'object' &&
    Object.keys(key).length === KEY_NAMES.length &&
    KEY_NAMES.every((name) => typeof key![name] === 'string') &&
    key.gsi1pk === pk;
  if (!valid) throw invalid('cursor is not one this feed gave for this vendor');
  return key as Record<string, string>;
}

const encode = (key: Record<string, unknown>) =>
  Buffer.from(JSON.stringify(Object.fromEntries(KEY_NAMES.map((name) => [name, key[name]])))).toString('base64url');

export function dynamoProductPages(documents: DynamoDBDocumentClient, tableName: string): ProductPages {
  return {
    async page({ vendor, country, cursor, limit }) {
      const pk = SCHEMA.product.gsi1.pk({ vendor });
      let start: Record<string, unknown> | undefined = cursor ? decode(cursor, pk) : undefined;
      const records: StoredProduct[] = [];
      for (let query = 0; query < MAX_QUERIES && records.length < limit; query++) {
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :pk',
            FilterExpression: 'country = :country',
            ExpressionAttributeValues: { ':pk': pk, ':country': country.toLowerCase() },
            ScanIndexForward: true,
            // Limit counts items read before the filter: a page never holds more than `limit`.
            Limit: limit - records.length,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) records.push(fromItem(item));
        start = out.LastEvaluatedKey;
        if (!start) break;
      }
      return { records, cursor: start ? encode(start) : null };
    },
  };
}
