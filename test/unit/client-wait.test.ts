// The typed client's helpers against a scripted status server on loopback (real HTTP, real
// openapi-fetch): waitFor's intervals are the spec's (extractions 5-10 s, 30-60 s while waiting on
// a crawl, crawls 10-30 s), a 429 waits its Retry-After, the maximum wait ends in PdsTimeoutError,
// errors keep their status and code, and paging follows has_next. Sleeps are recorded instead of
// slept (except in the timeout test, which uses millisecond intervals).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPdsClient,
  PdsApiError,
  PdsTimeoutError,
  PdsUnreachableError,
  retryAfterMs,
  SPEC_POLL_INTERVALS,
  type WaitProgress,
} from '../../client';

type Reply = { status: number; body: unknown; headers?: Record<string, string> };
type Handler = (req: IncomingMessage, body: string) => Reply;

let server: Server;
let baseUrl: string;
let handler: Handler = () => ({ status: 500, body: { error: 'no handler' } });
const seen: Array<{
  method: string;
  url: string;
  key: string | undefined;
  body: string;
  idempotencyKey: string | undefined;
}> = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        key: req.headers['x-api-key'] as string | undefined,
        body,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      });
      const reply = handler(req, body);
      if (reply.status === 0) {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  seen.length = 0;
});

