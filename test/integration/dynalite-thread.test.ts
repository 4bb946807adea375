// The embedded DynamoDB's thread (lambdas/local/dynalite-thread.ts) keeps an ACTIVE table's
// description in memory instead of reading it from LevelDB on every request: a table deleted or
// created again with another key schema must be seen at once by the next item request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  BatchWriteItemCommand,
} from '@aws-sdk/client-dynamodb';
import { type DynaliteThread, startDynaliteThread } from '../../lambdas/local/dynalite-thread';
import { engineThreadIds } from '../../lambdas/local/engine-thread';

let thread: DynaliteThread;
let client: DynamoDBClient;

beforeAll(async () => {
  thread = await startDynaliteThread(undefined);
  client = new DynamoDBClient({
    endpoint: thread.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  client?.destroy();
  await thread?.stop();
});

const create = (name: string, key: string) =>
  client.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );

// dynalite finishes creating and deleting a table on a timer (0 ms here, later on a loaded
// machine): wait for the state the next step needs, through DescribeTable, which reads the
// description fresh and so leaves the cache under test alone.
async function tableState(name: string): Promise<string> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: name }))).Table?.TableStatus ?? 'UNKNOWN';
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return 'GONE';
    throw error;
  }
}

async function untilTable(name: string, state: 'ACTIVE' | 'GONE'): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await tableState(name)) === state) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table ${name} never ${state}`);
}

describe('dynalite thread', () => {
  it('reports its kernel thread id (Linux) for per-thread CPU figures', () => {
    if (process.platform === 'linux') expect(engineThreadIds.get('dynalite')).toBeGreaterThan(0);
    else expect(engineThreadIds.has('dynalite')).toBe(false);
  });

  it('stamps each response with the CRC32 of its body', async () => {
    const response = await fetch(thread.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        'x-amz-date': '20260101T000000Z',
        authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=local',
      },
      body: '{}',
    });
    const body = await response.text();
    expect(body).toContain('TableNames');
    expect(Number(response.headers.get('x-amz-crc32'))).toBe(crc32(body));
  });

  it('sees a table deleted and created again with another key at once', async () => {
    await create('cache-t', 'pk');
    await untilTable('cache-t', 'ACTIVE');
    await client.send(new PutItemCommand({ TableName: 'cache-t', Item: { pk: { S: 'a' }, v: { S: '1' } } }));
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: { 'cache-t': [{ PutRequest: { Item: { pk: { S: 'b' } } } }] },
      }),
    );
    expect((await client.send(new GetItemCommand({ TableName: 'cache-t', Key: { pk: { S: 'a' } } }))).Item?.v?.S).toBe(
      '1',
    );

    await client.send(new DeleteTableCommand({ TableName: 'cache-t' }));
    await untilTable('cache-t', 'GONE');
    await expect(
      client.send(new PutItemCommand({ TableName: 'cache-t', Item: { pk: { S: 'a' } } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });

    // Created again keyed on `id`: an item keyed on the old `pk` is refused, one on `id` stored.
    await create('cache-t', 'id');
    await untilTable('cache-t', 'ACTIVE');
    await expect(
      client.send(new PutItemCommand({ TableName: 'cache-t', Item: { pk: { S: 'a' } } })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await client.send(
      new BatchWriteItemCommand({ RequestItems: { 'cache-t': [{ PutRequest: { Item: { id: { S: 'x' } } } }] } }),
    );
    expect((await client.send(new GetItemCommand({ TableName: 'cache-t', Key: { id: { S: 'x' } } }))).Item?.id?.S).toBe(
      'x',
    );
  });
});
