// Webhooks' pure parts (signatures, ids, the backoff setting), the outbound target rules over
// real loopback HTTP, and the use-cases over an in-memory store: each event once, throttled
// progress, retries with the configured backoff in queue-delay hops, the last attempt, the DLQ.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveryIdFor, signature, verifySignature, type DeliveryMessage } from '../../lambdas/domain/webhooks/model';
import { createWebhooks, parseDeliveryMessage } from '../../lambdas/domain/webhooks/service';
import { createWebhookTransport } from '../../lambdas/adapters/webhooks/transport';
import { parseRetryDelays } from '../../lambdas/config';
import type { Execution } from '../../lambdas/domain/executions/model';
import type { WebhookTransport } from '../../lambdas/ports/webhooks';
import type { WebhookSpec } from '../../lambdas/domain/webhooks/model';
import { AppError, notFound } from '../../lambdas/domain/errors';
import { memoryWebhookStore } from '../fakes/webhooks';

describe('signatures and ids', () => {
  it('signs `${timestamp}.${body}` with HMAC-SHA256 (a vector computed with openssl)', () => {
    expect(signature('whsec_test', 1700000000, '{"a":1}')).toBe(
      'v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789',
    );
  });

  it('verifies what it signs and refuses tampering, another secret and stale timestamps', () => {
    const now = 1_700_000_000_000;
    const ts = String(now / 1000);
    const sig = signature('s1', ts, 'body');
    expect(verifySignature('s1', { timestamp: ts, signature: sig }, 'body', now)).toBe(true);
    expect(verifySignature('s1', { timestamp: ts, signature: `v1=00,${sig}` }, 'body', now)).toBe(true);
    expect(verifySignature('s1', { timestamp: ts, signature: sig }, 'body!', now)).toBe(false);
    expect(verifySignature('s2', { timestamp: ts, signature: sig }, 'body', now)).toBe(false);
    expect(verifySignature('s1', { timestamp: ts, signature: sig }, 'body', now + 301_000)).toBe(false);
    expect(verifySignature('s1', { timestamp: undefined, signature: sig }, 'body', now)).toBe(false);
  });

  it('gives one delivery id per execution and event (and progress slot)', () => {
    expect(deliveryIdFor('x', 'started')).toBe(deliveryIdFor('x', 'started'));
    expect(deliveryIdFor('x', 'started')).not.toBe(deliveryIdFor('x', 'completed'));
    expect(deliveryIdFor('x', 'started')).not.toBe(deliveryIdFor('y', 'started'));
    expect(deliveryIdFor('x', 'progress', 1)).not.toBe(deliveryIdFor('x', 'progress', 2));
    expect(deliveryIdFor('x', 'failed')).toMatch(/^whd_[0-9a-f]{32}$/);
  });

  it('reads the backoff from configuration', () => {
    expect(parseRetryDelays(undefined)).toEqual([60, 300, 900, 3600]);
    expect(parseRetryDelays('1, 2,3')).toEqual([1, 2, 3]);
    expect(parseRetryDelays('0')).toEqual([0]);
    expect(() => parseRetryDelays('1,x')).toThrow(/PDS_WEBHOOK_RETRY_DELAYS/);
    expect(() => parseRetryDelays('-1')).toThrow(/PDS_WEBHOOK_RETRY_DELAYS/);
    expect(() => parseRetryDelays('1.5')).toThrow(/PDS_WEBHOOK_RETRY_DELAYS/);
  });

  it('parses queue messages and drops malformed ones', () => {
    const good: DeliveryMessage = {
      delivery_id: 'd',
      execution_id: 'e',
      org: 'o',
      event: 'started',
      url: 'http://x.test/',
      body: '{}',
      attempt: 1,
    };
    expect(parseDeliveryMessage(JSON.stringify(good))).toEqual(good);
    expect(parseDeliveryMessage('{')).toBeNull();
    expect(parseDeliveryMessage(JSON.stringify({ ...good, event: 'other' }))).toBeNull();
    expect(parseDeliveryMessage(JSON.stringify({ ...good, attempt: 0 }))).toBeNull();
    expect(parseDeliveryMessage(JSON.stringify({ ...good, due_at: 'soon' }))).toBeNull();
  });
});

