// Signed webhooks end to end: the local runtime (`npm start`'s service: embedded DynamoDB and
// SQS, the Step Functions service, the SQS pollers calling the webhook worker) extracts and
// crawls against the store simulator, and a webhook receiver on loopback (reached through
// PDS_RESOLVE, the switch that also lets the fetcher reach the simulator) checks every
// signature, answers 500 once and sees the redelivery with the same delivery id, and sees each
// event once. Loopback and private targets given directly are refused at start (400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { validatedClient } from './helpers/validated-client';
import { validateSchema } from './helpers/openapi-validator';
import { verifySignature } from '../../lambdas/domain/webhooks/model';

const KEY_A = 'webhooks-e2e-key-org-a-0001';
const KEY_B = 'webhooks-e2e-key-org-b-0001';
const HOOKS_HOST = 'hooks.test';
const POLL_MS = 100;
const MAX_POLLS = 900;

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  /** The status the receiver answered. */
  answered: number;
  signatureValid: boolean;
}

let service: LocalService;
let sim: StoreSimulator;
let receiver: Server;
let receiverPort: number;
let doc: Record<string, any>;
/** The org's secret as GET /v2/webhooks/secret gives it (rotations update it). */
const secrets = new Map<string, string>();
const received: Received[] = [];
/** Paths that answer 500 to their first request; paths that always answer 500. */
const failOnce = new Set<string>();
const failAlways = new Set<string>();
const failedOnce = new Set<string>();

const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY_A);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startReceiver(): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
      const org = path.split('/')[2] ?? '';
      const secret = secrets.get(org) ?? '';
      let answered = 200;
      if (failAlways.has(path)) answered = 500;
      else if (failOnce.has(path) && !failedOnce.has(path)) {
        failedOnce.add(path);
        answered = 500;
      }
      received.push({
        path,
        headers,
        body,
        json: JSON.parse(body),
        answered,
        signatureValid: verifySignature(
          secret,
          { timestamp: headers['x-pds-timestamp'], signature: headers['x-pds-signature'] },
          body,
          Date.now(),
        ),
      });
      response.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'boom');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const hook = (org: string, name: string) => `http://${HOOKS_HOST}/hooks/${org}/${name}`;
const at = (org: string, name: string) => received.filter((r) => r.path === `/hooks/${org}/${name}`);

