// An operator's own tools on the local service: after a crawl through the API, the AWS SDK's
// clients, called as the AWS CLI calls them (endpoint, region, any credentials), read the crawl's
// execution and its history from the local Step Functions (its four steps and the map's
// iterations, in order), its items from the local DynamoDB, and the queues' depth from the local
// SQS: the calls docs/operating.md shows.
import '../../lambdas/local/polyfills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeStateMachineForExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  SFNClient,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { setRequestLogSink } from '../../lambdas/http/log';

const KEY = 'operator-e2e-key-0123456789';
let sim: StoreSimulator;
let service: LocalService;

/** What `aws --endpoint-url <printed endpoint> --region us-east-1` amounts to. */
const cli = (endpoint: string) => ({
  endpoint,
  region: service.config.region,
  credentials: { accessKeyId: 'operator', secretAccessKey: 'operator' },
});

beforeAll(async () => {
  setRequestLogSink(() => undefined);
  sim = await startStoreSimulator({ storeSizes: { 'shopify-collections.test': 40 } });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-operator-e2e-')),
    env: { PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0', PDS_FAULT_RATE: '0', PDS_DUPLICATE_RATE: '0' },
    bootstrapKeys: `${KEY}:org-operator`,
    log: () => undefined,
  });
}, 60_000);

afterAll(async () => {
  setRequestLogSink(null);
  await service?.stop(1000);
  await sim?.close();
});

async function crawled(): Promise<string> {
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const started = await fetch(`${service.url}/v2/crawl`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ vendor: 'shopify-collections.test' }),
  });
  expect(started.status).toBe(202);
  const id = ((await started.json()) as { execution_id: string }).execution_id;
  for (let i = 0; i < 600; i++) {
    const status = (await (await fetch(`${service.url}/v2/crawl/${id}`, { headers })).json()) as { status: string };
    if (status.status === 'completed') return id;
    expect(status.status).not.toBe('failed');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`crawl ${id} did not finish`);
}

describe('an operator on the local service', () => {
  it('reads a crawl from the local Step Functions, DynamoDB and SQS with the AWS clients', async () => {
    const id = await crawled();
    const sfn = new SFNClient(cli(service.stepFunctionsEndpoint));

    // aws stepfunctions list-state-machines / list-executions
    const machines = await sfn.send(new ListStateMachinesCommand({}));
    const crawlMachine = machines.stateMachines!.find((m) => m.name === 'crawl')!;
    // The crawl reads completed once Finalize has written it; the workflow ends a moment later.
    let execution: { name?: string; status?: string; executionArn?: string } | undefined;
    for (let i = 0; i < 100 && !execution; i++) {
      const listed = await sfn.send(
        new ListExecutionsCommand({ stateMachineArn: crawlMachine.stateMachineArn, statusFilter: 'SUCCEEDED' }),
      );
      execution = listed.executions!.find((e) => e.name === id);
      if (!execution) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(execution?.status).toBe('SUCCEEDED');
    const described = await sfn.send(
      new DescribeStateMachineForExecutionCommand({ executionArn: execution!.executionArn }),
    );
    expect(described.name).toBe('crawl');

    // aws stepfunctions get-execution-history (every page)
    const events: HistoryEvent[] = [];
    let nextToken: string | undefined;
    for (let i = 0; i < 200; i++) {
      const page = await sfn.send(
        new GetExecutionHistoryCommand({ executionArn: execution!.executionArn, maxResults: 50, nextToken }),
      );
      events.push(...page.events!);
      nextToken = page.nextToken;
      if (!nextToken) break;
    }
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events[0].type).toBe('ExecutionStarted');
    expect(events.at(-1)!.type).toBe('ExecutionSucceeded');
    const entered = events.filter((e) => e.type?.endsWith('StateEntered')).map((e) => e.stateEnteredEventDetails!.name);
    // The crawl's four steps, each entered, in order, then its finalization last.
    const steps = [
      'Determining crawl method',
      'Discovering collections',
      'Analyzing collections',
      'Extracting listings',
    ];
    const firsts = steps.map((step) => entered.indexOf(step));
    expect(firsts.every((at) => at >= 0)).toBe(true);
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    expect(entered.at(-1)).toBe('Finalize crawl');
    // Every Task state is scheduled right after it is entered, and succeeds before it exits.
    events.forEach((event, i) => {
      if (event.type === 'TaskStateEntered') expect(events[i + 1].type).toBe('TaskScheduled');
      if (event.type === 'TaskStateExited') expect(events[i - 1].type).toMatch(/^Task(Succeeded|Failed)$/);
    });
    const iterations = events.filter((e) => e.type === 'MapIterationStarted');
    expect(iterations.length).toBeGreaterThan(0);
    expect(iterations.every((e) => e.mapIterationStartedEventDetails!.name === 'Extracting listings')).toBe(true);
    expect(events.filter((e) => e.type === 'MapIterationSucceeded')).toHaveLength(iterations.length);
    const timestamps = events.map((e) => e.timestamp!.getTime());
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));

    // aws dynamodb query --key-condition-expression 'pk = :pk'
    const dynamodb = new DynamoDBClient(cli(service.dynamodbEndpoint));
    const items = await dynamodb.send(
      new QueryCommand({
        TableName: service.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `EXEC#${id}` } },
      }),
    );
    const head = items.Items!.find((item) => item.sk?.S === 'EXEC')!;
    expect(head.status?.S).toBe('completed');

    // aws sqs list-queues / get-queue-attributes: the crawl's queue is drained.
    const sqs = new SQSClient({ ...cli(service.sqsEndpoint), useQueueUrlAsEndpoint: false });
    const { QueueUrls } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'crawl-work' }));
    const queueUrl = QueueUrls!.find((url) => url.endsWith('/crawl-work'))!;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
    );
    expect(Attributes).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  }, 90_000);
});
