// Issue 14 (hardening), each defect through HTTP to real `npm start` processes (bin/start.mjs, so
// this file loads none of the service's modules itself): deep JSON nesting, one URL length limit
// in every family checked before anything is written, oversize bodies answered 413 and closed
// gracefully (declared length, chunked, Expect: 100-continue), and restarts on one data dir:
// kill -9 in the middle of an extraction or a crawl, then a new process resumes it to completion;
// a restart while the killed owner is still an unreaped zombie.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_URL_LENGTH } from '../../lambdas/domain/extraction/url';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { validateResponse } from './helpers/openapi-validator';
import { exitOf, killLocalProcesses, startLocalProcess, type LocalProcess } from './helpers/local-process';

const KEY = 'hardening-key-0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sim: StoreSimulator;
let service: LocalProcess;
let doc: Record<string, any>;

interface Reply {
  status: number;
  body: any;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  options: { raw?: string; base?: string; key?: string } = {},
): Promise<Reply> {
  const base = options.base ?? service.url;
  const headers: Record<string, string> = { 'x-api-key': options.key ?? KEY };
  const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body: payload });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (doc)
    expect(
      validateResponse(doc, { method, path, status: response.status, headers: response.headers, body: parsed }),
    ).toEqual([]);
  return { status: response.status, body: parsed };
}

/** The error code in the family's shape (v2 nests it). */
const codeOf = (path: string, body: any): string => (path.startsWith('/v2/') ? body.error.code : body.code);

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 200, slowDelayMs: 700 });
  service = await startLocalProcess({
    env: {
      PDS_DATA_DIR: mkdtempSync(join(tmpdir(), 'pds-hardening-')),
      PDS_BOOTSTRAP_KEYS: `${KEY}:org-hardening`,
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RATE_LIMIT: '10000:100000',
      PDS_LOG_LEVEL: 'error',
    },
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
}, 120_000);

afterAll(async () => {
  killLocalProcesses();
  await sim?.close();
});

describe('deep JSON nesting', () => {
  it('any depth is a 400 INVALID_PARAMETER in the family shape, before anything recursive runs', async () => {
    const deep = (n: number) => `${'['.repeat(n)}"https://jsonld-shop.test/p"${']'.repeat(n)}`;
    for (const path of ['/v2/extract', '/v1/products', '/api/products', '/api/search', '/v2/affiliate']) {
      const reply = await call('POST', path, undefined, { raw: `{"urls": ${deep(10_000)}, "query": "x"}` });
      expect(reply.status, path).toBe(400);
      expect(codeOf(path, reply.body), path).toBe('INVALID_PARAMETER');
      expect(JSON.stringify(reply.body)).toMatch(/nested deeper than 64 levels/);
    }
    // Brackets inside strings are data, not nesting.
    const inString = await call('POST', '/v2/affiliate', {
      urls: [`https://shop.example/${'['.repeat(500)}`, `https://shop.example/"${'{['.repeat(200)}`],
    });
    expect(inString.status).toBe(200);
    // Ordinary depth still works and reaches validation.
    const shallow = await call('POST', '/v2/extract', undefined, { raw: `{"urls": ${deep(3)}}` });
    expect(shallow.status).toBe(400);
    expect(shallow.body.invalid_urls ?? shallow.body.error.message).toBeTruthy();
  });
});

