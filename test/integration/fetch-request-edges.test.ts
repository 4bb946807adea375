// Review of request.ts (the fetcher's one request over node:http/https) on the edges the
// side-by-side test (fetch-request.test.ts) does not reach: several or upper-case
// content-encodings, an encoded body cut short, a body longer than it says, no timer or handle
// left holding the process after an outcome, TLS (certificate refused as before, SNI name), and
// the SSRF lookup asked for every new connection. Each case runs got.stream (what the fetcher
// used) and request.ts against the same loopback server.
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, type RequestTimeouts } from '../../lambdas/adapters/http-fetch/request';
import { fetchComparer, listenTracked } from './_fetch-compare';

// A self-signed certificate for CN/SAN localhost, valid for 100 years (test fixture only).
const CERT = `-----BEGIN CERTIFICATE-----
MIIBlDCCATugAwIBAgIUGsZ1JIWID0asrg0keXypm7XR5BMwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNDEwMDQ1OFoYDzIxMjYxMDMx
MTAwNDU4WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARZjNFPhixIOiTeBtU9Nh7/ClsZq+wECNSKbRmrF7YPWru7nAyWgeor
O1pfWank+vfN9vIA1OFSDU5UStMxLIvTo2kwZzAdBgNVHQ4EFgQUkHv8f0cP4Ank
JF6CJwtWQldSLKcwHwYDVR0jBBgwFoAUkHv8f0cP4AnkJF6CJwtWQldSLKcwDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID
RwAwRAIgKRm24PHd3KGba5IJRnwpDrMYmE3xcnI8clFkt3t6Zp8CIBwpD7WOY4X9
bsB7m21rETolJVLk01yMQBf8OHZ4D1oa
-----END CERTIFICATE-----
`;
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgE1jY9O9NAqmns9oh
6tNJNeHAdGvFe/Jh4LCRxbaaSFahRANCAARZjNFPhixIOiTeBtU9Nh7/ClsZq+wE
CNSKbRmrF7YPWru7nAyWgeorO1pfWank+vfN9vIA1OFSDU5UStMxLIvT
-----END PRIVATE KEY-----
`;

const PAGE = `<html><head><title>Crème brûlée — 5 €</title></head><body>${'<p>product</p>'.repeat(500)}</body></html>`;
const BYTES = Buffer.from(PAGE);
const HEADERS = { 'user-agent': 'ProductDataService/1.0', accept: 'text/html' };

const { viaGot, viaNode } = fetchComparer({ headers: HEADERS, omit: ['date', 'connection', 'keep-alive'] });

function route(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = new URL(String(req.url), 'http://x').pathname;
  const send = (headers: Record<string, string | number>, body: Buffer | string, status = 200) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  switch (path) {
    case '/plain':
      return send({ 'content-length': BYTES.length }, BYTES);
    case '/gzip-then-br':
      // Encodings listed in the order applied: gzip first, then br.
      return send({ 'content-encoding': 'gzip, br' }, zlib.brotliCompressSync(zlib.gzipSync(BYTES)));
    case '/gzip-upper':
      return send({ 'content-encoding': 'GZIP' }, zlib.gzipSync(BYTES));
    case '/br-upper':
      return send({ 'content-encoding': 'Br' }, zlib.brotliCompressSync(BYTES));
    case '/gzip-cut-short': {
      // A gzip body whose content-length promises more than the socket gives before it closes.
      const gz = zlib.gzipSync(BYTES);
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': gz.length });
      res.write(gz.subarray(0, gz.length >> 1));
      return setTimeout(() => res.socket?.destroy(), 20);
    }
    case '/gzip-truncated':
      // A complete HTTP message whose gzip stream stops half-way (zlib: unexpected end of file).
      return send({ 'content-encoding': 'gzip' }, zlib.gzipSync(BYTES).subarray(0, 200));
    case '/gzip-trailing-garbage':
      return send({ 'content-encoding': 'gzip' }, Buffer.concat([zlib.gzipSync(BYTES), Buffer.from('garbage!')]));
    case '/longer-than-said':
      // Says 10 bytes, writes the whole page: the client reads 10 and the rest is not a response.
      res.socket?.write(
        `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 10\r\nconnection: close\r\n\r\n${PAGE}`,
      );
      return res.socket?.end();
    case '/stall':
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.write('<html>'); // never ends
    default:
      return send({}, 'not found', 404);
  }
}

const sockets = new Set<Socket>();
let server: http.Server;
let base: string;
let tlsServer: https.Server;
let tlsPort: number;
const servernames: Array<string | false> = [];

beforeAll(async () => {
  server = http.createServer(route);
  base = await listenTracked(server, sockets);
  tlsServer = https.createServer({ cert: CERT, key: KEY }, route);
  tlsServer.on('secureConnection', (socket: TLSSocket) => {
    servernames.push((socket as TLSSocket & { servername: string | false }).servername);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => tlsServer.listen(0, '127.0.0.1', done));
  tlsPort = (tlsServer.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all([new Promise((done) => server.close(done)), new Promise((done) => tlsServer.close(done))]);
});

const toLoopback: LookupFunction = (_hostname, options, callback) =>
  (options as { all?: boolean }).all
    ? (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: '127.0.0.1', family: 4 },
      ])
    : callback(null, '127.0.0.1', 4);

describe('request.ts on the edges, against got.stream', () => {
  it.each([
    '/gzip-then-br',
    '/gzip-upper',
    '/br-upper',
    '/gzip-cut-short',
    '/gzip-truncated',
    '/gzip-trailing-garbage',
    '/longer-than-said',
  ])('the same outcome for %s', async (path) => {
    const fromGot = await viaGot({ url: `${base}${path}` });
    const fromNode = await viaNode({ url: `${base}${path}` });
    expect(fromNode).toEqual(fromGot);
  });

  it('upper-case encodings are decoded to the page; a list of encodings is left as sent', async () => {
    expect((await viaNode({ url: `${base}/gzip-upper` })).body).toBe(PAGE);
    expect((await viaNode({ url: `${base}/br-upper` })).body).toBe(PAGE);
    const listed = await viaNode({ url: `${base}/gzip-then-br` });
    expect(listed.headers).toHaveProperty('content-encoding', 'gzip, br');
    expect(listed.body).not.toBe(PAGE);
  });

  it('a body longer than its content-length fails as the parser says (bytes past the length are no response)', async () => {
    const outcome = await viaNode({ url: `${base}/longer-than-said` });
    expect(outcome.status).toBe(200);
    expect(outcome.error).toEqual({ timeout: false, code: 'HPE_CLOSED_CONNECTION' });
  });

  it('leaves no timer or handle holding the process after a page, an error or a timeout', async () => {
    const timeout: RequestTimeouts = {
      lookup: 5000,
      connect: 5000,
      secureConnect: 5000,
      send: 5000,
      response: 5000,
      socket: 5000,
      request: 5000,
    };
    // No keep-alive pool: every socket this request opened must be gone too.
    const agent = new http.Agent({ keepAlive: false });
    // Timers that keep the event loop alive (unref'd ones are not listed).
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const settle = async () => {
      for (let turn = 0; turn < 5; turn++) await new Promise((done) => setImmediate(done));
    };
    await settle();
    const before = timers();
    for (const path of ['/plain', '/gzip-upper', '/gzip-truncated', '/gzip-cut-short']) {
      await viaNode({ url: `${base}${path}`, timeout, agent: { http: agent } });
      await settle();
      expect(timers(), path).toBeLessThanOrEqual(before);
      expect(Object.values(agent.sockets).flat(), path).toEqual([]);
    }
    const timedOut = await viaNode({
      url: `${base}/stall`,
      timeout: { ...timeout, request: 100 },
      agent: { http: agent },
    });
    expect(timedOut.error).toEqual({ timeout: true, code: 'ETIMEDOUT' });
    await settle();
    expect(timers()).toBeLessThanOrEqual(before);
    expect(Object.values(agent.sockets).flat()).toEqual([]);
  });

  it('refuses a self-signed certificate as got did, with the same code', async () => {
    const fromGot = await viaGot({ url: `https://127.0.0.1:${tlsPort}/plain` });
    const fromNode = await viaNode({ url: `https://127.0.0.1:${tlsPort}/plain` });
    expect(fromGot.error).toBeDefined();
    expect(fromNode).toEqual(fromGot);
  });

  it('names the host for SNI as got did (and no name for an address), through an agent that trusts the certificate', async () => {
    const agent = () => ({ https: new https.Agent({ ca: CERT, keepAlive: false }) });
    servernames.length = 0;
    const byNameGot = await viaGot({ url: `https://localhost:${tlsPort}/plain`, lookup: toLoopback, agent: agent() });
    const byNameNode = await viaNode({ url: `https://localhost:${tlsPort}/plain`, lookup: toLoopback, agent: agent() });
    expect(byNameGot.body).toBe(PAGE);
    expect(byNameNode).toEqual(byNameGot);
    expect(servernames).toEqual(['localhost', 'localhost']);
  });

  it('asks the guarded lookup for every new connection, as got did', async () => {
    const count = async (via: typeof viaNode) => {
      let asked = 0;
      const lookup: LookupFunction = (hostname, options, callback) => {
        asked++;
        toLoopback(hostname, options, callback);
      };
      const agent = { http: new http.Agent({ keepAlive: false }) };
      const port = new URL(base).port;
      for (let i = 0; i < 3; i++) {
        const outcome = await via({ url: `http://shop.test:${port}/plain`, lookup, agent });
        expect(outcome.body).toBe(PAGE);
      }
      return asked;
    };
    const fromGot = await count(viaGot);
    const fromNode = await count(viaNode);
    expect(fromNode).toBe(3);
    expect(fromNode).toBe(fromGot);
  });

  it('a stream destroyed mid-body by its reader closes its socket', async () => {
    const agent = new http.Agent({ keepAlive: false });
    const stream = get(`${base}/gzip-upper`, { headers: HEADERS, agent: { http: agent } });
    const [head] = (await once(stream, 'response')) as [{ statusCode: number }];
    expect(head.statusCode).toBe(200);
    stream.destroy();
    for (let turn = 0; turn < 5; turn++) await new Promise((done) => setImmediate(done));
    expect(Object.values(agent.sockets).flat()).toEqual([]);
  });
});
