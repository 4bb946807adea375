// Idempotent starts over real HTTP through the local service (embedded DynamoDB, SQS and Step
// Functions, the store simulator): a retried start with the same Idempotency-Key answers the
// first response (same execution id) and starts nothing; another body is 409 CONFLICT in the
// family's error shape; keys are scoped per organization; a failed start is not remembered; bad
// keys are 400. Every response is checked against the served OpenAPI document, which documents
// the header on every start operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { validateResponse } from './helpers/openapi-validator';
import { IDEMPOTENT_OPERATIONS } from '../../lambdas/contracts/idempotency';

const KEY_A = 'idempotency-key-org-a-000001';
const KEY_B = 'idempotency-key-org-b-000001';

let service: LocalService;
let sim: StoreSimulator;
let doc: Record<string, any>;

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

/** A JSON call with an API key and optional Idempotency-Key, checked against the served document. */
async function call(
  method: string,
  path: string,
  body: unknown,
  apiKey: string,
  idempotencyKey?: string,
): Promise<Reply> {
  const headers: Record<string, string> = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const response = await fetch(`${service.url}${path}`, { method, headers, body: JSON.stringify(body) });
  const parsed: any = await response.json();
  expect(
    validateResponse(doc, { method, path, status: response.status, headers: response.headers, body: parsed }),
  ).toEqual([]);
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Every execution id of the caller's list (one page of 100 is enough here). */
async function listed(path: string, apiKey: string): Promise<string[]> {
  const response = await fetch(`${service.url}${path}?page_size=100&limit=100`, { headers: { 'x-api-key': apiKey } });
  const body = (await response.json()) as any;
  expect(response.status).toBe(200);
  const items: any[] = body.data ?? body.executions ?? body.results ?? [];
  return items.map((item) => item.execution_id ?? item.id);
}

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 50 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-idempotency-')),
    env: { PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0', PDS_FAULT_RATE: '0', PDS_DUPLICATE_RATE: '0' },
    bootstrapKeys: `${KEY_A}:idem-org-a,${KEY_B}:idem-org-b`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
});

