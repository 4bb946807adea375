// The fetcher's transport (got) against a loopback server of its own, on what the store
// simulator does not serve: every content-encoding decoded and the size cap applied after
// decoding, broken bodies and refused connections as network failures (retried), each timeout
// (not retried), robots.txt over its size limit read in part, no timer left behind; and the SSRF
// guard inside each connection's DNS lookup, shown by loopback canary listeners that must never
// see a connection: a name, a redirect hop or a proxy tunnel to a loopback name is refused before
// anything is dialled, and every attempt asks DNS again (nothing a rebinding could hide behind).
// The simulator-driven behaviour (redirect chains, retries, robots, bot walls, caps, proxies) is
// test/integration/http-fetch.test.ts.
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpFetcher, type HttpFetcherOptions } from '../../lambdas/adapters/http-fetch';
import { createGuardedLookup } from '../../lambdas/adapters/http-fetch/ssrf';
import { FetchFailure } from '../../lambdas/ports/fetcher';

const PAGE = `<html><head><title>Crème brûlée — 5 €</title></head><body>${'<p>product</p>'.repeat(500)}</body></html>`;
const BYTES = Buffer.from(PAGE);
/** robots.txt past the 500 KB that are read: its rules come first, the rest is comment. */
const BIG_ROBOTS = `User-agent: *\nDisallow: /private\n${'# filler line of a long robots.txt\n'.repeat(20_000)}`;

const hits = new Map<string, number>();
const sockets = new Set<Socket>();

function route(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(String(req.url), 'http://x');
  hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
  const send = (headers: Record<string, string | number>, body: Buffer | string, status = 200) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  switch (url.pathname) {
    case '/robots.txt':
      return send({ 'content-type': 'text/plain' }, BIG_ROBOTS);
    case '/public':
    case '/private':
      return send({}, BYTES);
    case '/gzip':
      return send({ 'content-encoding': 'gzip' }, zlib.gzipSync(BYTES));
    case '/gzip-upper':
      return send({ 'content-encoding': 'GZIP' }, zlib.gzipSync(BYTES));
    case '/deflate':
      return send({ 'content-encoding': 'deflate' }, zlib.deflateSync(BYTES));
    case '/deflate-raw':
      return send({ 'content-encoding': 'deflate' }, zlib.deflateRawSync(BYTES, { level: 0 }));
    case '/br':
      return send({ 'content-encoding': 'br' }, zlib.brotliCompressSync(BYTES));
    case '/gzip-empty':
      return send({ 'content-encoding': 'gzip', 'content-length': 0 }, '');
    case '/gzip-404':
      return send({ 'content-encoding': 'gzip' }, zlib.gzipSync(BYTES), 404);
    case '/bomb':
      // 20 MB of page that travels as ~20 KB.
      return send({ 'content-encoding': 'gzip' }, zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, ' ')));
    case '/corrupt':
      return send({ 'content-encoding': 'gzip' }, 'this is not gzip at all, not even a little');
    case '/cut-short':
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': 100_000 });
      res.write(BYTES.subarray(0, 1000));
      return void setTimeout(() => res.socket?.destroy(), 20);
    case '/no-response':
      return; // never answers: the response timeout
    case '/stall':
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.write('<html>'); // never ends: the idle timeout
    case '/trickle': {
      // Never idle for long, never done: only the whole-request timeout ends it.
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('<p>'), 30);
      return void res.once('close', () => clearInterval(timer));
    }
    case '/to':
      res.writeHead(302, { location: String(url.searchParams.get('location')) });
      return void res.end();
    default:
      return send({}, 'not found', 404);
  }
}

