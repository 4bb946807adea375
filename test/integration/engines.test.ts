import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startEngines } from '../../lambdas/local/engines';
import { createClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { QUEUES } from '../../lambdas/topology/queues';

describe('embedded engines', () => {
  it('persist table items across a restart and serve the work queues', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-engines-'));
    let engines = await startEngines({ dataDir });
    // Both listen on loopback only (fauxqs's own start would take every interface): each endpoint
    // is built from the address its server took.
    expect(new URL(engines.dynamodbEndpoint).hostname).toBe('127.0.0.1');
    expect(new URL(engines.sqsEndpoint).hostname).toBe('127.0.0.1');
    let clients = createClients({
      ...loadConfig({}),
      endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint },
    });
    // Each queue as the stack declares it: its visibility timeout, and redrive to its DLQ.
    const work = QUEUES.find((queue) => queue.name === 'extract-work')!;
    const { Attributes: attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: engines.queueUrls['extract-work'], AttributeNames: ['All'] }),
    );
    const { Attributes: dlq } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: engines.queueUrls['extract-work-dlq'], AttributeNames: ['All'] }),
    );
    expect(attributes?.VisibilityTimeout).toBe(String(work.visibilityTimeoutSeconds));
    expect(JSON.parse(attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: dlq?.QueueArn,
      maxReceiveCount: work.maxReceiveCount,
    });
    expect(dlq?.MessageRetentionPeriod).toBe('1209600');
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

  it('hand over a table that is ACTIVE at once on a fresh data directory', async () => {
    // dynalite answers CreateTable while the table is CREATING; a caller's first request used to
    // meet ResourceNotFoundException now and then (1 start in 10 to 30 here). Thirty fresh starts, each read at once.
    for (let start = 0; start < 30; start++) {
      const engines = await startEngines({ dataDir: mkdtempSync(join(tmpdir(), 'pds-engines-fresh-')) });
      const { dynamodb } = createClients({ ...loadConfig({}), endpoints: { dynamodb: engines.dynamodbEndpoint } });
      try {
        const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: engines.tableName }));
        expect(Table?.TableStatus).toBe('ACTIVE');
      } finally {
        dynamodb.destroy();
        await engines.stop();
      }
    }
  });
});