/** Waits until the receiver has `predicate` true for a path (bounded). */
async function waitFor(what: string, predicate: () => boolean): Promise<void> {
  for (let i = 0; i < MAX_POLLS; i++) {
    if (predicate()) return;
    await sleep(POLL_MS);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The deliveries a receiver accepted (2xx), one per delivery id, by event. */
function acceptedByEvent(list: Received[]): Record<string, Received[]> {
  const out: Record<string, Received[]> = {};
  for (const r of list.filter((x) => x.answered === 200)) (out[r.json.event] ??= []).push(r);
  return out;
}

async function pollStatus(path: string): Promise<any> {
  for (let i = 0; i < MAX_POLLS; i++) {
    const reply = await call('GET', path);
    expect(reply.status).toBe(200);
    if (reply.body.status === 'completed' || reply.body.status === 'failed') return reply.body;
    await sleep(POLL_MS);
  }
  throw new Error(`${path} did not finish`);
}

beforeAll(async () => {
  receiver = await startReceiver();
  receiverPort = (receiver.address() as AddressInfo).port;
  sim = await startStoreSimulator({ storeSizes: { 'shopify-collections.test': 40 } });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-webhooks-e2e-')),
    env: {
      PDS_RESOLVE: `${sim.resolveEnv},${HOOKS_HOST}=127.0.0.1:${receiverPort}`,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
      // Retries after 1 s (three of them): the schedule is configuration, 1-5-15-60 min by default.
      PDS_WEBHOOK_RETRY_DELAYS: '1,1,1',
      PDS_WEBHOOK_ALLOW_PRIVATE: '',
      PDS_LOG_LEVEL: 'error',
    },
    bootstrapKeys: `${KEY_A}:org-a,${KEY_B}:org-b`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
  for (const [org, key] of [
    ['org-a', KEY_A],
    ['org-b', KEY_B],
  ]) {
    const reply = await call('GET', '/v2/webhooks/secret', undefined, key);
    expect(reply.status).toBe(200);
    expect(reply.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    secrets.set(org, reply.body.secret);
  }
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('webhooks', () => {
  it('an extraction: signed events, a 500 answered once is redelivered with the same delivery id, each event once', async () => {
    const name = 'extract';
    failOnce.add(`/hooks/org-a/${name}`);
    const store = sim.store('jsonld-shop.test');
    const urls = [...Array.from({ length: 6 }, (_, i) => store.productUrl(20 + i)), `${store.productUrl(1)}-gone`];
    const startedAt = Date.now();
    const started = await call('POST', '/v2/extract', {
      urls,
      webhook: { url: hook('org-a', name), metadata: { order: 'A-17', tags: ['x'] } },
    });
    expect(started.status).toBe(202);
    const id = started.body.execution_id;
    const status = await pollStatus(`/v2/extract/${id}`);
    expect(status.status).toBe('completed');
    await waitFor('the completed event', () => at('org-a', name).some((r) => r.json.event === 'completed'));
    await waitFor('the redelivered started event', () =>
      at('org-a', name).some((r) => r.json.event === 'started' && r.answered === 200),
    );

    const all = at('org-a', name);
    expect(all.every((r) => r.signatureValid)).toBe(true);
    expect(all.every((r) => r.headers['x-pds-signature'].startsWith('v1='))).toBe(true);
    // Every body is what the served document's `webhooks` says a receiver gets.
    const schema = doc.webhooks.executionEvent.post.requestBody.content['application/json'].schema;
    for (const r of all) expect(validateSchema(schema, r.json, doc)).toEqual([]);
    // The first request was answered 500, then redelivered: same id, same body, next attempt.
    const [first] = all;
    expect(first.answered).toBe(500);
    expect(first.json.event).toBe('started');
    const again = all.filter((r) => r.headers['x-pds-delivery-id'] === first.headers['x-pds-delivery-id']);
    expect(again.map((r) => [r.headers['x-pds-attempt'], r.answered])).toEqual([
      ['1', 500],
      ['2', 200],
    ]);
    expect(again[1].body).toBe(first.body);
    expect(first.headers['x-pds-delivery-id']).toBe(first.json.id);
    expect(first.headers['x-pds-event']).toBe('started');

    const accepted = acceptedByEvent(all);
    expect(accepted.started).toHaveLength(1);
    expect(accepted.completed).toHaveLength(1);
    expect(accepted.failed).toBeUndefined();
    // At most one progress event per 10 s window, each a distinct delivery.
    const progress = accepted.progress ?? [];
    expect(new Set(progress.map((r) => r.json.id)).size).toBe(progress.length);
    // The first batch's progress is sent at once (the execution is still running then); a
    // second one only after 10 s.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThanOrEqual(1 + Math.floor((Date.now() - startedAt) / 10_000));
    for (const r of progress) expect(r.json.data.status).toBe('running');
    // Every delivery id was accepted once (a 2xx is never redelivered).
    const ids = all.filter((r) => r.answered === 200).map((r) => r.json.id);
    expect(new Set(ids).size).toBe(ids.length);

    const completed = accepted.completed[0].json;
    expect(completed).toMatchObject({
      event: 'completed',
      data: { execution_id: id, kind: 'extract-urls', status: 'completed', error: null },
      metadata: { order: 'A-17', tags: ['x'] },
    });
    const result = status.meta.result;
    // The counts are the status's, under the same names without the products_ prefix.
    expect(completed.data.counts).toEqual({
      requested: result.products_requested,
      successful: result.products_successful,
      failed: result.products_failed,
      failed_by_reason: result.products_failed_by_reason,
      invalid: result.products_invalid,
      invalid_by_reason: result.products_invalid_by_reason,
      pending: result.products_pending,
      credits_used: status.meta.credits_used,
    });

    // The delivery log: the started delivery's two attempts, every delivery delivered.
    const log = await call('GET', `/v2/webhooks/deliveries?execution_id=${id}`);
    expect(log.status).toBe(200);
    expect(log.body.execution_id).toBe(id);
    const logged = log.body.data as any[];
    expect(logged.map((d) => d.delivery_id).sort()).toEqual([...new Set(all.map((r) => r.json.id))].sort());
    expect(logged.every((d) => d.state === 'delivered')).toBe(true);
    const startedLog = logged.find((d) => d.event === 'started');
    expect(startedLog.attempts.map((a: any) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(startedLog.attempts[0].error).toBe('HTTP 500');
    expect(startedLog.url).toBe(hook('org-a', name));

    // Another organization sees none of it.
    const other = await call('GET', `/v2/webhooks/deliveries?execution_id=${id}`, undefined, KEY_B);
    expect(other.status).toBe(404);
  });

  it('a crawl: started and completed once each, only the chosen events', async () => {
    const name = 'crawl';
    const started = await call('POST', '/v2/crawl', {
      vendor: 'shopify-collections.test',
      webhook: { url: hook('org-a', name), events: ['completed', 'started'] },
    });
    expect(started.status).toBe(202);
    const id = started.body.execution_id;
    expect((await pollStatus(`/v2/crawl/${id}`)).status).toBe('completed');
    await waitFor('the crawl completed event', () => at('org-a', name).some((r) => r.json.event === 'completed'));
    const all = at('org-a', name);
    expect(all.every((r) => r.signatureValid && r.answered === 200)).toBe(true);
    expect(all.map((r) => r.json.event).sort()).toEqual(['completed', 'started']);
    const completed = all.find((r) => r.json.event === 'completed')!.json;
    expect(completed.data).toMatchObject({ execution_id: id, kind: 'crawl', status: 'completed' });
    expect(completed.data.counts).toEqual({
      collections_total: expect.any(Number),
      listings_total: 40,
      credits_used: 1,
    });
    expect(completed.metadata).toBeNull();
  });

  it('a vendor-mode extraction (v1) of the crawled store sends started and completed once', async () => {
    const name = 'vendor-extract';
    const started = await call('POST', '/v1/extract', {
      domain: 'shopify-collections.test',
      max_products: 5,
      enable_enrichment: false,
      enable_reviews: false,
      enable_image_tags: false,
      webhook: { url: hook('org-a', name), events: ['started', 'completed', 'failed'] },
    });
    expect(started.status).toBe(200);
    const id = started.body.execution_id;
    await waitFor('the terminal event', () =>
      at('org-a', name).some((r) => r.json.event === 'completed' || r.json.event === 'failed'),
    );
    await sleep(500);
    const all = at('org-a', name);
    expect(all.every((r) => r.signatureValid && r.answered === 200)).toBe(true);
    expect(all.map((r) => r.json.event).sort()).toEqual(['completed', 'started']);
    const completed = all.find((r) => r.json.event === 'completed')!.json;
    expect(completed.data).toMatchObject({ execution_id: id, kind: 'extract-vendor', status: 'completed' });
  });

  it('an agentic search (v2) sends started and one terminal event', async () => {
    const name = 'agentic';
    const started = await call('POST', '/v2/agentic-search', {
      query: 'shoes',
      page_size: 2,
      webhook: { url: hook('org-a', name), metadata: { session: 's-1' } },
    });
    expect(started.status).toBe(202);
    const id = started.body.execution_id;
    const status = await pollStatus(`/v2/agentic-search/${id}`);
    await waitFor('the terminal event', () => at('org-a', name).some((r) => r.json.event === status.status));
    await sleep(500);
    const accepted = acceptedByEvent(at('org-a', name));
    expect(accepted.started).toHaveLength(1);
    expect(accepted[status.status]).toHaveLength(1);
    expect(accepted[status.status === 'completed' ? 'failed' : 'completed']).toBeUndefined();
    expect(accepted[status.status][0].json).toMatchObject({
      data: { execution_id: id, kind: 'agentic', status: status.status },
      metadata: { session: 's-1' },
    });
  });

  it('a failing crawl (v1) sends failed once, with the error', async () => {
    const name = 'crawl-failing';
    const started = await call('POST', '/v1/crawl', {
      domain: 'robots-blocked.test',
      webhook: { url: hook('org-a', name) },
    });
    expect(started.status).toBe(200);
    const id = started.body.execution_id;
    await waitFor('the failed event', () => at('org-a', name).some((r) => r.json.event === 'failed'));
    const all = at('org-a', name);
    expect(all.every((r) => r.signatureValid)).toBe(true);
    const accepted = acceptedByEvent(all);
    expect(accepted.started).toHaveLength(1);
    expect(accepted.failed).toHaveLength(1);
    expect(accepted.completed).toBeUndefined();
    expect(accepted.failed[0].json.data).toMatchObject({ execution_id: id, status: 'failed' });
    expect(accepted.failed[0].json.data.error).toMatch(/robots\.txt/);
  });

  it('a cancelled extraction (v1) sends failed with the cancel message', async () => {
    const name = 'cancelled';
    const slow = sim.store('slow.test');
    const started = await call('POST', '/v1/products', {
      urls: Array.from({ length: 20 }, (_, i) => slow.productUrl(i)),
      webhook: { url: hook('org-a', name), events: ['failed', 'completed'] },
    });
    expect(started.status).toBe(200);
    const id = started.body.execution_id;
    expect((await call('DELETE', `/v1/products/${id}`)).status).toBe(200);
    await waitFor('the failed event', () => at('org-a', name).some((r) => r.json.event === 'failed'));
    await sleep(1500);
    const all = at('org-a', name);
    expect(all.map((r) => r.json.event)).toEqual(['failed']);
    expect(all[0].json.data).toMatchObject({ execution_id: id, status: 'failed', error: 'Execution was cancelled' });
    expect(all[0].signatureValid).toBe(true);
  });

  it('a receiver that keeps failing: attempts with backoff, then the delivery is failed in the log', async () => {
    const name = 'down';
    failAlways.add(`/hooks/org-b/${name}`);
    const started = await call(
      'POST',
      '/v2/crawl',
      { vendor: 'robots-blocked.test', webhook: { url: hook('org-b', name), events: ['started'] } },
      KEY_B,
    );
    expect(started.status).toBe(202);
    const id = started.body.execution_id;
    const find = async () =>
      ((await call('GET', `/v2/webhooks/deliveries?execution_id=${id}`, undefined, KEY_B)).body.data as any[])[0];
    let delivery: any;
    for (let i = 0; i < MAX_POLLS && delivery?.state !== 'failed'; i++) {
      delivery = await find();
      if (delivery?.state !== 'failed') await sleep(POLL_MS);
    }
    expect(delivery.state).toBe('failed');
    // One attempt plus one per configured delay (1,1,1), all answered 500, each a second apart at least.
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([500, 500, 500, 500]);
    const times = delivery.attempts.map((a: any) => Date.parse(a.at));
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(900);
    expect(delivery.next_attempt_at).toBeNull();
    const seen = at('org-b', name);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((r) => r.headers['x-pds-delivery-id'])).size).toBe(1);
    expect(seen.every((r) => r.signatureValid)).toBe(true);
  });

  it('a rotated secret signs the next deliveries', async () => {
    const rotated = await call('POST', '/v2/webhooks/secret', undefined, KEY_B);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secrets.get('org-b'));
    secrets.set('org-b', rotated.body.secret);
    expect((await call('GET', '/v2/webhooks/secret', undefined, KEY_B)).body.secret).toBe(rotated.body.secret);
    const name = 'rotated';
    const started = await call(
      'POST',
      '/v2/crawl',
      { vendor: 'robots-blocked.test', webhook: { url: hook('org-b', name), events: ['started'] } },
      KEY_B,
    );
    expect(started.status).toBe(202);
    await waitFor('the started event', () => at('org-b', name).length > 0);
    expect(at('org-b', name)[0].signatureValid).toBe(true);
  });

  it('loopback, private and malformed targets are refused at start in the family shape; nothing starts', async () => {
    const before = (await call('GET', '/v2/extract')).body.pagination.total_items;
    const url = sim.store('jsonld-shop.test').productUrl(1);
    const refused = [
      `http://127.0.0.1:${receiverPort}/hook`,
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://user:pw@example.com/hook',
    ];
    for (const target of refused) {
      const v2 = await call('POST', '/v2/extract', { urls: [url], webhook: { url: target } });
      expect(v2.status, target).toBe(400);
      expect(v2.body.error.code).toBe('INVALID_PARAMETER');
      expect(v2.body.error.message).toMatch(/^webhook\.url must not/);
    }
    const v1 = await call('POST', '/v1/crawl', { domain: 'html-only.test', webhook: { url: 'http://127.0.0.1/x' } });
    expect(v1.status).toBe(400);
    expect(v1.body.code).toBe('INVALID_PARAMETER');
    expect(v1.body.error).toMatch(/non-public address/);
    const agentic = await call('POST', '/v2/agentic-search', {
      query: 'red dress',
      webhook: { url: 'http://192.168.1.1/x' },
    });
    expect(agentic.status).toBe(400);

    const invalid: Array<[unknown, RegExp]> = [
      [{ url: 'ftp://example.com/x' }, /absolute http\(s\) URL/],
      [{ url: 'not a url' }, /absolute http\(s\) URL/],
      [{}, /webhook\.url/],
      ['http://example.com', /webhook must be an object/],
      [{ url: 'https://example.com/x', events: ['finished'] }, /webhook\.events entries must be one of/],
      [{ url: 'https://example.com/x', events: [] }, /at least one event/],
      [{ url: 'https://example.com/x', events: ['started', 'started'] }, /must not repeat/],
      [{ url: 'https://example.com/x', metadata: 'x' }, /webhook\.metadata must be a JSON object/],
      [{ url: 'https://example.com/x', metadata: { blob: 'x'.repeat(3000) } }, /at most 2048 bytes/],
    ];
    for (const [webhook, message] of invalid) {
      const reply = await call('POST', '/v2/extract', { urls: [url], webhook });
      expect(reply.status, JSON.stringify(webhook)).toBe(400);
      expect(reply.body.error.message).toMatch(message);
    }
    expect((await call('GET', '/v2/extract')).body.pagination.total_items).toBe(before);
    // The delivery log needs an execution id, and an unknown one is 404.
    expect((await call('GET', '/v2/webhooks/deliveries')).status).toBe(400);
    expect((await call('GET', '/v2/webhooks/deliveries?execution_id=extract-urls-nope')).status).toBe(404);
  });
});

describe('webhooks across a restart of the local service', () => {
  it('a delivery waiting for its retry when the service stops is delivered after it starts again', async () => {
    const name = 'restart';
    const path = `/hooks/org-a/${name}`;
    failAlways.add(path);
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-webhooks-restart-'));
    const boot = () =>
      startLocalService({
        port: 0,
        dataDir,
        env: {
          PDS_RESOLVE: `${sim.resolveEnv},${HOOKS_HOST}=127.0.0.1:${receiverPort}`,
          PDS_CRAWL_DELAY_MS: '0',
          PDS_WEBHOOK_RETRY_DELAYS: '5',
          PDS_LOG_LEVEL: 'error',
        },
        bootstrapKeys: `${KEY_A}:org-a`,
        queueRetrySeconds: 1,
        log: () => undefined,
      });
    let first: LocalService | undefined = await boot();
    let second: LocalService | undefined;
    try {
      const reply = await fetch(`${first.url}/v2/crawl`, {
        method: 'POST',
        headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' },
        body: JSON.stringify({
          vendor: 'robots-blocked.test',
          webhook: { url: hook('org-a', name), events: ['started'] },
        }),
      });
      expect(reply.status).toBe(202);
      const id = ((await reply.json()) as { execution_id: string }).execution_id;
      await waitFor('the first attempt', () => at('org-a', name).length === 1);
      await first.stop(1000);
      first = undefined;
      failAlways.delete(path);
      const before = at('org-a', name).length;
      second = await boot();
      await waitFor('the attempt after the restart', () => at('org-a', name).some((r) => r.answered === 200));
      const all = at('org-a', name);
      expect(before).toBe(1);
      expect(all.map((r) => [r.headers['x-pds-attempt'], r.answered])).toEqual([
        ['1', 500],
        ['2', 200],
      ]);
      expect(new Set(all.map((r) => r.headers['x-pds-delivery-id'])).size).toBe(1);
      expect(all[1].body).toBe(all[0].body);
      const log = await fetch(`${second.url}/v2/webhooks/deliveries?execution_id=${id}`, {
        headers: { 'x-api-key': KEY_A },
      });
      const [delivery] = ((await log.json()) as { data: any[] }).data;
      expect(delivery.state).toBe('delivered');
      expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([500, 200]);
    } finally {
      await first?.stop(1000);
      await second?.stop(1000);
    }
  });
});