describe('one URL length limit in every family', () => {
  const long = (n: number) => {
    const head = 'https://jsonld-shop.test/products/';
    return head + 'a'.repeat(n - head.length);
  };

  it(`is documented in the OpenAPI document (${MAX_URL_LENGTH} characters)`, () => {
    const bodyOf = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    const resolve = (schema: any) =>
      schema.$ref
        ? schema.$ref
            .replace('#/', '')
            .split('/')
            .reduce((n: any, p: string) => n[p], doc)
        : schema;
    expect(resolve(bodyOf('/v1/products')).properties.urls.items.maxLength).toBe(MAX_URL_LENGTH);
    expect(resolve(bodyOf('/v2/extract')).properties.urls.items.maxLength).toBe(MAX_URL_LENGTH);
    expect(resolve(bodyOf('/api/product')).properties.url.maxLength).toBe(MAX_URL_LENGTH);
  });

  it('a 1,000,000-character URL to /v1/products is a 400 and leaves no execution behind', async () => {
    const reply = await call('POST', '/v1/products', { urls: [long(1_000_000)] });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(reply.body.error).toContain(String(MAX_URL_LENGTH));
    expect(JSON.stringify(reply.body).length).toBeLessThan(2000); // the URL is not echoed back
    const listed = await call('GET', '/v1/products?limit=100');
    expect(listed.body.executions).toEqual([]);
  });

  it('every family refuses one character over the limit with 400, before writing anything', async () => {
    const over = long(MAX_URL_LENGTH + 1);
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/v1/products', { urls: [over] }],
      ['POST', '/api/products', { urls: [over] }],
      ['POST', '/api/product', { url: over }],
      ['POST', '/v1/affiliate', { urls: [over] }],
      ['POST', '/v2/affiliate', { urls: [over] }],
      ['POST', '/v1/crawl', { domain: over }],
      ['POST', '/v2/crawl', { vendor: over }],
      ['POST', '/v1/extract', { domain: over }],
      ['POST', '/v2/extract', { vendor: over }],
      ['POST', '/v1/listings', { vendor: over }],
    ];
    for (const [method, path, body] of cases) {
      const reply = await call(method, path, body);
      expect(reply.status, path).toBe(400);
      expect(codeOf(path, reply.body), path).toBe('INVALID_PARAMETER');
    }
    const v2 = await call('POST', '/v2/extract', { urls: ['https://jsonld-shop.test/products/x', long(20_000)] });
    expect(v2.status).toBe(400);
    expect(v2.body.invalid_urls).toEqual([
      expect.objectContaining({ index: 1, problem: `longer than ${MAX_URL_LENGTH} characters` }),
    ]);
    const listing = await call('GET', `/v2/listings?vendor=${'a'.repeat(MAX_URL_LENGTH + 1)}`);
    expect(listing.status).toBe(400);
    for (const path of ['/v1/products?limit=100', '/v1/crawl?limit=100'])
      expect((await call('GET', path)).body.executions).toEqual([]);
    for (const path of ['/v2/extract', '/v2/crawl']) expect((await call('GET', path)).body.data).toEqual([]);
  });

  it('a URL of exactly the limit is accepted and its extraction completes (its items fit the table)', async () => {
    const exact = long(MAX_URL_LENGTH);
    const started = await call('POST', '/v1/products', { urls: [exact] });
    expect(started.status).toBe(200);
    const id = started.body.execution_id as string;
    let status: Reply | undefined;
    for (let i = 0; i < 120; i++) {
      status = await call('GET', `/v1/products/${id}`);
      if (status.body.status !== 'pending' && status.body.status !== 'running') break;
      await sleep(250);
    }
    expect(status!.body.status).toBe('completed');
    expect(status!.body.results.products).toHaveLength(1);
    expect(status!.body.results.products[0].url).toBe(exact);
  }, 60_000);
});

/** Sends `size` bytes of body (declared or chunked) and reads the answer; a reset is reported as such. */
function upload(
  path: string,
  size: number,
  mode: 'declared' | 'chunked' | 'expect',
): Promise<{ status: number; body: any; headers: Headers } | { reset: string }> {
  const { port } = new URL(service.url);
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'x-api-key': KEY };
    if (mode !== 'chunked') headers['content-length'] = size;
    if (mode === 'expect') headers.expect = '100-continue';
    const req = request({ host: '127.0.0.1', port: Number(port), method: 'POST', path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: text ? JSON.parse(text) : null,
          headers: new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
        }),
      );
      res.on('error', (error) => resolve({ reset: error.message }));
    });
    req.on('error', (error) => resolve({ reset: (error as NodeJS.ErrnoException).code ?? error.message }));
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(sent > size ? chunk.subarray(0, chunk.length - (sent - size)) : chunk))
          return void req.once('drain', pump);
      }
      req.end();
    };
    if (mode === 'expect') req.once('continue', pump);
    else pump();
  });
}

describe('bodies over the limit', () => {
  it('get the 413 PAYLOAD_TOO_LARGE body in the family shape, declared or chunked, never a reset', async () => {
    for (const mode of ['declared', 'chunked', 'expect'] as const) {
      for (const [path, size] of [
        ['/v2/extract', 7_000_000],
        ['/v1/products', 7_000_000],
        ['/api/products', 20_000_000],
      ] as const) {
        const reply = await upload(path, size, mode);
        expect(reply, `${mode} ${path}`).not.toHaveProperty('reset');
        const { status, body, headers } = reply as { status: number; body: any; headers: Headers };
        expect(status, `${mode} ${path}`).toBe(413);
        expect(codeOf(path, body), `${mode} ${path}`).toBe('PAYLOAD_TOO_LARGE');
        expect(validateResponse(doc, { method: 'POST', path, status, headers, body })).toEqual([]);
      }
    }
    // Between the pipeline's 1 MiB and the server's 6 MiB: the pipeline's 413, same shape.
    const middle = await upload('/v1/products', 2_000_000, 'declared');
    expect(middle).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    // The server is fine afterwards.
    expect((await call('GET', '/v2/vendors')).status).toBe(200);
  }, 60_000);
});

