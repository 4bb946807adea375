// Review of the embedded DynamoDB's table-description cache (lambdas/local/dynalite-thread.ts):
// beyond delete-and-create (dynalite-thread.test.ts), item calls and index queries across an
// UpdateTable (dynalite's UpdateTable changes throughput and billing only, no key or index, so
// nothing an item call reads), a deleted table answering ResourceNotFound to item calls at once, and with a data directory a restarted engine must read the tables the last one left
// (its cache starts empty) and see them change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { type DynaliteThread, startDynaliteThread } from '../../lambdas/local/dynalite-thread';

const dir = mkdtempSync(join(tmpdir(), 'review-dynalite-'));
const running: Array<{ thread: DynaliteThread; client: DynamoDBClient }> = [];

async function start(dataDir: string | undefined) {
  const thread = await startDynaliteThread(dataDir);
  const client = new DynamoDBClient({
    endpoint: thread.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const engine = { thread, client };
  running.push(engine);
  return engine;
}

async function stop(engine: { thread: DynaliteThread; client: DynamoDBClient }) {
  running.splice(running.indexOf(engine), 1);
  engine.client.destroy();
  await engine.thread.stop();
}

afterAll(async () => {
  for (const engine of [...running]) await stop(engine);
  rmSync(dir, { recursive: true, force: true });
});

async function untilActive(client: DynamoDBClient, name: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const table = (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
    if (
      table?.TableStatus === 'ACTIVE' &&
      (table.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE')
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${name} never became ACTIVE`);
}

const createTable = (client: DynamoDBClient, name: string) =>
  client.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );

const put = (client: DynamoDBClient, name: string, pk: string, byColour: string) =>
  client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: pk }, colour: { S: byColour } } }));

const byColour = (client: DynamoDBClient, name: string, colour: string) =>
  client.send(
    new QueryCommand({
      TableName: name,
      IndexName: 'by-colour',
      KeyConditionExpression: 'colour = :c',
      ExpressionAttributeValues: { ':c': { S: colour } },
    }),
  );

describe('dynalite table-description cache', () => {
  it('an UpdateTable (billing mode: dynalite updates no key or index) leaves item calls and index queries working', async () => {
    const { client } = await start(undefined);
    await client.send(
      new CreateTableCommand({
        TableName: 'upd',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'colour', AttributeType: 'S' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'by-colour',
            KeySchema: [{ AttributeName: 'colour', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'ALL' },
            ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
          },
        ],
        ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      }),
    );
    await untilActive(client, 'upd');
    await put(client, 'upd', 'a', 'red'); // the description is cached now
    await client.send(new UpdateTableCommand({ TableName: 'upd', BillingMode: 'PAY_PER_REQUEST' }));
    // While UPDATING (not cached) and once ACTIVE again (cached again).
    await put(client, 'upd', 'b', 'red');
    await untilActive(client, 'upd');
    await put(client, 'upd', 'c', 'red');
    const found = await byColour(client, 'upd', 'red');
    expect(found.Items?.map((item) => item.pk.S).sort()).toEqual(['a', 'b', 'c']);
    const table = (await client.send(new DescribeTableCommand({ TableName: 'upd' }))).Table;
    expect(table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it('a deleted table answers ResourceNotFound to item calls at once', async () => {
    const { client } = await start(undefined);
    await createTable(client, 'gone');
    await untilActive(client, 'gone');
    await put(client, 'gone', 'a', 'red');
    await client.send(new DeleteTableCommand({ TableName: 'gone' }));
    await expect(client.send(new GetItemCommand({ TableName: 'gone', Key: { pk: { S: 'a' } } }))).rejects.toMatchObject(
      { name: 'ResourceNotFoundException' },
    );
    await expect(put(client, 'gone', 'b', 'red')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('with a data directory, a restarted engine reads the tables and items the last one left, and sees them change', async () => {
    const first = await start(dir);
    await createTable(first.client, 'kept');
    await untilActive(first.client, 'kept');
    await put(first.client, 'kept', 'a', 'red');
    await stop(first);

    const second = await start(dir);
    const item = await second.client.send(new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'a' } } }));
    expect(item.Item?.colour.S).toBe('red');
    await second.client.send(new DeleteTableCommand({ TableName: 'kept' }));
    await expect(
      second.client.send(new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'a' } } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await stop(second);

    const third = await start(dir);
    await expect(
      third.client.send(new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'a' } } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
