// A client built in this process for the embedded DynamoDB (createClients -> localOptions) sends
// its requests over the thread's MessagePort (lambdas/local/port-transport.ts) instead of the
// loopback socket. Its answers must be those of the HTTP server, errors included; clients of the
// endpoint that were not built here keep using HTTP; and a stopped thread fails requests at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { inProcessHandler } from '../../lambdas/adapters/in-process-endpoints';
import { loadConfig } from '../../lambdas/config';
import { type DynaliteThread, startDynaliteThread } from '../../lambdas/local/dynalite-thread';

const TABLE = 'port-t';
let thread: DynaliteThread;
let clients: AwsClients;
let http: DynamoDBDocumentClient;

const clientsOf = (endpoint: string) =>
  createClients(loadConfig({ PDS_DYNAMODB_ENDPOINT: endpoint, PDS_TABLE_NAME: TABLE }));

beforeAll(async () => {
  thread = await startDynaliteThread(undefined);
  clients = clientsOf(thread.endpoint);
  // Built without localOptions: the SDK's own HTTP handler.
  http = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: thread.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  await clients.dynamodb.send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  for (let i = 0; i < 500; i++) {
    const table = await clients.dynamodb.send(new DescribeTableCommand({ TableName: TABLE }));
    if (table.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
});

afterAll(async () => {
  http?.destroy();
  clients?.dynamodb.destroy();
  await thread?.stop();
});

describe('dynalite over its MessagePort', () => {
  it('serves the clients built in this process, and the others over HTTP, with the same items', async () => {
    expect(inProcessHandler(thread.endpoint)).toBe(thread.transport);
    const before = thread.transport.sent;
    const item = {
      pk: 'p1',
      sk: 's1',
      text: 'Crème brûlée — 東京 🍮',
      bytes: new Uint8Array([0, 1, 2, 254, 255]),
      count: 42,
      tags: new Set(['a', 'b']),
    };
    await clients.documents.send(new PutCommand({ TableName: TABLE, Item: item }));
    const key = { pk: 'p1', sk: 's1' };
    const viaPort = (await clients.documents.send(new GetCommand({ TableName: TABLE, Key: key }))).Item;
    const viaHttp = (await http.send(new GetCommand({ TableName: TABLE, Key: key }))).Item;
    expect(viaPort).toEqual(item);
    expect(viaHttp).toEqual(item);
    // The put and the get went through the port; the HTTP client's get did not.
    expect(thread.transport.sent - before).toBe(2);
  });

  it('answers errors as the HTTP server does', async () => {
    const conditional = new PutCommand({
      TableName: TABLE,
      Item: { pk: 'p1', sk: 's1' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    await expect(clients.documents.send(conditional)).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    await expect(http.send(conditional)).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });

    const noKey = new GetCommand({ TableName: TABLE, Key: { pk: 'p1' } });
    const portError = await clients.documents.send(noKey).catch((error: Error) => error);
    const httpError = await http.send(noKey).catch((error: Error) => error);
    expect(portError).toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
    expect((portError as Error).message).toBe((httpError as Error).message);

    await expect(
      clients.documents.send(new GetCommand({ TableName: 'no-such-table', Key: { pk: 'a', sk: 'b' } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('carries batch writes, paged queries and items near the 400 KB limit', async () => {
    const big = 'x'.repeat(380_000);
    await clients.documents.send(new PutCommand({ TableName: TABLE, Item: { pk: 'big', sk: '0', big } }));
    const read = await clients.documents.send(new GetCommand({ TableName: TABLE, Key: { pk: 'big', sk: '0' } }));
    expect(read.Item?.big).toBe(big);

    await clients.documents.send(
      new BatchWriteCommand({
        RequestItems: {
          [TABLE]: Array.from({ length: 25 }, (_, i) => ({
            PutRequest: { Item: { pk: 'batch', sk: String(i).padStart(2, '0'), i } },
          })),
        },
      }),
    );
    const seen: number[] = [];
    let start: Record<string, unknown> | undefined;
    for (let page = 0; page < 10; page++) {
      const out = await clients.documents.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'batch' },
          Limit: 10,
          ExclusiveStartKey: start,
        }),
      );
      seen.push(...(out.Items ?? []).map((entry) => entry.i as number));
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('routes each answer to its own request when many are in flight', async () => {
    await clients.documents.send(
      new BatchWriteCommand({
        RequestItems: {
          [TABLE]: Array.from({ length: 20 }, (_, i) => ({ PutRequest: { Item: { pk: 'many', sk: String(i), i } } })),
        },
      }),
    );
    const reads = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        clients.documents.send(new GetCommand({ TableName: TABLE, Key: { pk: 'many', sk: String(n % 20) } })),
      ),
    );
    expect(reads.map((read) => read.Item?.i)).toEqual(Array.from({ length: 200 }, (_, n) => n % 20));
  });

  it('passes the method and the query string, and fails an aborted request with AbortError', async () => {
    const health = (await thread.transport.handle({
      method: 'GET',
      path: '/',
      query: { probe: 'a b', flag: null },
      headers: { Host: 'localhost' },
    })) as { response: { statusCode: number; body: Uint8Array } };
    expect(health.response.statusCode).toBe(200);
    expect(Buffer.from(health.response.body).toString()).toContain('healthy');

    const aborted = new AbortController();
    aborted.abort();
    await expect(
      thread.transport.handle({ method: 'GET', path: '/', headers: {} }, { abortSignal: aborted.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });

    const inFlight = new AbortController();
    const pending = thread.transport.handle(
      { method: 'GET', path: '/', headers: {} },
      { abortSignal: inFlight.signal },
    );
    inFlight.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    // The late answer of the aborted request is dropped; the port still serves the next one.
    const next = (await clients.documents.send(new GetCommand({ TableName: TABLE, Key: { pk: 'p1', sk: 's1' } }))).Item;
    expect(next?.count).toBe(42);
  });

  it('fails requests at once after its thread stops, and no longer serves the endpoint', async () => {
    const other = await startDynaliteThread(undefined);
    const otherClients = clientsOf(other.endpoint);
    try {
      await otherClients.dynamodb.send(new DescribeTableCommand({ TableName: 'absent' })).catch(() => undefined);
      expect(other.transport.sent).toBe(1);
      await other.stop();
      expect(inProcessHandler(other.endpoint)).toBeUndefined();
      const started = Date.now();
      await expect(otherClients.dynamodb.send(new DescribeTableCommand({ TableName: 'absent' }))).rejects.toThrow(
        /dynalite thread has stopped/,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      otherClients.dynamodb.destroy();
      await other.stop();
    }
  });
});