describe('outbound target rules (the fetcher address check)', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ url: string; headers: IncomingHttpHeaders; body: string }> = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ url: request.url!, headers: request.headers, body });
        response.writeHead(request.url === '/teapot' ? 418 : 204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses private, loopback, link-local and reserved targets, credentials and other schemes', async () => {
    const transport = createWebhookTransport();
    for (const url of [
      'http://127.0.0.1/x',
      'http://10.0.0.8/x',
      'http://172.16.3.4/x',
      'http://192.168.0.1/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://[fd00::1]/x',
      'http://0.0.0.0/x',
      'http://localhost:8080/x',
      'http://api.localhost/x',
      'http://intranet/x',
    ]) {
      expect(await transport.refusal(url), url).toMatch(/must not target a non-public/);
    }
    expect(await transport.refusal('ftp://example.com/x')).toMatch(/absolute http\(s\) URL/);
    expect(await transport.refusal('http://a:b@example.com/x')).toMatch(/credentials/);
    expect(await transport.refusal('https://93.184.216.34/hook')).toBeNull();
    await expect(transport.post(`http://127.0.0.1:${port}/x`, {}, '{}')).rejects.toThrow(/non-public/);
    expect(seen).toHaveLength(0);
  });

  it('reaches PDS_RESOLVE hosts (with their Host header), and loopback only when allowed', async () => {
    const mapped = createWebhookTransport({ resolve: { 'hooks.test': `127.0.0.1:${port}` } });
    expect(await mapped.refusal('https://hooks.test/in')).toBeNull();
    expect(await mapped.post('http://hooks.test/in?a=1', { 'x-test': '1' }, '{"a":1}')).toEqual({ status: 204 });
    expect(seen.at(-1)).toMatchObject({ url: '/in?a=1', body: '{"a":1}' });
    expect(seen.at(-1)!.headers).toMatchObject({ host: 'hooks.test', 'x-test': '1', 'content-length': '7' });
    expect(await mapped.post('http://hooks.test/teapot', {}, '')).toEqual({ status: 418 });

    const open = createWebhookTransport({ allowPrivate: true });
    expect(await open.refusal(`http://127.0.0.1:${port}/x`)).toBeNull();
    expect(await open.post(`http://127.0.0.1:${port}/open`, {}, 'x')).toEqual({ status: 204 });
  });
});