describe('requests the HTTP parser refuses', () => {
  it('get a JSON error in the family shape, not a bare 400', async () => {
    const { port } = new URL(service.url);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
        let got = '';
        socket.on('data', (chunk) => (got += chunk));
        socket.on('close', () => resolve(got));
        socket.on('error', () => resolve(got));
      });
    const v2 = await raw('POST /v2/extract HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(v2).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(v2.slice(v2.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { code: 'INVALID_PARAMETER', message: 'Malformed HTTP request' },
    });
    const v1 = await raw(
      'GET /v1/vendors HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n',
    );
    expect(v1).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(v1.slice(v1.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'Malformed HTTP request',
      code: 'INVALID_PARAMETER',
    });
  });
});

// ---- real processes on one data dir ----
/** `npm start` on `dataDir`; resolves at its ready line. `wrapped`: under a shell that never reaps it. */
function spawnLocal(dataDir: string, options: { wrapped?: boolean; env?: Record<string, string> } = {}) {
  return startLocalProcess({
    wrapped: options.wrapped,
    env: {
      PDS_DATA_DIR: dataDir,
      PDS_BOOTSTRAP_KEYS: `${KEY}:org-restart`,
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RATE_LIMIT: '10000:100000',
      ...options.env,
    },
  });
}

const processState = (pid: number): string | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
  } catch {
    return null;
  }
};

/** v2 status, checking the counts invariant on every read. */
async function pollStatus(base: string, id: string): Promise<any> {
  const reply = await call('GET', `/v2/extract/${id}?page_size=100`, undefined, { base });
  expect(reply.status).toBe(200);
  const r = reply.body.meta.result;
  expect(r.products_successful + r.products_failed + r.products_invalid + r.products_pending).toBe(
    r.products_requested,
  );
  return reply.body;
}

/** kill -9 of `first`, then a new process on the same data dir, which says it resumed one execution. */
async function killAndRestart(first: LocalProcess, dataDir: string): Promise<LocalProcess> {
  first.child.kill('SIGKILL');
  await exitOf(first.child);
  const second = await spawnLocal(dataDir);
  expect(second.output()).toMatch(/Resumed 1 unfinished execution/);
  return second;
}

/** Polls a status every 200 ms (at most 600 times) until it is neither running nor pending. */
async function untilFinished(poll: () => Promise<any>): Promise<any> {
  let status: any;
  for (let i = 0; i < 600; i++) {
    status = await poll();
    if (status.status !== 'running' && status.status !== 'pending') break;
    await sleep(200);
  }
  return status;
}