describe('Idempotency-Key on start operations', () => {
  it('is documented on every start operation, with its 409', () => {
    const starts = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([, methods]) =>
      Object.values(methods).filter((op: any) => IDEMPOTENT_OPERATIONS.has(op.operationId)),
    );
    expect(starts).toHaveLength(IDEMPOTENT_OPERATIONS.size);
    for (const op of starts) {
      const header = op.parameters.find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(header, op.operationId).toMatchObject({ required: false, schema: { maxLength: 255 } });
      expect(op.responses['409'].description).toMatch(/Idempotency-Key/);
    }
    // Operations that start nothing do not take it.
    expect(doc.paths['/api/products'].post.parameters.some((p: any) => p.name === 'Idempotency-Key')).toBe(false);
  });

  it('v2: a retried start answers the first response, and only one execution exists', async () => {
    const body = { urls: [sim.store('jsonld-shop.test').productUrl(1), sim.store('woo-home.test').productUrl(2)] };
    const before = await listed('/v2/extract', KEY_A);
    const first = await call('POST', '/v2/extract', body, KEY_A, 'v2-retry-0001');
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retries = await Promise.all([1, 2, 3].map(() => call('POST', '/v2/extract', body, KEY_A, 'v2-retry-0001')));
    for (const retry of retries) {
      expect(retry.status).toBe(202);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    }
    const after = await listed('/v2/extract', KEY_A);
    expect(after.filter((id) => !before.includes(id))).toEqual([first.body.execution_id]);

    // The same key with another body: 409 CONFLICT in the v2 shape, and still nothing started.
    const other = await call('POST', '/v2/extract', { urls: [body.urls[0]] }, KEY_A, 'v2-retry-0001');
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('CONFLICT');
    expect(other.body.error.message).toMatch(/Idempotency-Key/);
    expect(await listed('/v2/extract', KEY_A)).toEqual(after);

    // Without a key every request starts again.
    const plain = await call('POST', '/v2/extract', body, KEY_A);
    expect(plain.status).toBe(202);
    expect(plain.body.execution_id).not.toBe(first.body.execution_id);
  });

  it('is scoped per organization: another organization with the same key and body starts its own', async () => {
    const body = { urls: [sim.store('shopify-apparel.test').productUrl(3)] };
    const a = await call('POST', '/v2/extract', body, KEY_A, 'shared-key-0001');
    const b = await call('POST', '/v2/extract', body, KEY_B, 'shared-key-0001');
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.execution_id).not.toBe(a.body.execution_id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await listed('/v2/extract', KEY_B)).toContain(b.body.execution_id);
    expect(await listed('/v2/extract', KEY_B)).not.toContain(a.body.execution_id);
  });

  it('v1: same execution id on retry; another body is 409 in the v1 shape', async () => {
    const body = { urls: [sim.store('jsonld-shop.test').productUrl(4)] };
    const first = await call('POST', '/v1/products', body, KEY_A, 'v1-retry-0001');
    expect(first.status).toBe(200);
    const retry = await call('POST', '/v1/products', body, KEY_A, 'v1-retry-0001');
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const ids = await listed('/v1/products', KEY_A);
    expect(ids.filter((id) => id === first.body.execution_id)).toHaveLength(1);

    const conflict = await call('POST', '/v1/products', { urls: [body.urls[0], body.urls[0]] }, KEY_A, 'v1-retry-0001');
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ code: 'CONFLICT' });
    expect(typeof conflict.body.error).toBe('string');
    // The same key on another start operation is a conflict too (one key space per organization).
    const elsewhere = await call('POST', '/v2/extract', body, KEY_A, 'v1-retry-0001');
    expect(elsewhere.status).toBe(409);
  });

  it('v2 crawl: one crawl for repeated starts with one key', async () => {
    const body = { vendor: 'jsonld-shop.test', max_listings: 5 };
    const first = await call('POST', '/v2/crawl', body, KEY_B, 'crawl-once-0001');
    expect(first.status).toBe(202);
    const retry = await call('POST', '/v2/crawl', body, KEY_B, 'crawl-once-0001');
    expect(retry.body.execution_id).toBe(first.body.execution_id);
    const crawls = await listed('/v2/crawl', KEY_B);
    expect(crawls.filter((id) => id === first.body.execution_id)).toHaveLength(1);
    expect(crawls).toHaveLength(1);
  });

  it('does not remember a start that failed, so the retry with the same key runs', async () => {
    const failed = await call('POST', '/v2/extract', { urls: ['not a url at all'] }, KEY_A, 'fails-first-0001');
    expect(failed.status).toBe(400);
    expect(failed.body.error.code).toBe('INVALID_PARAMETER');
    const body = { urls: [sim.store('woo-home.test').productUrl(5)] };
    const ok = await call('POST', '/v2/extract', body, KEY_A, 'fails-first-0001');
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses keys that are empty, too long or not printable ASCII with 400 naming the header', async () => {
    const body = { urls: [sim.store('woo-home.test').productUrl(6)] };
    for (const bad of ['x'.repeat(256), 'tab\tinside', '   ']) {
      const reply = await call('POST', '/v2/extract', body, KEY_A, bad);
      expect(reply.status, JSON.stringify(bad)).toBe(400);
      expect(reply.body.error.code).toBe('INVALID_PARAMETER');
      expect(reply.body.error.message).toMatch(/Idempotency-Key/);
    }
    const v1 = await call('POST', '/v1/products', body, KEY_A, 'y'.repeat(256));
    expect(v1.status).toBe(400);
    expect(v1.body).toMatchObject({ code: 'INVALID_PARAMETER' });
    // 255 characters is the longest valid key.
    expect((await call('POST', '/v2/extract', body, KEY_A, 'z'.repeat(255))).status).toBe(202);
  });
});