describe('webhook use-cases', () => {
  const execution = (patch: Partial<Execution> = {}): Execution => ({
    id: 'extract-urls-1',
    org: 'org-a',
    kind: 'extract-urls',
    status: 'pending',
    error: null,
    created_at: '2026-01-01T00:00:00.000Z',
    start_date: null,
    stop_date: null,
    deadline: '2026-01-02T00:00:00.000Z',
    options: {},
    input: { url_count: 3, requested: 3 },
    counters: {},
    waiting_for: null,
    workflow: 'extract',
    finalized: false,
    ...patch,
  });

  function setup(options: { statuses?: number[]; delays?: number[]; failing?: 'subscription' | 'queue' } = {}) {
    let nowMs = Date.parse('2026-01-01T00:00:00.000Z');
    const memory = memoryWebhookStore();
    const warnings: string[] = [];
    if (options.failing === 'subscription')
      memory.store.putSubscription = async () => {
        throw new AppError('DB_ERROR', 'The database request failed', {}, 'Retry later; the failure was logged');
      };
    const sent: Array<{ message: DeliveryMessage; delaySeconds: number }> = [];
    const posts: Array<{ url: string; headers: Record<string, string>; body: string }> = [];
    const statuses = [...(options.statuses ?? [])];
    const executions = new Map<string, Execution>();
    const transport: WebhookTransport = {
      async post(url, headers, body) {
        posts.push({ url, headers, body });
        const status = statuses.shift() ?? 200;
        if (status === 0) throw new Error('ECONNREFUSED: connect failed');
        return { status };
      },
      refusal: async (url) => (url.includes('10.0.0.1') ? 'must not target a non-public address (10.0.0.1)' : null),
    };
    const webhooks = createWebhooks({
      store: memory.store,
      queue: {
        send: async (message, delaySeconds) => {
          if (options.failing === 'queue') throw new Error('queue unavailable');
          sent.push({ message, delaySeconds });
        },
      },
      transport,
      warn: (message) => void warnings.push(message),
      getExecution: async (id) => executions.get(id) ?? null,
      findExecution: async (org, id) => {
        const found = executions.get(id);
        if (!found || found.org !== org) throw notFound(`Execution ${id} not found`);
        return found;
      },
      now: () => new Date(nowMs),
      retryDelaysSeconds: options.delays ?? [60, 300, 900, 3600],
    });
    return {
      webhooks,
      memory,
      warnings,
      sent,
      posts,
      executions,
      advance: (ms: number) => (nowMs += ms),
      /** What the executions service does for a new execution with a webhook: subscribe, store it, report it created. */
      async subscribe(id: string, spec: WebhookSpec) {
        const created = executions.get(id)!;
        await webhooks.events.subscribe(created, spec);
        await webhooks.events.created(created);
      },
      /** Runs every queued message once (those deferred come back as new messages). */
      async drain() {
        const batch = sent.splice(0);
        const outcomes = [];
        for (const { message } of batch) outcomes.push(await webhooks.deliver(message));
        return outcomes;
      },
    };
  }

  it('refuses a non-public target before anything starts (400 in the family shape)', async () => {
    const { webhooks } = setup();
    await expect(webhooks.check({ url: 'http://10.0.0.1/x' })).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'webhook.url must not target a non-public address (10.0.0.1)',
    });
    await expect(webhooks.check({ url: 'https://hooks.example.com/x' })).resolves.toBeUndefined();
    await expect(webhooks.check(undefined)).resolves.toBeUndefined();
  });

  it('a subscription that cannot be stored fails (the executions service then stores no execution)', async () => {
    const t = setup({ failing: 'subscription' });
    const failure = await t.webhooks.events
      .subscribe(execution(), { url: 'https://h.example/x' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'DB_ERROR', message: 'The database request failed' });
    expect(t.sent).toEqual([]);
  });

  it('keeps the start when only its started event cannot be queued (the subscription stands)', async () => {
    const t = setup({ failing: 'queue' });
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x' });
    expect(t.warnings).toEqual(['Webhook started event not sent']);
    expect(t.memory.subscriptions.get('extract-urls-1')?.url).toBe('https://h.example/x');
  });

  it('sends each event once, whoever reports it, signed with the organization secret', async () => {
    const t = setup();
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x', metadata: { k: 1 } });
    const done = execution({ status: 'completed', counters: { success: 3, credits: 3 } });
    t.executions.set('extract-urls-1', done);
    await t.webhooks.events.transitioned(done);
    await t.webhooks.events.transitioned(done);
    // A created event reported again sends nothing new.
    await t.webhooks.events.created(execution());
    expect(t.sent.map((s) => s.message.event)).toEqual(['started', 'completed']);
    expect(await t.drain()).toEqual(['delivered', 'delivered']);
    const secret = t.memory.secrets.get('org-a')!.secret;
    for (const post of t.posts) {
      expect(
        verifySignature(
          secret,
          { timestamp: post.headers['x-pds-timestamp'], signature: post.headers['x-pds-signature'] },
          post.body,
          Date.parse('2026-01-01T00:00:00.000Z'),
        ),
      ).toBe(true);
    }
    const completed = JSON.parse(t.posts[1].body);
    expect(completed).toMatchObject({
      event: 'completed',
      data: {
        execution_id: 'extract-urls-1',
        status: 'completed',
        counts: {
          requested: 3,
          successful: 3,
          failed: 0,
          failed_by_reason: {},
          invalid: 0,
          invalid_by_reason: {},
          pending: 0,
          credits_used: 3,
        },
      },
      metadata: { k: 1 },
    });
    expect(t.posts[1].headers['x-pds-delivery-id']).toBe(completed.id);
  });

  it("counts an extraction in the status's vocabulary: the invariant holds from the payload alone", async () => {
    const t = setup();
    const running = execution({ input: { url_count: 6, requested: 6 }, status: 'running' });
    t.executions.set('extract-urls-1', running);
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x' });
    const counters = { success: 2, other: 1, automated_access_not_permitted: 1, malformed_url: 1, credits: 2 };
    t.executions.set('extract-urls-1', { ...running, counters });
    await t.webhooks.events.progressed('extract-urls-1');
    const failed = { ...running, status: 'failed' as const, error: 'Execution was cancelled', counters };
    await t.webhooks.events.transitioned(failed);
    const bodies = t.sent.map((s) => JSON.parse(s.message.body));
    expect(bodies.map((b) => b.event)).toEqual(['started', 'progress', 'failed']);
    expect(bodies[0].data.counts).toEqual({
      requested: 6,
      successful: 0,
      failed: 0,
      failed_by_reason: {},
      invalid: 0,
      invalid_by_reason: {},
      pending: 6,
      credits_used: 0,
    });
    for (const body of bodies.slice(1)) {
      const c = body.data.counts;
      expect(c).toEqual({
        requested: 6,
        successful: 2,
        failed: 2,
        failed_by_reason: { other: 1, automated_access_not_permitted: 1 },
        invalid: 1,
        invalid_by_reason: { malformed_url: 1 },
        pending: 1,
        credits_used: 2,
      });
      expect(c.successful + c.failed + c.invalid + c.pending).toBe(c.requested);
    }
  });

  it("counts a crawl and an agentic search in their statuses' vocabulary", async () => {
    const t = setup();
    const crawl = execution({
      id: 'crawl-1',
      kind: 'crawl',
      status: 'completed',
      input: {},
      options: { vendor: 'shop.example' },
      counters: {
        collections_found: 3,
        listings_found: 40,
        listings_total: 40,
        collections_total: 3,
        steps: 4,
        credits: 1,
      },
    });
    t.executions.set('crawl-1', { ...crawl, status: 'pending' });
    await t.subscribe('crawl-1', { url: 'https://h.example/x', events: ['completed'] });
    await t.webhooks.events.transitioned(crawl);
    const agentic = execution({
      id: 'agentic-1',
      kind: 'agentic',
      status: 'completed',
      input: { understood: 1, candidates: 5 },
      counters: { verified: 4, dropped: 1, credits: 5 },
    });
    t.executions.set('agentic-1', { ...agentic, status: 'pending' });
    await t.subscribe('agentic-1', { url: 'https://h.example/x', events: ['completed'] });
    await t.webhooks.events.transitioned(agentic);
    const [crawlBody, agenticBody] = t.sent.map((s) => JSON.parse(s.message.body));
    expect(crawlBody.data.counts).toEqual({ collections_total: 3, listings_total: 40, credits_used: 1 });
    expect(agenticBody.data.counts).toEqual({
      candidates_total: 5,
      candidates_verified: 4,
      candidates_dropped: 1,
      credits_used: 5,
    });
  });

  it('a terminal transition without a subscription, or for an event not chosen, sends nothing', async () => {
    const t = setup();
    await t.webhooks.events.transitioned(execution({ status: 'failed', error: 'x' }));
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x', events: ['completed'] });
    await t.webhooks.events.transitioned(execution({ status: 'failed', error: 'x' }));
    await t.webhooks.events.transitioned(execution({ status: 'running' }));
    expect(t.sent).toEqual([]);
  });

  it('sends at most one progress event per 10 s, and none once finished', async () => {
    const t = setup();
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x', events: ['progress'] });
    t.executions.set('extract-urls-1', execution({ status: 'running', counters: { success: 1 } }));
    await t.webhooks.events.progressed('extract-urls-1');
    t.advance(9_999);
    await t.webhooks.events.progressed('extract-urls-1');
    t.advance(1);
    await t.webhooks.events.progressed('extract-urls-1');
    expect(t.sent.map((s) => JSON.parse(s.message.body).data.counts.successful)).toEqual([1, 1]);
    expect(new Set(t.sent.map((s) => s.message.delivery_id)).size).toBe(2);
    t.advance(10_000);
    t.executions.set('extract-urls-1', execution({ status: 'completed' }));
    await t.webhooks.events.progressed('extract-urls-1');
    expect(t.sent).toHaveLength(2);
  });

  it('retries a non-2xx with the configured backoff, in queue-delay hops of at most 15 min, until a 2xx', async () => {
    const t = setup({ statuses: [500, 0, 503, 200] });
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x', events: ['started'] });
    expect(await t.drain()).toEqual(['retrying']);
    expect(t.sent.map((s) => [s.message.attempt, s.delaySeconds])).toEqual([[2, 60]]);
    t.advance(60_000);
    expect(await t.drain()).toEqual(['retrying']);
    expect(t.sent.map((s) => [s.message.attempt, s.delaySeconds])).toEqual([[3, 300]]);
    t.advance(300_000);
    expect(await t.drain()).toEqual(['retrying']);
    // 15 minutes is the queue's longest delay.
    expect(t.sent.map((s) => [s.message.attempt, s.delaySeconds])).toEqual([[4, 900]]);
    t.advance(900_000);
    expect(await t.drain()).toEqual(['delivered']);
    const [record] = [...t.memory.deliveries.values()];
    expect(record.state).toBe('delivered');
    expect(record.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, null, 'ECONNREFUSED: connect failed'],
      [3, 503, 'HTTP 503'],
      [4, 200, null],
    ]);
    expect(new Set(t.posts.map((p) => p.headers['x-pds-delivery-id'])).size).toBe(1);
    expect(new Set(t.posts.map((p) => p.body)).size).toBe(1);
    expect(t.posts.map((p) => p.headers['x-pds-attempt'])).toEqual(['1', '2', '3', '4']);
  });

  it('waits out a 60-minute backoff in hops, then fails the delivery after the last attempt', async () => {
    const t = setup({ statuses: [500, 500], delays: [3600] });
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x', events: ['started'] });
    expect(await t.drain()).toEqual(['retrying']);
    expect(t.sent[0].delaySeconds).toBe(900);
    const hops: number[] = [];
    for (let i = 0; i < 10; i++) {
      t.advance(t.sent[0].delaySeconds * 1000);
      const [outcome] = await t.drain();
      if (outcome !== 'deferred') {
        expect(outcome).toBe('failed');
        break;
      }
      hops.push(t.sent[0].delaySeconds);
    }
    expect(hops).toEqual([900, 900, 900]);
    expect(t.sent).toEqual([]);
    const [record] = [...t.memory.deliveries.values()];
    expect(record).toMatchObject({ state: 'failed', next_attempt_at: null });
    expect(record.attempts).toHaveLength(2);
    expect(Date.parse(record.attempts[1].at) - Date.parse(record.attempts[0].at)).toBe(3_600_000);
  });

  it('a duplicate of an attempt posts nothing; the DLQ consumer fails an unfinished delivery', async () => {
    const t = setup({ statuses: [500] });
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x', events: ['started'] });
    const [first] = t.sent;
    expect(await t.drain()).toEqual(['retrying']);
    expect(await t.webhooks.deliver(first.message)).toBe('duplicate');
    expect(t.posts).toHaveLength(1);
    await t.webhooks.giveUp(t.sent[0].message);
    const [record] = [...t.memory.deliveries.values()];
    expect(record.state).toBe('failed');
    t.advance(60_000);
    expect(await t.drain()).toEqual(['duplicate']);
    expect(t.posts).toHaveLength(1);
  });

  it('resumes unsettled deliveries (a local restart lost the queue): next attempt, same body, remaining delay', async () => {
    const t = setup({ statuses: [500] });
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', {
      url: 'https://h.example/x',
      events: ['started', 'failed'],
    });
    expect(await t.drain()).toEqual(['retrying']);
    const [queued] = t.sent.splice(0);
    await t.webhooks.events.transitioned(execution({ status: 'failed', error: 'x' }));
    t.sent.splice(0); // the failed event's message is lost too
    t.advance(20_000);
    expect(await t.webhooks.resumeUnsettled()).toBe(2);
    const byEvent = Object.fromEntries(t.sent.map((s) => [s.message.event, s]));
    expect(byEvent.started.message).toEqual({ ...queued.message });
    expect(byEvent.started.delaySeconds).toBe(40);
    expect(byEvent.failed.message).toMatchObject({ event: 'failed', attempt: 1 });
    expect(byEvent.failed.delaySeconds).toBe(0);
    t.advance(40_000);
    expect((await t.drain()).sort()).toEqual(['delivered', 'delivered']);
    expect(await t.webhooks.resumeUnsettled()).toBe(0);
  });

  it('reads the delivery log of the caller organization only, oldest first; rotates the secret', async () => {
    const t = setup();
    t.executions.set('extract-urls-1', execution());
    await t.subscribe('extract-urls-1', { url: 'https://h.example/x' });
    t.advance(5);
    await t.webhooks.events.transitioned(execution({ status: 'failed', error: 'boom' }));
    const log = await t.webhooks.deliveries('org-a', 'extract-urls-1');
    expect(log.deliveries.map((d) => d.event)).toEqual(['started', 'failed']);
    await expect(t.webhooks.deliveries('org-b', 'extract-urls-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const before = await t.webhooks.secret('org-a');
    const rotated = await t.webhooks.rotateSecret('org-a');
    expect(rotated.secret).not.toBe(before.secret);
    expect((await t.webhooks.secret('org-a')).secret).toBe(rotated.secret);
  });
});
