// A client built in this process for the embedded SQS (createClients -> localOptions) sends its
// requests over the fauxqs thread's MessagePort (lambdas/local/port-transport.ts, through
// light-my-request into fauxqs's own fastify handler) instead of the loopback socket. Its answers
// must be those of the HTTP server, errors and long polls included; clients of the endpoint that
// were not built here keep using HTTP; and a stopped thread fails requests at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { inProcessHandler } from '../../lambdas/adapters/in-process-endpoints';
import { loadConfig } from '../../lambdas/config';
import { type SqsThread, startSqsThread } from '../../lambdas/local/sqs-thread';

const QUEUES = [
  { name: 'port-a', visibilityTimeoutSeconds: 30, maxReceiveCount: 2 },
  { name: 'port-b', visibilityTimeoutSeconds: 30, maxReceiveCount: 2 },
];
let thread: SqsThread;
let clients: AwsClients;
let http: SQSClient;

beforeAll(async () => {
  thread = await startSqsThread(QUEUES);
  clients = createClients(loadConfig({ PDS_SQS_ENDPOINT: thread.endpoint }));
  // Built without localOptions: the SDK's own HTTP handler.
  http = new SQSClient({
    endpoint: thread.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  http?.destroy();
  clients?.sqs.destroy();
  await thread?.stop();
});

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: Error & { $metadata?: { httpStatusCode?: number } }) => ({
      name: error.name,
      status: error.$metadata?.httpStatusCode,
    }),
  );

describe('fauxqs over its MessagePort', () => {
  it('serves the clients built in this process, and the others over HTTP, with the same messages', async () => {
    expect(inProcessHandler(thread.endpoint)).toBe(thread.transport);
    // Its HTTP server listens on loopback only (fauxqs itself would take every interface).
    expect(thread.address).toBe('127.0.0.1');
    const url = thread.queueUrls['port-a'];
    const before = thread.transport.sent;
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'über {"json": true} ✓ 中' }));
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [1, 2].map((i) => ({
          Id: `m${i}`,
          MessageBody: `batch ${i}`,
          MessageAttributes: { n: { DataType: 'Number', StringValue: String(i) } },
        })),
      }),
    );
    expect(thread.transport.sent - before).toBe(2);
    // Received over HTTP: what the port carried is what fauxqs stored.
    const sentOverHttp = thread.transport.sent;
    const received = await http.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );
    expect(thread.transport.sent).toBe(sentOverHttp);
    expect(received.Messages?.map((m) => m.Body).sort()).toEqual(['batch 1', 'batch 2', 'über {"json": true} ✓ 中']);
    expect(received.Messages?.find((m) => m.Body === 'batch 2')?.MessageAttributes?.n?.StringValue).toBe('2');
    const deleted = await clients.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: received.Messages!.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
    expect(deleted.Successful).toHaveLength(3);
    const attributes = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(attributes.Attributes?.ApproximateNumberOfMessages).toBe('0');
  });

  it('answers errors as the HTTP server does', async () => {
    const missing = `${thread.queueUrls['port-a']}-missing`;
    const viaPort = await errorOf(clients.sqs.send(new SendMessageCommand({ QueueUrl: missing, MessageBody: 'x' })));
    const viaHttp = await errorOf(http.send(new SendMessageCommand({ QueueUrl: missing, MessageBody: 'x' })));
    expect(viaPort).toEqual(viaHttp);
    expect(viaPort?.name).toBe('QueueDoesNotExist');
    const badHandle = { QueueUrl: thread.queueUrls['port-a'], ReceiptHandle: 'nope', VisibilityTimeout: 5 };
    expect(await errorOf(clients.sqs.send(new ChangeMessageVisibilityCommand(badHandle)))).toEqual(
      await errorOf(http.send(new ChangeMessageVisibilityCommand(badHandle))),
    );
  });

  it('waits out a long poll, and hands a message sent meanwhile to the poll in flight', async () => {
    const url = thread.queueUrls['port-b'];
    let started = Date.now();
    const empty = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
    expect(empty.Messages ?? []).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    started = Date.now();
    const polls = Promise.all(
      [0, 1, 2].map(() => clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 5 }))),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await http.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late' }));
    const [first] = await Promise.race([
      polls.then((answers) => answers.filter((answer) => answer.Messages?.length)),
      new Promise<never[]>((resolve) => setTimeout(() => resolve([]), 3000)),
    ]).then((answers) => (answers.length ? answers : [undefined]));
    // The message reached one of the polls in flight well before their 5 s ran out.
    expect(first?.Messages?.[0]?.Body).toBe('late');
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('fails requests at once after its thread stops, and no longer serves the endpoint', async () => {
    const own = await startSqsThread([{ name: 'port-c', visibilityTimeoutSeconds: 30, maxReceiveCount: 2 }]);
    const ownClients = createClients(loadConfig({ PDS_SQS_ENDPOINT: own.endpoint }));
    const url = own.queueUrls['port-c'];
    await ownClients.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
    await own.stop();
    expect(inProcessHandler(own.endpoint)).toBeUndefined();
    const started = Date.now();
    const error = await errorOf(ownClients.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'y' })));
    expect(error?.name).toBe('Error');
    expect(Date.now() - started).toBeLessThan(1000);
    ownClients.sqs.destroy();
  });
});
