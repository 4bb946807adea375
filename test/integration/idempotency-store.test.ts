// Idempotent starts below HTTP, on the embedded DynamoDB: the Powertools persistence layer's
// items in the one table (their wire format, read back with the low-level client: key schema,
// status, TTL attribute, in-progress deadline, payload hash, stored response), and the start
// semantics (one run per organization and key, replay, conflicts, failures not remembered, a
// crashed start's lock taken over).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { DynamoIdempotencyStore, IDEMPOTENCY_TTL_ATTRIBUTE } from '../../lambdas/adapters/dynamodb/idempotency';
import {
  createIdempotentStarts,
  IDEMPOTENCY_WINDOW_SECONDS,
  type StartResponse,
} from '../../lambdas/composition/idempotency';
import { AppError } from '../../lambdas/domain/errors';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';

let engines: Engines;
let clients: AwsClients;
beforeAll(async () => {
  engines = await startEngines();
  clients = createClients({ ...loadConfig({}), endpoints: { dynamodb: engines.dynamodbEndpoint } });
});
afterAll(async () => {
  clients?.dynamodb.destroy();
  await engines?.stop();
});

/** Attribute-value form to plain values (only S and N occur in these items). */
function unmarshall(item: Record<string, { S?: string; N?: string }>): Record<string, any> {
  return Object.fromEntries(Object.entries(item).map(([name, v]) => [name, v.N !== undefined ? Number(v.N) : v.S]));
}

/** One idempotency item as stored: attribute-value form. */
async function rawItem(pk: string) {
  const out = await clients.dynamodb.send(
    new GetItemCommand({
      TableName: engines.tableName,
      Key: { pk: { S: pk }, sk: { S: 'IDEMPOTENCY' } },
      ConsistentRead: true,
    }),
  );
  return out.Item as Record<string, { S?: string; N?: string }> | undefined;
}

/** A persistence layer configured the way createIdempotentStarts configures it. */
function configuredStore(clock?: () => number) {
  const store = new DynamoIdempotencyStore(clients.documents, engines.tableName, clock);
  store.configure({
    config: new IdempotencyConfig({
      eventKeyJmesPath: '[org, key]',
      payloadValidationJmesPath: '[operation, body]',
      expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
      hashFunction: 'sha256',
    }),
    keyPrefix: 'start',
  });
  return store;
}

describe('persistence layer wire format', () => {
  it('writes INPROGRESS, then COMPLETED with the response, under the key schema with a TTL', async () => {
    const store = configuredStore();
    const data = { org: 'wire-org', key: 'k-1', operation: 'v2ExtractStart', body: { urls: ['https://a.example/p'] } };
    const before = Math.floor(Date.now() / 1000);
    await store.saveInProgress(data, 30_000);
    const hashed = (store as unknown as { getHashedIdempotencyKey(d: unknown): string }).getHashedIdempotencyKey(data);
    expect(hashed).toMatch(/^start#[A-Za-z0-9+/]{43}=$/); // sha256, base64
    const pk = `IDEMPOTENCY#${hashed}`;

    const inProgress = await rawItem(pk);
    expect(inProgress).toBeDefined();
    const a = unmarshall(inProgress!);
    expect(Object.keys(inProgress!).sort()).toEqual(
      [
        'entity',
        IDEMPOTENCY_TTL_ATTRIBUTE,
        'idempotencyKey',
        'inProgressUntil',
        'payloadHash',
        'pk',
        'sk',
        'status',
      ].sort(),
    );
    expect(inProgress![IDEMPOTENCY_TTL_ATTRIBUTE]).toHaveProperty('N'); // DynamoDB TTL needs a number
    expect(a).toMatchObject({ pk, sk: 'IDEMPOTENCY', entity: 'idempotencyRecord', status: 'INPROGRESS' });
    expect(a.idempotencyKey).toBe(hashed);
    expect(a[IDEMPOTENCY_TTL_ATTRIBUTE]).toBeGreaterThanOrEqual(before + IDEMPOTENCY_WINDOW_SECONDS);
    expect(a[IDEMPOTENCY_TTL_ATTRIBUTE]).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + IDEMPOTENCY_WINDOW_SECONDS);
    expect(a.inProgressUntil).toBeGreaterThan(Date.now());
    expect(a.payloadHash).toMatch(/^[A-Za-z0-9+/]{43}=$/);

    const response: StartResponse = { status: 202, body: { execution_id: 'e-1', status: 'pending' } };
    await store.saveSuccess(data, response as never);
    const completed = unmarshall((await rawItem(pk))!);
    expect(completed.status).toBe('COMPLETED');
    expect(completed.inProgressUntil).toBeUndefined();
    expect(JSON.parse(completed.response)).toEqual(response);
    expect(completed.payloadHash).toBe(a.payloadHash);

    // Read back through Powertools: the same record.
    const record = await store.getRecord(data);
    expect(record.getStatus()).toBe('COMPLETED');
    expect(record.getResponse()).toEqual(response);

    // Another body under the same key fails Powertools' payload validation.
    await expect(store.getRecord({ ...data, body: { urls: ['https://b.example/p'] } })).rejects.toMatchObject({
      name: 'IdempotencyValidationError',
    });

    await store.deleteRecord(data);
    expect(await rawItem(pk)).toBeUndefined();
  });

  it('refuses a second in-progress put, and lets an expired or abandoned record be taken over', async () => {
    let now = Date.now();
    const store = configuredStore(() => now);
    const data = { org: 'wire-org', key: 'k-2', operation: 'v1CrawlStart', body: { vendor: 'a.example' } };
    await store.saveInProgress(data, 1_000);
    await expect(store.saveInProgress(data, 1_000)).rejects.toMatchObject({
      name: 'IdempotencyItemAlreadyExistsError',
    });
    // The first start crashed: its in-progress deadline passes and the next request takes over.
    now += 2_000;
    await expect(store.saveInProgress(data, 1_000)).resolves.toBeUndefined();
    // Completed records are kept until they expire, then count as absent.
    await store.saveSuccess(data, { status: 202, body: {} } as never);
    await expect(store.saveInProgress(data, 1_000)).rejects.toMatchObject({
      name: 'IdempotencyItemAlreadyExistsError',
    });
    now += (IDEMPOTENCY_WINDOW_SECONDS + 5) * 1000;
    await expect(store.saveInProgress(data, 1_000)).resolves.toBeUndefined();
  });
});

