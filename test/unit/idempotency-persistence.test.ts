// The wire format of the idempotency persistence layer (adapters/dynamodb/idempotency.ts): the
// DynamoDB requests it sends for each Powertools step, captured at the document client's `send`
// (the one AWS API mocked here), and how it reads the old item DynamoDB returns with a failed
// condition. The same layer against the embedded DynamoDB: test/integration/idempotency-store.test.ts.
import { describe, expect, it } from 'vitest';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoIdempotencyStore } from '../../lambdas/adapters/dynamodb/idempotency';

const NOW = 1_800_000_000_000;

function capture(reply: (command: { constructor: { name: string }; input: any }) => unknown = () => ({})) {
  const sent: Array<{ name: string; input: any }> = [];
  const documents = {
    send: async (command: { constructor: { name: string }; input: any }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      return reply(command);
    },
  } as unknown as DynamoDBDocumentClient;
  const store = new DynamoIdempotencyStore(documents, 'pds-table', () => NOW);
  store.configure({
    config: new IdempotencyConfig({
      eventKeyJmesPath: '[org, key]',
      payloadValidationJmesPath: '[operation, body]',
      expiresAfterSeconds: 86_400,
      hashFunction: 'sha256',
    }),
    keyPrefix: 'start',
  });
  return { store, sent };
}

const data = { org: 'org-a', key: 'k-1', operation: 'v2ExtractStart', body: { urls: ['https://a.example/p'] } };

describe('idempotency persistence wire format', () => {
  it('puts the in-progress record under the key schema, conditional on absent, expired or abandoned', async () => {
    const { store, sent } = capture();
    await store.saveInProgress(data, 30_000);
    expect(sent).toHaveLength(1);
    const [{ name, input }] = sent;
    expect(name).toBe('PutCommand');
    expect(input.TableName).toBe('pds-table');
    expect(input.Item.pk).toMatch(/^IDEMPOTENCY#start#[A-Za-z0-9+/]{43}=$/);
    expect(input.Item).toMatchObject({
      sk: 'IDEMPOTENCY',
      entity: 'idempotencyRecord',
      status: 'INPROGRESS',
      idempotencyKey: input.Item.pk.slice('IDEMPOTENCY#'.length),
    });
    expect(input.Item.expiresAt).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 86_400 - 5);
    expect(input.Item.inProgressUntil).toBeGreaterThan(Date.now());
    expect(input.Item.payloadHash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(input.ConditionExpression).toBe(
      'attribute_not_exists(pk) OR #expiry < :now OR (#status = :inprogress AND attribute_exists(#until) AND #until < :nowMs)',
    );
    expect(input.ExpressionAttributeNames).toEqual({
      '#expiry': 'expiresAt',
      '#status': 'status',
      '#until': 'inProgressUntil',
    });
    expect(input.ExpressionAttributeValues).toEqual({ ':now': NOW / 1000, ':nowMs': NOW, ':inprogress': 'INPROGRESS' });
    expect(input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('turns a failed condition into Powertools’ "already exists" with the old item read from its wire form', async () => {
    const { store } = capture(() => {
      throw Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
        Item: {
          pk: { S: 'IDEMPOTENCY#start#x' },
          idempotencyKey: { S: 'start#x' },
          status: { S: 'COMPLETED' },
          expiresAt: { N: String(Math.floor(Date.now() / 1000) + 3600) },
          payloadHash: { S: 'hash' },
          response: { S: JSON.stringify({ status: 202, body: { execution_id: 'e-1' } }) },
        },
      });
    });
    const error = await store.saveInProgress(data, 30_000).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'IdempotencyItemAlreadyExistsError' });
    const existing = (error as { existingRecord: any }).existingRecord;
    expect(existing.getStatus()).toBe('COMPLETED');
    expect(existing.getResponse()).toEqual({ status: 202, body: { execution_id: 'e-1' } });
    expect(existing.payloadHash).toBe('hash');
  });

  it('completes with the response as JSON text and drops the in-progress deadline; deletes by key', async () => {
    const { store, sent } = capture();
    await store.saveSuccess(data, { status: 202, body: { execution_id: 'e-1', note: 'x' } });
    const update = sent[0];
    expect(update.name).toBe('UpdateCommand');
    expect(update.input.Key).toEqual({ pk: expect.stringMatching(/^IDEMPOTENCY#start#/), sk: 'IDEMPOTENCY' });
    expect(update.input.UpdateExpression).toBe(
      'SET #status = :status, #expiry = :expiry, #response = :response, payloadHash = :hash REMOVE inProgressUntil',
    );
    expect(update.input.ExpressionAttributeValues[':status']).toBe('COMPLETED');
    expect(JSON.parse(update.input.ExpressionAttributeValues[':response'])).toEqual({
      status: 202,
      body: { execution_id: 'e-1', note: 'x' },
    });

    await store.deleteRecord(data);
    expect(sent[1]).toEqual({ name: 'DeleteCommand', input: { TableName: 'pds-table', Key: update.input.Key } });
  });

  it('reads a record consistently and says when there is none', async () => {
    const { store, sent } = capture(() => ({}));
    await expect(store.getRecord(data)).rejects.toMatchObject({ name: 'IdempotencyItemNotFoundError' });
    expect(sent[0].name).toBe('GetCommand');
    expect(sent[0].input.ConsistentRead).toBe(true);
  });
});
