// The fetcher's one-request layer (lambdas/adapters/http-fetch/request.ts, node:http/https) side
// by side with got.stream under the options the fetcher used it with, against the same loopback
// server behaviours: the request headers the server receives, the response head and the
// decompressed bytes (gzip, zlib and raw deflate, br, an empty encoded body, unknown encodings,
// bodiless statuses), and the error's name and code (corrupt encodings, a response cut short, a
// refused connection, the lookup's own errors, each timeout: whether it is a timeout and its code,
// all the fetcher reads of it). The fetcher's own behaviour over it
// is test/integration/http-fetch.test.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../../lambdas/adapters/http-fetch/request';
import { fetchComparer, listenTracked } from './_fetch-compare';

const PAGE = `<html><head><title>Café</title></head><body>${'<p>product</p>'.repeat(400)}</body></html>`;
const sockets = new Set<Socket>();
let server: http.Server;
let base: string;
let lastHeaders: string[] = [];

function route(req: http.IncomingMessage, res: http.ServerResponse) {
  lastHeaders = req.rawHeaders.map((value, i) => (i % 2 === 0 ? value.toLowerCase() : value));
  const path = new URL(String(req.url), 'http://x').pathname;
  const send = (headers: Record<string, string | number>, body: Buffer | string, status = 200) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  const bytes = Buffer.from(PAGE);
  switch (path) {
    case '/plain':
      return send({ 'content-length': bytes.length, 'x-custom': 'a' }, bytes);
    case '/chunked':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(bytes.subarray(0, 100));
      return setTimeout(() => res.end(bytes.subarray(100)), 5);
    case '/gzip':
      return send({ 'content-encoding': 'gzip', 'content-length': zlib.gzipSync(bytes).length }, zlib.gzipSync(bytes));
    case '/deflate':
      return send({ 'content-encoding': 'deflate' }, zlib.deflateSync(bytes));
    case '/deflate-raw':
      // Stored blocks: a first byte that says raw deflate (bit 3 clear), as decompress-response reads it.
      return send({ 'content-encoding': 'DEFLATE' }, zlib.deflateRawSync(bytes, { level: 0 }));
    case '/deflate-raw-misread':
      // Compressed blocks whose first byte has bit 3 set: read as zlib, by got too (Z_DATA_ERROR).
      return send({ 'content-encoding': 'deflate' }, zlib.deflateRawSync(bytes));
    case '/br':
      return send({ 'content-encoding': 'br' }, zlib.brotliCompressSync(bytes));
    case '/gzip-empty':
      return send({ 'content-encoding': 'gzip', 'content-length': 0 }, '');
    case '/gzip-404':
      return send({ 'content-encoding': 'gzip' }, zlib.gzipSync(bytes), 404);
    case '/gzip-204':
      res.writeHead(204, { 'content-encoding': 'gzip' });
      return res.end();
    case '/unknown-encoding':
      return send({ 'content-encoding': 'compress' }, 'raw bytes');
    case '/corrupt':
      return send({ 'content-encoding': 'gzip' }, Buffer.from('this is not gzip at all, not even a little'));
    case '/cut-short':
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': 100_000 });
      res.write(bytes.subarray(0, 1000));
      return setTimeout(() => res.socket?.destroy(), 20);
    case '/redirect':
      res.writeHead(302, { location: '/plain', 'set-cookie': ['a=1', 'b=2'] });
      return res.end('moved');
    case '/no-response':
      return; // never answers: the response timeout
    case '/stall':
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.write('<html>'); // never ends: the socket's idle timeout
    default:
      return send({}, 'not found', 404);
  }
}

beforeAll(async () => {
  server = http.createServer(route);
  base = await listenTracked(server, sockets);
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => server.close(done));
});

const HEADERS = { 'user-agent': 'ProductDataService/1.0', accept: 'text/html', 'accept-language': 'en-GB' };

const { viaNode, both } = fetchComparer({
  headers: HEADERS,
  // Date changes between the two requests; connection handling is the agent's.
  omit: ['date'],
  received: () => lastHeaders,
});

