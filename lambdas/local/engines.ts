// The embedded engines behind `npm start` and the tests: dynalite (DynamoDB on LevelDB,
// persisted under dataDir) and fauxqs (SQS, in memory, so queues are recreated at each start),
// each on a worker thread of its own (dynalite-thread.ts, sqs-thread.ts).
//
// dynalite runs on a worker thread of its own: its request parsing, expression evaluation,
// LevelDB calls and JSON work use the second core instead of blocking the HTTP server's event
// loop. A thread rather than a child process: it dies with the process however that ends
// (kill -9 included), so no orphan can keep holding the LevelDB lock of the data directory.
import { mkdirSync } from 'node:fs';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE } from '../topology/table';
import { QUEUES, type QueueSpec } from '../topology/queues';
import { startDynaliteThread, type DynaliteThread } from './dynalite-thread';
import { startSqsThread, type SqsThread } from './sqs-thread';

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
  /** A dynalite thread already starting on dataDir (bin/local.ts starts it before the modules load). */
  dynalite?: Promise<DynaliteThread>;
  /** An SQS thread already starting with the default queues (ignored when `queues` is given). */
  sqs?: Promise<SqsThread>;
}

export async function startEngines(options: EngineOptions = {}): Promise<Engines> {
  const tableName = options.tableName ?? 'pds';
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // Both engines start side by side, each on a thread of its own.
  const [dynamoStart, sqsStart] = await Promise.allSettled([
    options.dynalite ?? startDynaliteThread(options.dataDir),
    options.sqs && !options.queues ? options.sqs : startSqsThread(options.queues ?? QUEUES),
  ]);
  const dynamo = dynamoStart.status === 'fulfilled' ? dynamoStart.value : undefined;
  const fauxqs = sqsStart.status === 'fulfilled' ? sqsStart.value : undefined;
  try {
    if (!dynamo) throw (dynamoStart as PromiseRejectedResult).reason;
    if (!fauxqs) throw (sqsStart as PromiseRejectedResult).reason;
    await ensureTable(dynamo.endpoint, tableName);
  } catch (error) {
    await fauxqs?.stop();
    await dynamo?.stop();
    throw error;
  }
  const sqsEndpoint = fauxqs.endpoint;
  const { queueUrls } = fauxqs;

  return {
    dynamodbEndpoint: dynamo.endpoint,
    sqsEndpoint,
    tableName,
    queueUrls,
    async stop() {
      await fauxqs.stop();
      await dynamo.stop();
    },
  };
}

async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
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
  client.destroy();
}