/** A client whose sleeps are recorded, not slept. */
function recordingClient(extra: Parameters<typeof createPdsClient>[0] extends infer O ? Partial<O> : never = {}) {
  const sleeps: number[] = [];
  const client = createPdsClient({
    baseUrl,
    apiKey: 'unit-key-0000000000000001',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
  return { client, sleeps };
}

const extractStatus = (status: string, processed: number, total: number, waitingFor?: string) => ({
  execution_id: 'x1',
  status,
  error: status === 'failed' ? 'Execution was cancelled' : null,
  meta: {
    progress: { products_processed: processed, products_total: total, percent_complete: 0 },
    start_date: null,
    stop_date: null,
    duration_ms: null,
    result: {},
    credits_used: 0,
    ...(waitingFor ? { waiting_for: waitingFor } : {}),
  },
});

/** Serves `script` in order, one entry per status read (the last repeats). */
function scripted(script: Reply[]): Handler {
  let i = 0;
  return () => script[Math.min(i++, script.length - 1)]!;
}

describe('waitFor', () => {
  it('polls an extraction at 5 s, then 1.5x up to 10 s, and returns the final body; progress is reported each read', async () => {
    handler = scripted([
      ...[0, 1, 2, 3, 4].map((n) => ({ status: 200, body: extractStatus('running', n, 5) })),
      { status: 200, body: extractStatus('completed', 5, 5) },
    ]);
    const { client, sleeps } = recordingClient();
    const progress: WaitProgress[] = [];
    const done = await client.waitFor('x1', { kind: 'extract', onProgress: (p) => progress.push(p) });
    expect(done.status).toBe('completed');
    expect(sleeps).toEqual([5000, 7500, 10000, 10000, 10000]);
    expect(progress.map((p) => [p.status, p.processed, p.total, p.polls])).toEqual([
      ['running', 0, 5, 1],
      ['running', 1, 5, 2],
      ['running', 2, 5, 3],
      ['running', 3, 5, 4],
      ['running', 4, 5, 5],
      ['completed', 5, 5, 6],
    ]);
    expect(seen.every((s) => s.url === '/v2/extract/x1' && s.key === 'unit-key-0000000000000001')).toBe(true);
  });

  it('waits 30-60 s while the extraction waits on a crawl, then starts again at 5 s', async () => {
    handler = scripted([
      { status: 200, body: extractStatus('pending', 0, 0, 'crawl-1') },
      { status: 200, body: extractStatus('pending', 0, 0, 'crawl-1') },
      { status: 200, body: extractStatus('pending', 0, 0, 'crawl-1') },
      { status: 200, body: extractStatus('pending', 0, 0, 'crawl-1') },
      { status: 200, body: extractStatus('running', 1, 4) },
      { status: 200, body: extractStatus('failed', 2, 4) },
    ]);
    const { client, sleeps } = recordingClient();
    const progress: WaitProgress[] = [];
    const done = await client.waitFor('x1', { kind: 'extract', onProgress: (p) => progress.push(p) });
    expect(done.status).toBe('failed');
    expect(done.error).toBe('Execution was cancelled');
    expect(sleeps).toEqual([30000, 45000, 60000, 60000, 5000]);
    expect(progress[0]!.waitingFor).toBe('crawl-1');
    expect(progress[4]!.waitingFor).toBeUndefined();
  });

  it('polls a crawl every 10-30 s and reports its steps and listings found', async () => {
    const steps = (done: number) =>
      ['Determining crawl method', 'Discovering collections', 'Analyzing collections', 'Extracting listings'].map(
        (name, i) => ({ name, status: i < done ? 'completed' : i === done ? 'running' : 'pending' }),
      );
    const crawl = (status: string, done: number, listings: number) => ({
      execution_id: 'c1',
      status,
      error: null,
      meta: {
        vendor: 'shop.test',
        start_date: null,
        stop_date: null,
        duration_ms: null,
        progress: { collections_found: 0, listings_found: listings },
        steps: steps(done),
        result: { collections_total: 0, listings_total: listings },
      },
    });
    handler = scripted([
      { status: 200, body: crawl('running', 0, 0) },
      { status: 200, body: crawl('running', 2, 0) },
      { status: 200, body: crawl('running', 3, 120) },
      { status: 200, body: crawl('running', 3, 480) },
      { status: 200, body: crawl('completed', 4, 500) },
    ]);
    const { client, sleeps } = recordingClient();
    const progress: WaitProgress[] = [];
    await client.waitFor('c1', { kind: 'crawl', onProgress: (p) => progress.push(p) });
    expect(sleeps).toEqual([10000, 15000, 22500, 30000]);
    expect(progress.map((p) => [p.step, p.stepsDone, p.stepsTotal, p.processed, p.total])).toEqual([
      ['Determining crawl method', 0, 4, 0, null],
      ['Analyzing collections', 2, 4, 0, null],
      ['Extracting listings', 3, 4, 120, null],
      ['Extracting listings', 3, 4, 480, null],
      [undefined, 4, 4, 500, null],
    ]);
    expect(seen[0]!.url).toBe('/v2/crawl/c1');
  });

  it('honours overridden intervals (tests, scripts) per call and per client', async () => {
    handler = scripted([
      { status: 200, body: extractStatus('running', 0, 2) },
      { status: 200, body: extractStatus('running', 1, 2) },
      { status: 200, body: extractStatus('completed', 2, 2) },
    ]);
    const { client, sleeps } = recordingClient({ intervals: { extract: { minMs: 100, maxMs: 120 } } });
    await client.waitFor('x1', { kind: 'extract' });
    expect(sleeps).toEqual([100, 120]);
  });

  it('waits the Retry-After of a 429 (seconds, then an HTTP date) and keeps polling', async () => {
    const inFiftySeconds = new Date(Date.now() + 50_000).toUTCString();
    handler = scripted([
      { status: 200, body: extractStatus('running', 0, 1) },
      { status: 429, body: { error: { code: 'RATE_LIMITED', message: 'slow down' } }, headers: { 'retry-after': '7' } },
      {
        status: 429,
        body: { error: { code: 'RATE_LIMITED', message: 'slow down' } },
        headers: { 'retry-after': inFiftySeconds },
      },
      { status: 200, body: extractStatus('completed', 1, 1) },
    ]);
    const { client, sleeps } = recordingClient();
    const done = await client.waitFor('x1', { kind: 'extract' });
    expect(done.status).toBe('completed');
    expect(sleeps[0]).toBe(5000);
    expect(sleeps[1]).toBe(7000);
    // An HTTP date: the time left until it (whole seconds, less the time the test itself took).
    expect(sleeps[2]).toBeGreaterThan(20_000);
    expect(sleeps[2]).toBeLessThanOrEqual(50_000);
    expect(sleeps).toHaveLength(3);
  });

  it('keeps waiting on 429s beyond the per-call retries while the maximum wait allows', async () => {
    handler = scripted([
      ...Array.from({ length: 4 }, () => ({ status: 429, body: {}, headers: { 'retry-after': '1' } })),
      { status: 200, body: extractStatus('completed', 1, 1) },
    ]);
    const { client, sleeps } = recordingClient({ maxRateLimitRetries: 1 });
    const done = await client.waitFor('x1', { kind: 'extract' });
    expect(done.status).toBe('completed');
    expect(sleeps).toEqual([1000, 1000, 1000, 1000]);
  });

  it('gives up at the maximum wait with PdsTimeoutError carrying the last status', async () => {
    handler = () => ({ status: 200, body: extractStatus('running', 1, 3) });
    const client = createPdsClient({ baseUrl, apiKey: 'k', intervals: { extract: { minMs: 5, maxMs: 10 } } });
    const error = await client.waitFor('x1', { kind: 'extract', timeoutMs: 150 }).catch((e) => e);
    expect(error).toBeInstanceOf(PdsTimeoutError);
    expect((error as PdsTimeoutError).last).toMatchObject({ status: 'running' });
    expect(error.message).toContain('x1 did not finish');
  });

  it('turns 401 and 404 into PdsApiError with the status and code; never polls on', async () => {
    handler = () => ({ status: 401, body: { error: 'Invalid API key', status: 401 } });
    const { client } = recordingClient();
    const unauthorized = await client.waitFor('x1', { kind: 'extract' }).catch((e) => e);
    expect(unauthorized).toBeInstanceOf(PdsApiError);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.message).toContain('Invalid API key');
    handler = () => ({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'Execution not found', request_id: 'r' } },
    });
    const missing = await client.waitFor('nope', { kind: 'agentic' }).catch((e) => e);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(seen.map((s) => s.url)).toEqual(['/v2/extract/x1', '/v2/agentic-search/nope']);
  });

  it('reads v1 status paths by execution id', async () => {
    handler = () => ({ status: 200, body: { status: 'completed', progress: { urls_completed: 2, total_urls: 2 } } });
    const { client } = recordingClient();
    await client.waitFor('products-batch-1', { kind: 'extract', family: 'v1' });
    await client.waitFor('extract-2', { kind: 'extract', family: 'v1' });
    handler = () => ({ status: 200, body: { status: 'completed', total_listings_found: 3 } });
    await client.waitFor('crawl-3', { kind: 'crawl', family: 'v1' });
    expect(seen.map((s) => s.url)).toEqual([
      '/v1/products/products-batch-1',
      '/v1/extract/extract-2',
      '/v1/crawl/crawl-3',
    ]);
    await expect(client.waitFor('a', { kind: 'agentic', family: 'v1' })).rejects.toThrow(/synchronous/);
  });
});

