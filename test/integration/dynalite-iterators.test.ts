// The dynalite patch (lambdas/local/dynalite-iterators.ts): dynalite 4 closes its LevelDB
// iterators through a `return()` that abstract-level's iterators lack, so without the patch every
// query leaves one open (the local service's memory grew with each); with it, none stays open
// after a bounded run of queries that read to the end, stop at their Limit, go through an index,
// scan and list tables. On disk (classic-level, native LevelDB iterators), as `npm start` runs it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDynaliteIterators, dynaliteIteratorClasses } from '../../lambdas/local/dynalite-iterators';

const TABLE = 'iterators';
const dir = mkdtempSync(join(tmpdir(), 'pds-dynalite-iterators-'));
const server = dynalite({ path: dir, createTableMs: 0 });
let client: DynamoDBClient;

// Iterators attached to a database and not yet closed (abstract-level detaches one on close).
const open = new Set<object>();
const iteratorClasses = dynaliteIteratorClasses();
const isIterator = (resource: object) =>
  iteratorClasses.some((type) => Object.prototype.isPrototypeOf.call(type.prototype, resource));
const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
type ResourceHook = (this: unknown, resource: object) => unknown;
const levelPrototype = (
  fromDynalite('abstract-level') as {
    AbstractLevel: { prototype: { attachResource: ResourceHook; detachResource: ResourceHook } };
  }
).AbstractLevel.prototype;
const attach = levelPrototype.attachResource;
const detach = levelPrototype.detachResource;
levelPrototype.attachResource = function (this: unknown, resource: object) {
  if (isIterator(resource)) open.add(resource);
  return attach.call(this, resource);
};
levelPrototype.detachResource = function (this: unknown, resource: object) {
  open.delete(resource);
  return detach.call(this, resource);
};

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'sk', 'colour'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by-colour',
          KeySchema: [
            { AttributeName: 'colour', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  for (let i = 0; i < 100; i++) {
    const table = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    if (table.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await client.send(
    new BatchWriteItemCommand({
      RequestItems: {
        [TABLE]: Array.from({ length: 25 }, (_, i) => ({
          PutRequest: { Item: { pk: { S: 'p' }, sk: { S: String(i).padStart(2, '0') }, colour: { S: 'red' } } },
        })),
      },
    }),
  );
});

afterAll(async () => {
  client?.destroy();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** 50 reads of every kind dynalite streams: full and limited queries, an index, a scan, the table list. */
async function readRounds(rounds = 10): Promise<void> {
  const partition = { ':p': { S: 'p' } };
  for (let round = 0; round < rounds; round++) {
    await client.send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: partition }),
    );
    const page = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: partition,
        Limit: 5,
      }),
    );
    expect(page.Items).toHaveLength(5);
    await client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'by-colour',
        KeyConditionExpression: 'colour = :c',
        ExpressionAttributeValues: { ':c': { S: 'red' } },
        Limit: 3,
      }),
    );
    await client.send(new ScanCommand({ TableName: TABLE, Limit: 10 }));
    await client.send(new ListTablesCommand({}));
  }
}

/** Open iterators once the closes in flight have finished (bounded wait). */
async function settledOpen(): Promise<number> {
  for (let i = 0; i < 50 && open.size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return open.size;
}

describe('dynalite’s LevelDB iterators', () => {
  it('stay open after each read without the patch (the bug it works around)', async () => {
    open.clear();
    await readRounds();
    // One or more per read; dynalite 4.0.0 closes none of them.
    expect(await settledOpen()).toBeGreaterThanOrEqual(50);
  });

  it('are all closed with the patch, whether a read ends or stops at its Limit', async () => {
    closeDynaliteIterators();
    open.clear();
    await readRounds();
    expect(await settledOpen()).toBe(0);
    // Applied twice (a second local service in one process), the reads still close theirs.
    closeDynaliteIterators();
    await readRounds(2);
    expect(await settledOpen()).toBe(0);
  });
});
