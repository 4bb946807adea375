import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UsageStore } from '../../ports/usage';
import type { AddCalls } from '../../domain/usage/meter';
import { deadline, usagePk, usageSk } from './keys';
import { SCHEMA } from './schema';

/** 90 days x 43 routes is ~93k buckets at most; pages of 1 MB keep this far below the cap. */
const MAX_PAGES = 500;

export function dynamoUsageStore(documents: DynamoDBDocumentClient, tableName: string): UsageStore & { add: AddCalls } {
  // ADD is atomic: concurrent writers (other Lambdas, other rounds) never lose a count.
  const add: AddCalls = async (org, path, hourBucket, calls) => {
    await documents.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: usagePk(org), sk: usageSk(hourBucket, path) },
        UpdateExpression: 'ADD calls :calls SET #path = :path',
        ExpressionAttributeNames: { '#path': 'path' },
        ExpressionAttributeValues: { ':calls': calls, ':path': path },
      }),
      deadline(),
    );
  };
  return {
    add,
    increment: (org, path, hourBucket) => add(org, path, hourBucket, 1),

    async read(org, fromBucket) {
      const rows: Array<{ path: string; calls: number }> = [];
      let start: Record<string, any> | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: fromBucket ? 'pk = :pk AND sk >= :from' : 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: {
              ':pk': usagePk(org),
              ...(fromBucket
                ? { ':from': `${SCHEMA.usageCounter.skPrefix}${fromBucket}` }
                : { ':prefix': SCHEMA.usageCounter.skPrefix }),
            },
            ProjectionExpression: '#path, calls',
            ExpressionAttributeNames: { '#path': 'path' },
            ExclusiveStartKey: start,
          }),
          deadline(),
        );
        for (const item of out.Items ?? []) rows.push({ path: String(item.path), calls: Number(item.calls ?? 0) });
        start = out.LastEvaluatedKey;
        if (!start) break;
      }
      return rows;
    },
  };
}