describe('requests', () => {
  it('retries a 429 start after Retry-After with the same body, then returns the 202', async () => {
    let calls = 0;
    handler = () =>
      ++calls === 1
        ? { status: 429, body: { error: { code: 'RATE_LIMITED' } }, headers: { 'retry-after': '3' } }
        : { status: 202, body: { execution_id: 'x9', status: 'pending', meta: { credits_used: 0, url_count: 1 } } };
    const { client, sleeps } = recordingClient();
    const { data, response } = await client.api.POST('/v2/extract', { body: { urls: ['https://shop.test/p/1'] } });
    expect(response.status).toBe(202);
    expect(data?.execution_id).toBe('x9');
    expect(sleeps).toEqual([3000]);
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([
      { urls: ['https://shop.test/p/1'] },
      { urls: ['https://shop.test/p/1'] },
    ]);
  });

  it('returns the 429 after the bounded retries (exponential without Retry-After)', async () => {
    handler = () => ({ status: 429, body: { error: { code: 'RATE_LIMITED' } } });
    const { client, sleeps } = recordingClient({ maxRateLimitRetries: 3 });
    const { response } = await client.api.GET('/v2/vendors');
    expect(response.status).toBe(429);
    expect(sleeps).toEqual([1000, 2000, 4000]);
    expect(seen).toHaveLength(4);
  });

  it('gives every start a fresh Idempotency-Key unless one is given; other calls get none', async () => {
    handler = () => ({ status: 202, body: { execution_id: 'x', status: 'pending', meta: { credits_used: 0 } } });
    const { client } = recordingClient();
    await client.api.POST('/v2/crawl', { body: { vendor: 'a.test' } });
    await client.api.POST('/v2/crawl', { body: { vendor: 'a.test' } });
    await client.api.POST('/v2/extract', {
      body: { urls: ['https://a.test/p'] },
      headers: { 'Idempotency-Key': 'mine-1' },
    });
    handler = () => ({ status: 200, body: { success: true, data: [] } });
    await client.api.POST('/v2/affiliate', { body: { urls: ['https://a.test/p'] } } as any);
    const keys = seen.map((s) => s.idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys.slice(2)).toEqual(['mine-1', undefined]);
    const { client: plain } = recordingClient({ idempotentStarts: false });
    await plain.api.POST('/v2/crawl', { body: { vendor: 'a.test' } });
    expect(seen.at(-1)!.idempotencyKey).toBeUndefined();
  });

  it('retries a start with its Idempotency-Key after a dropped connection and a 503, with the same key', async () => {
    let calls = 0;
    handler = () => {
      calls++;
      if (calls === 1) return { status: 0, body: null };
      if (calls === 2) return { status: 503, body: { error: { code: 'INTERNAL_ERROR' } } };
      return { status: 202, body: { execution_id: 'x7', status: 'pending', meta: { credits_used: 0 } } };
    };
    const { client, sleeps } = recordingClient();
    const { data } = await client.api.POST('/v2/crawl', { body: { vendor: 'a.test' } });
    expect(data?.execution_id).toBe('x7');
    expect(sleeps).toEqual([500, 1000]);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.idempotencyKey)).size).toBe(1);
    expect(seen.every((s) => s.body === '{"vendor":"a.test"}')).toBe(true);
  });

  it('asks again when a retried start finds its first attempt still in progress (409)', async () => {
    let calls = 0;
    handler = () => {
      calls++;
      if (calls === 1) return { status: 0, body: null };
      if (calls === 2) return { status: 409, body: { error: { code: 'CONFLICT' } } };
      return { status: 202, body: { execution_id: 'x8', status: 'pending', meta: { credits_used: 0 } } };
    };
    const { client, sleeps } = recordingClient();
    const { data } = await client.api.POST('/v2/extract', { body: { urls: ['https://a.test/p'] } });
    expect(data?.execution_id).toBe('x8');
    expect(sleeps).toEqual([500, 1000]);
  });

  it('never repeats a request that is not safe to repeat: a 409 without a retry, a dropped POST without a key', async () => {
    handler = () => ({ status: 409, body: { error: { code: 'CONFLICT' } } });
    const { client, sleeps } = recordingClient();
    const { response } = await client.api.POST('/v2/extract', { body: { urls: ['https://a.test/p'] } });
    expect(response.status).toBe(409);
    handler = () => ({ status: 0, body: null });
    await expect(
      client.api.POST('/v2/affiliate', { body: { urls: ['https://a.test/p'] } } as any),
    ).rejects.toBeInstanceOf(PdsUnreachableError);
    expect(seen).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });

  it('reads Retry-After in seconds, and falls back without a usable one', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3600' }), 1)).toBe(3_600_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), 1234)).toBe(1234);
    expect(retryAfterMs(new Headers(), 99)).toBe(99);
  });

  it('reports an unreachable service as PdsUnreachableError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const sleeps: number[] = [];
    const client = createPdsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await expect(client.api.GET('/v2/vendors')).rejects.toBeInstanceOf(PdsUnreachableError);
    // A GET is repeatable: two more tries, 0.5 s and 1 s apart, before giving up.
    expect(sleeps).toEqual([500, 1000]);
  });

  it('pages through every per-URL result following has_next', async () => {
    handler = (req) => {
      const url = new URL(req.url!, baseUrl);
      const page = Number(url.searchParams.get('page'));
      const size = Number(url.searchParams.get('page_size'));
      const total = 7;
      const items = Array.from({ length: Math.max(0, Math.min(size, total - (page - 1) * size)) }, (_, i) => ({
        url: `https://shop.test/p/${(page - 1) * size + i}`,
      }));
      return {
        status: 200,
        body: {
          ...extractStatus('completed', total, total),
          data: items,
          pagination: { page, page_size: size, has_next: page * size < total },
        },
      };
    };
    const { client } = recordingClient();
    const pages: string[][] = [];
    for await (const page of client.extractResults('x1', { pageSize: 3 })) pages.push(page.map((r) => r.url));
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(Array.from({ length: 7 }, (_, i) => `https://shop.test/p/${i}`));
    expect(seen.map((s) => s.url)).toEqual([
      '/v2/extract/x1?page=1&page_size=3',
      '/v2/extract/x1?page=2&page_size=3',
      '/v2/extract/x1?page=3&page_size=3',
    ]);
  });

  it('the spec intervals are the documented ones', () => {
    expect(SPEC_POLL_INTERVALS).toMatchObject({
      extract: { minMs: 5000, maxMs: 10000 },
      extractWaitingOnCrawl: { minMs: 30000, maxMs: 60000 },
      crawl: { minMs: 10000, maxMs: 30000 },
    });
  });
});
