// The embedded engines behind `npm start` and the tests, in this process on loopback HTTP
// endpoints: dynalite (DynamoDB on LevelDB, persisted under dataDir) and fauxqs (SQS, in memory,
// so queues are recreated at each start). Every client, in this process or another, reaches
// them over HTTP with the SDK's own handler, as it would reach AWS; the table and the queues are
// created through the same SDK calls.
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import { buildApp } from 'fauxqs';
import { TABLE } from '../topology/table';
import { QUEUES, type QueueSpec } from '../topology/queues';
import { closeDynaliteIterators } from './dynalite-iterators';

export interface Engines {
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  tableName: string;
  /** queue logical name -> URL (DLQs are `<name>-dlq`). */
  queueUrls: Record<string, string>;
  stop(): Promise<void>;
}

export interface EngineOptions {
  /** LevelDB directory; omitted = in memory (tests). One dynalite per directory. */
  dataDir?: string;
  tableName?: string;
  /** Queues to create (each with its `<name>-dlq`); default QUEUES. Tests add fixture queues. */
  queues?: readonly QueueSpec[];
}

interface Engine {
  /** http://<the address it listens on>:<port> */
  endpoint: string;
  stop(): Promise<void>;
}

type QueueShape = Pick<QueueSpec, 'name' | 'visibilityTimeoutSeconds' | 'maxReceiveCount'>;

const REGION = 'us-east-1';
const LOCAL = { region: REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
/** DLQs keep their messages as long as SQS allows (14 days), as the deployed ones do. */
const DLQ_RETENTION_SECONDS = '1209600';

export async function startEngines(options: EngineOptions = {}): Promise<Engines> {
  const tableName = options.tableName ?? 'pds';
  const [dynamoStart, sqsStart] = await Promise.allSettled([startDynalite(options.dataDir), startFauxqs()]);
  const dynamo = dynamoStart.status === 'fulfilled' ? dynamoStart.value : undefined;
  const sqs = sqsStart.status === 'fulfilled' ? sqsStart.value : undefined;
  let queueUrls: Record<string, string>;
  try {
    if (!dynamo) throw (dynamoStart as PromiseRejectedResult).reason;
    if (!sqs) throw (sqsStart as PromiseRejectedResult).reason;
    [queueUrls] = await Promise.all([
      createQueues(sqs.endpoint, options.queues ?? QUEUES),
      ensureTable(dynamo.endpoint, tableName),
    ]);
  } catch (error) {
    await sqs?.stop();
    await dynamo?.stop();
    throw error;
  }
  return {
    dynamodbEndpoint: dynamo.endpoint,
    sqsEndpoint: sqs.endpoint,
    tableName,
    queueUrls,
    async stop() {
      await sqs.stop();
      await dynamo.stop();
    },
  };
}

/** The endpoint of a server listening on loopback, from the address it actually took. */
function endpointOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address}:${port}`;
}

async function startDynalite(dataDir: string | undefined): Promise<Engine> {
  closeDynaliteIterators();
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const server = dynalite({
    ...(dataDir ? { path: dataDir } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const idle = trackRequests(server);
  return {
    endpoint: endpointOf(server),
    stop: async () => {
      await idle(DRAIN_MS);
      await new Promise<void>((resolve, reject) => {
        // dynalite's close also closes the LevelDB store, after its pending operations.
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
    },
  };
}

/** How long a stop waits for the requests dynalite is still answering. */
const DRAIN_MS = 5000;

/**
 * Counts the requests a server has not answered yet; the returned function resolves once none is
 * left (or after `limitMs`). Why: dynalite answers a request with a chain of LevelDB operations
 * and throws (an uncaught exception, out of its request callback) when the store closes between
 * two of them. A client that gives up (a disposed SDK client destroys its sockets) does not stop
 * that chain, and with no connection left dynalite's close goes on to close the store: so a stop
 * first waits for every request to be answered.
 */
function trackRequests(server: Server): (limitMs: number) => Promise<void> {
  let open = 0;
  let drained: (() => void) | undefined;
  server.prependListener('request', (_request, response) => {
    open++;
    const end = response.end.bind(response);
    response.end = ((...args: Parameters<typeof end>) => {
      if (--open === 0) drained?.();
      return end(...args);
    }) as typeof response.end;
  });
  return (limitMs) =>
    open === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, limitMs);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
}

/** fauxqs's app on loopback (its own startFauxqs listens on every interface), without request logs. */
async function startFauxqs(): Promise<Engine> {
  const app = buildApp({ logger: false, host: '127.0.0.1' });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await app.close();
    throw error;
  }
  return { endpoint: endpointOf(app.server), stop: () => app.close() };
}

/** Each queue with its DLQ (`<name>-dlq`) and redrive policy, as the CDK stack declares them; their URLs by name. */
async function createQueues(endpoint: string, queues: readonly QueueShape[]): Promise<Record<string, string>> {
  const sqs = new SQSClient({ ...LOCAL, endpoint, useQueueUrlAsEndpoint: false });
  try {
    const urls: Record<string, string> = {};
    await Promise.all(
      queues.map(async (queue) => {
        const dlq = await sqs.send(
          new CreateQueueCommand({
            QueueName: `${queue.name}-dlq`,
            Attributes: { MessageRetentionPeriod: DLQ_RETENTION_SECONDS },
          }),
        );
        const { Attributes } = await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
        );
        const main = await sqs.send(
          new CreateQueueCommand({
            QueueName: queue.name,
            Attributes: {
              VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: Attributes?.QueueArn,
                maxReceiveCount: queue.maxReceiveCount,
              }),
            },
          }),
        );
        urls[queue.name] = main.QueueUrl!;
        urls[`${queue.name}-dlq`] = dlq.QueueUrl!;
      }),
    );
    return urls;
  } finally {
    sqs.destroy();
  }
}

async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ ...LOCAL, endpoint });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    const keys = [TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
    await untilActive(client, tableName);
  } finally {
    client.destroy();
  }
}

/**
 * Waits for a table dynalite has just created to turn ACTIVE. dynalite answers CreateTable while
 * the table is still CREATING (ACTIVE comes on a timer, then a LevelDB write), and a request
 * reaching it before that write gets ResourceNotFoundException (3 starts in 10 on a fresh data
 * directory). The SDK's waitUntilTableExists polls at 1 s at the least; this takes milliseconds.
 */
async function untilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table ${tableName} did not turn ACTIVE`);
}