/** A loopback listener that must never be connected to; how many connections it saw. */
async function canary(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

type Answer = (error: null, addresses: Array<{ address: string; family: number }>) => void;
const realLookup = dns.lookup as (host: string, options: unknown, callback: unknown) => void;
/** DNS where `name` answers `addresses` in turn (loopback: a canary); other names resolve as usual. */
function answer(name: string, ...addresses: string[]) {
  let asked = 0;
  return vi.spyOn(dns, 'lookup').mockImplementation(((host: string, options: unknown, callback: Answer) => {
    if (host !== name) return realLookup.call(dns, host, options, callback);
    const address = addresses[asked++ % addresses.length]!;
    callback(null, [{ address, family: net.isIP(address) }]);
  }) as never);
}

let server: http.Server;
let port: number;
let closedPort: number;
beforeAll(async () => {
  server = http.createServer(route);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
  const closed = http.createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((done) => closed.close(done));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => server.close(done));
});
afterEach(() => {
  vi.restoreAllMocks();
  hits.clear();
});

const fetcherFor = (overrides: HttpFetcherOptions = {}) =>
  createHttpFetcher({
    resolve: { 'shop.test': `127.0.0.1:${port}`, 'closed.test': `127.0.0.1:${closedPort}` },
    crawlDelayMs: 0,
    retries: 1,
    retryBaseDelayMs: 5,
    connectTimeoutMs: 1000,
    readTimeoutMs: 1000,
    ...overrides,
  });