describe('request.ts answers as got.stream did', () => {
  it.each([
    '/plain',
    '/chunked',
    '/gzip',
    '/deflate',
    '/deflate-raw',
    '/br',
    '/gzip-empty',
    '/gzip-404',
    '/gzip-204',
    '/unknown-encoding',
    '/redirect',
  ])('the same request headers, response head and body for %s', async (path) => {
    const [fromGot, fromNode] = await both({ url: `${base}${path}` });
    expect(fromGot.error).toBeUndefined();
    expect(fromNode).toEqual(fromGot);
  });

  it('decodes every encoding to the page and drops the encoded length and encoding', async () => {
    for (const path of ['/gzip', '/deflate', '/deflate-raw', '/br']) {
      const outcome = await viaNode({ url: `${base}${path}` });
      expect(outcome.body, path).toBe(PAGE);
      expect(outcome.headers, path).not.toHaveProperty('content-encoding');
      expect(outcome.headers, path).not.toHaveProperty('content-length');
    }
    expect((await viaNode({ url: `${base}/unknown-encoding` })).headers).toHaveProperty('content-encoding', 'compress');
    expect((await viaNode({ url: `${base}/plain` })).headers).toHaveProperty('content-length', String(PAGE.length + 1));
  });

  it('sends accept-encoding unless the caller set one', async () => {
    const sent = (await viaNode({ url: `${base}/plain` })).received!;
    expect(sent[sent.indexOf('accept-encoding') + 1]).toMatch(/^gzip, deflate, br/);
    const own = await viaNode({ url: `${base}/plain`, headers: { ...HEADERS, 'Accept-Encoding': 'identity' } });
    expect(own.received![own.received!.indexOf('accept-encoding') + 1]).toBe('identity');
  });

  it.each([
    ['a corrupt encoding', '/corrupt'],
    ['raw deflate read as zlib', '/deflate-raw-misread'],
    ['a response cut short', '/cut-short'],
  ])('the same error name and code for %s', async (_what, path) => {
    const [fromGot, fromNode] = await both({ url: `${base}${path}` });
    expect(fromGot.error).toBeDefined();
    expect(fromNode.error).toEqual(fromGot.error);
    expect(fromNode.status).toBe(fromGot.status);
  });

  it('the same error for a refused connection and for the lookup’s own errors', async () => {
    const closed = http.createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const [refusedGot, refusedNode] = await both({ url: `http://127.0.0.1:${port}/` });
    expect(refusedNode.error).toEqual(refusedGot.error);
    expect(refusedNode.error?.code).toBe('ECONNREFUSED');

    const blocked: LookupFunction = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`${hostname} is blocked`), { code: 'EBLOCKEDADDRESS' }), '', 4);
    const [blockedGot, blockedNode] = await both({ url: `http://shop.test:${port}/`, lookup: blocked });
    expect(blockedNode.error).toEqual(blockedGot.error);
    expect(blockedNode.error?.code).toBe('EBLOCKEDADDRESS');

    const mapped: LookupFunction = (_hostname, options, callback) =>
      (options as { all?: boolean }).all
        ? (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
            { address: '127.0.0.1', family: 4 },
          ])
        : callback(null, '127.0.0.1', 4);
    const [viaLookupGot, viaLookupNode] = await both({
      url: `http://shop.test:${new URL(base).port}/plain`,
      lookup: mapped,
    });
    expect(viaLookupGot.body).toBe(PAGE);
    expect(viaLookupNode).toEqual(viaLookupGot);
  });

  it.each([
    ['response', '/no-response', { response: 150 }],
    ['socket', '/stall', { socket: 150 }],
    ['request', '/stall', { request: 150 }],
  ])('times out as got did: %s', async (_event, path, timeout) => {
    const [fromGot, fromNode] = await both({ url: `${base}${path}`, timeout });
    expect(fromGot.error).toEqual({ timeout: true, code: 'ETIMEDOUT' });
    expect(fromNode.error).toEqual(fromGot.error);
  });

  it('a stream destroyed by its reader emits nothing more', async () => {
    const stream = get(`${base}/chunked`, { headers: HEADERS });
    const events: string[] = [];
    await new Promise<void>((done) => {
      stream.on('response', () => {
        events.push('response');
        stream.destroy();
        setTimeout(done, 50);
      });
      stream.on('data', () => events.push('data'));
      stream.on('end', () => events.push('end'));
      stream.on('error', () => events.push('error'));
    });
    expect(events).toEqual(['response']);
  });
});