describe('restarts (real processes on one data dir)', () => {
  it('kill -9 in the middle of an extraction, restart: it resumes and completes, every URL with exactly one outcome', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-resume-'));
    // The killed process's host slots free when their leases end: 5 s here (pages take 700 ms).
    const leases = { env: { PDS_HOST_LEASE_MS: '5000' } };
    const first = await spawnLocal(dataDir, leases);
    // Slow pages (700 ms each): the extraction is still running when the process dies.
    const slow = sim.store('slow.test');
    const good = sim.store('jsonld-shop.test');
    const urls = [
      ...Array.from({ length: 24 }, (_, i) => slow.productUrl(i)),
      ...Array.from({ length: 6 }, (_, i) => good.productUrl(i)),
      'not a url',
    ];
    const started = await call('POST', '/v1/products', { urls }, { base: first.url });
    expect(started.status).toBe(200);
    const id = started.body.execution_id as string;
    let before: any;
    for (let i = 0; i < 200; i++) {
      before = await pollStatus(first.url, id);
      if (before.status === 'running' && before.meta.progress.products_processed > 1) break;
      await sleep(100);
    }
    expect(before.status).toBe('running');
    expect(before.meta.progress.products_processed).toBeLessThan(urls.length);
    const second = await killAndRestart(first, dataDir);
    const after = await untilFinished(() => pollStatus(second.url, id));
    expect(after.status).toBe('completed');
    expect(after.meta.result.products_requested).toBe(urls.length);
    expect(after.meta.result.products_pending).toBe(0);
    expect(after.data).toHaveLength(urls.length);
    // One outcome per input index, in input order, under its own input URL.
    expect(after.data.map((r: any) => r.url)).toEqual(urls);
    expect(after.data.filter((r: any) => r.success)).toHaveLength(after.meta.result.products_successful);
    expect(after.meta.result.products_successful).toBe(30); // every page was extracted, none abandoned
    expect(after.meta.result.products_invalid).toBe(1);
    second.child.kill('SIGTERM');
    await exitOf(second.child);
  }, 180_000);

  it("kill -9 in the middle of a crawl, restart: it resumes and lists exactly the store's listings, each once", async () => {
    const host = 'html-only.test';
    const truth = sim.catalog(host);
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-crawl-resume-'));
    // 150 ms between requests to the store: the crawl of its ~40 pages is still running when the process dies.
    const first = await spawnLocal(dataDir, { env: { PDS_CRAWL_DELAY_MS: '150' } });
    const started = await call('POST', '/v2/crawl', { vendor: host }, { base: first.url });
    expect(started.status).toBe(202);
    const id = started.body.execution_id as string;
    let before: any;
    for (let i = 0; i < 400; i++) {
      before = (await call('GET', `/v2/crawl/${id}`, undefined, { base: first.url })).body;
      if (before.status === 'running' && before.meta.progress?.listings_found > 0) break;
      await sleep(50);
    }
    expect(before.status).toBe('running');
    expect(before.meta.progress.listings_found).toBeLessThan(truth.listingCount());
    const second = await killAndRestart(first, dataDir);
    const after = await untilFinished(
      async () => (await call('GET', `/v2/crawl/${id}`, undefined, { base: second.url })).body,
    );
    expect(after.status).toBe('completed');
    expect(after.meta.result.listings_total).toBe(truth.listingCount());
    // Every listing once: the pages listed before the kill and again after it are not doubled.
    const listed: string[] = [];
    for (let page = 1; page <= 20; page++) {
      const reply = await call('GET', `/v2/listings?vendor=${host}&page=${page}&page_size=100`, undefined, {
        base: second.url,
      });
      expect(reply.status).toBe(200);
      listed.push(...reply.body.data.map((l: any) => l.url));
      if (!reply.body.pagination.has_next) break;
    }
    expect(listed).toHaveLength(truth.listingCount());
    expect(new Set(listed)).toEqual(new Set(truth.listingUrls()));
    const collections = await call('GET', `/v2/collections?vendor=${host}&page_size=100`, undefined, {
      base: second.url,
    });
    for (const c of truth.collections)
      expect(collections.body.data.find((x: any) => x.url === c.url)?.products_total ?? 0, c.handle).toBe(c.size());
    second.child.kill('SIGTERM');
    await exitOf(second.child);
  }, 180_000);

  it('starts right after kill -9 while the killed owner is still an unreaped zombie', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-zombie-'));
    const first = await spawnLocal(dataDir, { wrapped: true });
    expect(JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).pid).toBe(first.pid);
    process.kill(first.pid, 'SIGKILL');
    for (let i = 0; i < 100 && processState(first.pid) !== 'Z'; i++) await sleep(50);
    expect(processState(first.pid)).toBe('Z'); // dead, still in the process table, signal 0 still succeeds
    expect(() => process.kill(first.pid, 0)).not.toThrow();

    const second = await spawnLocal(dataDir);
    expect(JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).pid).toBe(second.pid);
    // Start-up prints what the operator needs and nothing else (no SDK Node-version warning).
    expect(second.output().trim().split('\n')).toEqual([
      expect.stringMatching(/^ready http:\/\/127\.0\.0\.1:\d+ in \d+ ms \(data: .+\)$/),
      expect.stringMatching(
        /^console http:\/\/127\.0\.0\.1:\d+\/console · API reference http:\/\/127\.0\.0\.1:\d+\/docs$/,
      ),
      expect.stringMatching(/^local AWS endpoints \(region us-east-1, any credentials; also in .+runtime\.json\):$/),
      expect.stringMatching(/^ {2}dynamodb {7}http:\/\/127\.0\.0\.1:\d+ \(table \w+\)$/),
      expect.stringMatching(/^ {2}sqs {12}http:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^ {2}stepfunctions {2}http:\/\/127\.0\.0\.1:\d+$/),
    ]);
    expect((await call('GET', '/v2/vendors', undefined, { base: second.url })).status).toBe(200);
    // A live owner is still refused.
    await expect(spawnLocal(dataDir)).rejects.toThrow(/in use by process/);
    first.child.kill('SIGKILL'); // the wrapper: the zombie goes with it
    second.child.kill('SIGTERM');
    await exitOf(second.child);
  }, 180_000);
});