async function failure(promise: Promise<unknown>): Promise<FetchFailure> {
  const error = await promise.then(
    () => new Error('expected the fetch to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchFailure);
  return error as FetchFailure;
}

describe('bodies', () => {
  it.each(['/gzip', '/gzip-upper', '/deflate', '/deflate-raw', '/br'])('decodes %s to the page', async (path) => {
    const page = await fetcherFor().fetch({ url: `http://shop.test${path}`, ignoreRobots: true });
    expect(page.status).toBe(200);
    expect(page.body).toBe(PAGE);
    expect(page.headers).not.toHaveProperty('content-encoding');
  });

  it('decodes error pages and reads an empty encoded body as empty', async () => {
    const gone = await fetcherFor().fetch({ url: 'http://shop.test/gzip-404', ignoreRobots: true });
    expect(gone.status).toBe(404);
    expect(gone.body).toBe(PAGE);
    const empty = await fetcherFor().fetch({ url: 'http://shop.test/gzip-empty', ignoreRobots: true });
    expect(empty.status).toBe(200);
    expect(empty.body).toBe('');
  });

  it('caps the decoded size, not the size on the wire', async () => {
    const failed = await failure(fetcherFor().fetch({ url: 'http://shop.test/bomb', ignoreRobots: true }));
    expect(failed.kind).toBe('too_large');
    expect(hits.get('/bomb')).toBe(1);
  });

  it.each(['/corrupt', '/cut-short'])('fails %s as a network failure, retried within the budget', async (path) => {
    const failed = await failure(
      fetcherFor({ retries: 1 }).fetch({ url: `http://shop.test${path}`, ignoreRobots: true }),
    );
    expect(failed.kind).toBe('network');
    expect(hits.get(path)).toBe(2);
  });

  it('fails a refused connection as a network failure', async () => {
    const failed = await failure(fetcherFor().fetch({ url: 'http://closed.test/', ignoreRobots: true }));
    expect(failed.kind).toBe('network');
    expect(failed.message).toContain('ECONNREFUSED');
  });

  it('reads the first 500 KB of a longer robots.txt and obeys them', async () => {
    const fetcher = fetcherFor();
    expect((await fetcher.fetch({ url: 'http://shop.test/public' })).body).toBe(PAGE);
    expect((await failure(fetcher.fetch({ url: 'http://shop.test/private' }))).kind).toBe('robots_disallowed');
    expect(hits.get('/robots.txt')).toBe(1);
    expect(hits.get('/private')).toBeUndefined();
  });
});

describe('timeouts', () => {
  it.each([
    ['waiting for the response', '/no-response', { readTimeoutMs: 150 }],
    ['an idle body', '/stall', { readTimeoutMs: 150 }],
    ['the whole request', '/trickle', { readTimeoutMs: 1000, totalTimeoutMs: 300 }],
  ])('times out %s, without retrying', async (_what, path, options: HttpFetcherOptions) => {
    const started = Date.now();
    const failed = await failure(
      fetcherFor({ retries: 2, ...options }).fetch({ url: `http://shop.test${path}`, ignoreRobots: true }),
    );
    expect(failed.kind).toBe('timeout');
    expect(hits.get(path)).toBe(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('leaves no timer holding the process after a page, a failure or a timeout', async () => {
    // Timers that keep the event loop alive (unref'd ones are not listed).
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const settle = async () => {
      for (let turn = 0; turn < 5; turn++) await new Promise((done) => setImmediate(done));
    };
    const fetcher = fetcherFor({ retries: 0, readTimeoutMs: 150 });
    await settle();
    const before = timers();
    for (const path of ['/gzip', '/corrupt', '/cut-short', '/stall']) {
      await fetcher.fetch({ url: `http://shop.test${path}`, ignoreRobots: true }).catch(() => undefined);
      await settle();
      expect(timers(), path).toBeLessThanOrEqual(before);
    }
  });
});

describe('the address check on every connection', () => {
  it('refuses a name that resolves to loopback before dialling it, directly or as a redirect hop', async () => {
    const listener = await canary();
    answer('canary.test', '127.0.0.1');
    try {
      const fetcher = fetcherFor();
      const target = `http://canary.test:${listener.port}/secret`;
      expect((await failure(fetcher.fetch({ url: target, ignoreRobots: true }))).kind).toBe('blocked_address');
      const hop = await failure(
        fetcher.fetch({ url: `http://shop.test/to?location=${encodeURIComponent(target)}`, ignoreRobots: true }),
      );
      expect(hop.kind).toBe('blocked_address');
      expect(hop.details.finalUrl).toBe(target);
      // robots.txt of that host is not fetched past the check either.
      expect((await failure(fetcher.fetch({ url: target }))).kind).toBe('blocked_address');
      expect(listener.connections()).toBe(0);
    } finally {
      await listener.close();
    }
  });

  it('asks DNS again on every attempt, so an answer that changes is judged each time', async () => {
    const listener = await canary();
    const lookups = answer('rebind.test', '127.0.0.1', '::ffff:127.0.0.1', '127.0.0.2');
    try {
      const fetcher = fetcherFor({ retries: 2 });
      for (let i = 0; i < 3; i++) {
        const url = `http://rebind.test:${listener.port}/`;
        expect((await failure(fetcher.fetch({ url, ignoreRobots: true }))).kind).toBe('blocked_address');
      }
      expect(lookups.mock.calls.filter(([name]) => name === 'rebind.test')).toHaveLength(3);
      expect(listener.connections()).toBe(0);
    } finally {
      await listener.close();
    }
  });

  it('refuses an answer that mixes public and private addresses (a rebinding tell)', async () => {
    vi.spyOn(dns, 'lookup').mockImplementation(((_name: string, _options: unknown, callback: Answer) =>
      callback(null, [
        { address: '93.184.215.14', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ])) as never);
    const error = await new Promise<NodeJS.ErrnoException | null>((done) =>
      createGuardedLookup()('shop.example', { all: true }, (e) => done(e)),
    );
    expect(error?.code).toBe('EBLOCKEDADDRESS');
  });

  it('asks an egress proxy for no tunnel to a loopback name', async () => {
    const listener = await canary();
    answer('canary.test', '127.0.0.1');
    const connects: string[] = [];
    const proxy = http.createServer();
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
      connects.push(String(req.url));
      client.destroy();
    });
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
    try {
      const fetcher = fetcherFor({
        egressProxies: { de: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` },
      });
      const failed = await failure(
        fetcher.fetch({ url: `http://canary.test:${listener.port}/`, countryCode: 'de', ignoreRobots: true }),
      );
      expect(failed.kind).toBe('blocked_address');
      expect(connects).toEqual([]);
      expect(listener.connections()).toBe(0);
    } finally {
      proxy.closeAllConnections();
      await new Promise((done) => proxy.close(done));
      await listener.close();
    }
  });
});
