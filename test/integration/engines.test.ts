import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startEngines } from '../../lambdas/local/engines';
import { createClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';

describe('embedded engines', () => {
  it('persist table items across a restart and serve the work queues', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-engines-'));
    let engines = await startEngines({ dataDir });
    let clients = createClients({
      ...loadConfig({}),
      endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint },
    });
    await clients.documents.send(
      new PutCommand({ TableName: engines.tableName, Item: { pk: 'T#1', sk: 'T', value: 42 } }),
    );
    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: engines.queueUrls['extract-work'], MessageBody: 'hello' }),
    );
    const received = await clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: engines.queueUrls['extract-work'], WaitTimeSeconds: 1 }),
    );
    expect(received.Messages?.[0]?.Body).toBe('hello');
    await engines.stop();

    engines = await startEngines({ dataDir });
    clients = createClients({
      ...loadConfig({}),
      endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint },
    });
    const got = await clients.documents.send(
      new GetCommand({ TableName: engines.tableName, Key: { pk: 'T#1', sk: 'T' } }),
    );
    expect(got.Item?.value).toBe(42);
    await engines.stop();
  });
});