describe('idempotent starts', () => {
  const starts = () => createIdempotentStarts(clients.documents, engines.tableName);
  const counter = () => {
    let runs = 0;
    const start = async (): Promise<StartResponse> => {
      runs++;
      return { status: 202, body: { execution_id: `exec-${runs}`, status: 'pending' } };
    };
    return { start, runs: () => runs };
  };

  it('runs once per organization and key, replaying the first response', async () => {
    const idem = starts();
    const { start, runs } = counter();
    const request = {
      org: 'org-a',
      key: 'retry-1',
      operation: 'v2ExtractStart',
      body: { urls: ['https://x.example/1'] },
    };
    const first = await idem.run(request, start);
    const second = await idem.run({ ...request, body: { urls: ['https://x.example/1'] } }, start);
    expect(first).toEqual({ status: 202, body: { execution_id: 'exec-1', status: 'pending' }, replayed: false });
    expect(second).toEqual({ ...first, replayed: true });
    expect(runs()).toBe(1);
    // Another organization with the same key is another start.
    const other = await idem.run({ ...request, org: 'org-b' }, start);
    expect(other.body).toEqual({ execution_id: 'exec-2', status: 'pending' });
    expect(other.replayed).toBe(false);
  });

  it('answers CONFLICT for another body, another operation, or a repeat while the first runs', async () => {
    const idem = starts();
    const { start } = counter();
    const request = { org: 'org-c', key: 'k', operation: 'v2CrawlStart', body: { vendor: 'a.example' } };
    await idem.run(request, start);
    await expect(idem.run({ ...request, body: { vendor: 'b.example' } }, start)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(idem.run({ ...request, operation: 'v1CrawlStart' }, start)).rejects.toBeInstanceOf(AppError);

    let release!: () => void;
    const slow = () =>
      new Promise<StartResponse>((resolve) => {
        release = () => resolve({ status: 202, body: { execution_id: 'slow' } });
      });
    const inFlight = idem.run({ ...request, key: 'slow' }, slow);
    // Bounded wait until the first request has stored its in-progress record.
    for (let i = 0; i < 200 && !release; i++) await new Promise((r) => setTimeout(r, 10));
    await expect(idem.run({ ...request, key: 'slow' }, start)).rejects.toMatchObject({ code: 'CONFLICT' });
    release();
    expect((await inFlight).body).toEqual({ execution_id: 'slow' });
    expect((await idem.run({ ...request, key: 'slow' }, start)).replayed).toBe(true);
  });

  it('does not remember a failed start (thrown or answered), so a retry runs again', async () => {
    const idem = starts();
    const request = { org: 'org-d', key: 'fails-once', operation: 'v1ProductsStart', body: { urls: [] } };
    await expect(
      idem.run(request, async () => {
        throw new AppError('INVALID_PARAMETER', 'bad');
      }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    const answered = await idem.run(request, async () => ({ status: 503, body: { error: 'later' } }));
    expect(answered).toEqual({ status: 503, body: { error: 'later' }, replayed: false });
    const ok = await idem.run(request, async () => ({ status: 200, body: { success: true, execution_id: 'x' } }));
    expect(ok.replayed).toBe(false);
    expect((await idem.run(request, async () => ({ status: 200, body: {} }))).body).toEqual({
      success: true,
      execution_id: 'x',
    });
  });
});
