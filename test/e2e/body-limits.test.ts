// Request bodies on every route of the table, through `npm start`'s HTTP server: a body over the
// pipeline's limit is 413 PAYLOAD_TOO_LARGE in the family's shape on every route (GET and DELETE
// included), one over the server's event cap too whether declared, chunked, or both; a body that
// is not JSON is 415 UNSUPPORTED_MEDIA_TYPE on every POST, those that take no body included.
import '../../lambdas/local/polyfills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { ROUTES, familyOf } from '../../lambdas/topology/routes';
import { BODY_LIMIT_BYTES } from '../../lambdas/http/body';
import { MAX_EVENT_BODY_BYTES } from '../../lambdas/local/http-server';
import { setRequestLogSink } from '../../lambdas/http/log';
import { validateResponse } from './helpers/openapi-validator';

const KEY = 'body-limits-key-0123456789abcdef';
let service: LocalService;
let doc: Record<string, any>;

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

type Framing = 'declared' | 'chunked' | 'both';

/** One request over node:http (fetch refuses a GET with a body), the body sent in 64 KB writes. */
function send(method: string, path: string, body: Buffer, contentType: string | null, framing: Framing = 'declared') {
  return new Promise<Reply>((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': KEY };
    if (contentType) headers['content-type'] = contentType;
    if (framing !== 'chunked') headers['content-length'] = String(body.length);
    if (framing !== 'declared') headers['transfer-encoding'] = 'chunked';
    const { port } = new URL(service.url);
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, headers: responseHeaders });
      });
    });
    req.on('error', reject);
    // A socket closed by the server after its early answer is fine: the answer was read first.
    req.on('socket', (socket) => socket.on('error', () => undefined));
    let at = 0;
    const pump = () => {
      while (at < body.length) {
        const chunk = body.subarray(at, at + 64 * 1024);
        at += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const codeOf = (path: string, body: any): string => (familyOf(path) === 'v2' ? body.error.code : body.code);
const concrete = (path: string) => path.replace('{execution_id}', 'extract-urls-00000000-0000-4000-8000-000000000000');

beforeAll(async () => {
  setRequestLogSink(() => undefined);
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-body-limits-')),
    env: { PDS_RATE_LIMIT: '10000:100000' },
    bootstrapKeys: `${KEY}:org-body-limits`,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
}, 60_000);

afterAll(async () => {
  setRequestLogSink(null);
  await service?.stop(1000);
});

describe('a body over the limit', () => {
  it('is 413 PAYLOAD_TOO_LARGE in the family shape on every route, GET and DELETE included', async () => {
    const over = Buffer.alloc(BODY_LIMIT_BYTES + 1, 0x20);
    for (const route of ROUTES) {
      const path = concrete(route.path);
      const reply = await send(route.method, path, over, 'application/json');
      const label = `${route.method} ${route.path}`;
      expect(reply.status, label).toBe(413);
      expect(codeOf(path, reply.body), label).toBe('PAYLOAD_TOO_LARGE');
      if (route.scope !== null)
        expect(validateResponse(doc, { method: route.method, path, ...reply }), label).toEqual([]);
    }
  }, 60_000);

  it('over the event cap is 413 on GET routes too, declared, chunked, or with both framings', async () => {
    const huge = Buffer.alloc(MAX_EVENT_BODY_BYTES + 1024 * 1024, 0x20);
    for (const path of ['/api/vendors', '/v1/vendors', '/v2/vendors', '/health']) {
      for (const framing of ['declared', 'chunked', 'both'] as const) {
        const reply = await send('GET', path, huge, 'application/json', framing);
        expect(reply.status, `${framing} ${path}`).toBe(413);
        expect(codeOf(path, reply.body), `${framing} ${path}`).toBe('PAYLOAD_TOO_LARGE');
      }
    }
    expect((await send('GET', '/v2/vendors', Buffer.alloc(0), null)).status).toBe(200);
  }, 60_000);
});

describe('a body that is not JSON', () => {
  it('is 415 UNSUPPORTED_MEDIA_TYPE in the family shape on every POST, those that take no body included', async () => {
    const posts = ROUTES.filter((route) => route.method === 'POST');
    expect(posts.map((route) => route.path)).toContain('/v2/webhooks/secret');
    for (const route of posts) {
      for (const [contentType, text] of [
        ['text/plain', 'rotate'],
        ['application/x-www-form-urlencoded', 'a=b'],
        [null, '{}'],
      ] as const) {
        const reply = await send('POST', route.path, Buffer.from(text), contentType);
        const label = `${route.path} ${contentType}`;
        expect(reply.status, label).toBe(415);
        expect(codeOf(route.path, reply.body), label).toBe('UNSUPPORTED_MEDIA_TYPE');
        expect(validateResponse(doc, { method: 'POST', path: route.path, ...reply }), label).toEqual([]);
      }
    }
  }, 60_000);

  it('a POST that takes no body still answers without one, or with a JSON one', async () => {
    const bare = await send('POST', '/v2/webhooks/secret', Buffer.alloc(0), null);
    expect(bare.status).toBe(200);
    expect(bare.body.secret).toMatch(/^whsec_/);
    const json = await send('POST', '/v2/webhooks/secret', Buffer.from('{}'), 'application/json');
    expect(json.status).toBe(200);
    expect(json.body.secret).not.toBe(bare.body.secret);
  });
});
