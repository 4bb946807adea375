// The static side of /console and /docs over real HTTP (lambdas/local/console.ts behind the local
// HTTP server): content types, caching (ETag revalidation, immutable versioned vendor files),
// gzip, HEAD, CSP and the other security headers, 405 for writes, 404 in the public error shape
// for unknown files and every traversal attempt, and that the module stays out of start-up.
// Route-table requests get a stub handler here: nothing in this suite needs the service.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type RunningHttpServer } from '../../lambdas/local/http-server';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const swaggerVersion = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), 'utf8')) as {
    version: string;
  }
).version;
const ROUTE_TABLE_MARK = 'answered by the route table';

let server: RunningHttpServer;

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request with the path sent exactly as given (fetch would normalise dot segments first). */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((done, fail) => {
    const request = http.request({ host: '127.0.0.1', port: server.port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        done({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', fail);
    request.end();
  });
}

beforeAll(async () => {
  server = await startHttpServer({
    port: 0,
    loadHandler: async () => () => ({ statusCode: 404, body: ROUTE_TABLE_MARK }),
  });
});

afterAll(async () => {
  await server?.close();
});

describe('console static files', () => {
  it('serves the console page at /console and /console/ with a strict CSP and revalidation', async () => {
    for (const path of ['/console', '/console/']) {
      const reply = await raw('GET', path);
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(reply.headers['cache-control']).toBe('no-cache');
      expect(reply.headers.etag).toMatch(/^"[\w-]+"$/);
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['x-frame-options']).toBe('DENY');
      expect(reply.headers['referrer-policy']).toBe('no-referrer');
      const csp = String(reply.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(reply.body.toString()).toBe(readFileSync(join(root, 'console/index.html'), 'utf8'));
    }
  });

  it('gives each asset its content type', async () => {
    const expected: Record<string, string> = {
      '/console/app.js': 'text/javascript; charset=utf-8',
      '/console/app.css': 'text/css; charset=utf-8',
      '/console/docs.js': 'text/javascript; charset=utf-8',
      '/console/docs.css': 'text/css; charset=utf-8',
      '/console/favicon.svg': 'image/svg+xml',
    };
    for (const [path, type] of Object.entries(expected)) {
      const reply = await raw('GET', path);
      expect(reply.status, path).toBe(200);
      expect(reply.headers['content-type'], path).toBe(type);
      expect(reply.body.toString(), path).toBe(readFileSync(join(root, path.slice(1)), 'utf8'));
    }
  });

  it('serves /docs naming Swagger UI files under their version, cached as immutable', async () => {
    const page = await raw('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = page.body.toString();
    expect(html).not.toContain('{{');
    const assets = [...html.matchAll(/(?:src|href)="(\/docs\/swagger-ui\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.sort()).toEqual([
      `/docs/swagger-ui/${swaggerVersion}/swagger-ui-bundle.js`,
      `/docs/swagger-ui/${swaggerVersion}/swagger-ui.css`,
    ]);
    for (const asset of assets) {
      const reply = await raw('GET', asset);
      expect(reply.status, asset).toBe(200);
      expect(reply.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(reply.body.length).toBeGreaterThan(10_000);
      expect(reply.body.toString()).not.toMatch(/sourceMappingURL=/);
    }
    // Swagger UI needs inline styles; scripts stay this origin's only.
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  });

  it('answers 304 to a matching If-None-Match, gzip when asked, and HEAD without a body', async () => {
    const first = await raw('GET', '/console/app.js');
    const again = await raw('GET', '/console/app.js', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const other = await raw('GET', '/console/app.js', { 'if-none-match': '"something-else"' });
    expect(other.status).toBe(200);

    const zipped = await raw('GET', '/console/app.js', { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(zipped.body).equals(first.body)).toBe(true);
    expect(first.headers['content-encoding']).toBeUndefined();

    const head = await raw('HEAD', '/console/app.js');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBe(first.body.length);
  });

  it('refuses writes with 405 in the public error shape', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const reply = await raw(method, '/console');
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toBe('GET, HEAD');
      expect(JSON.parse(reply.body.toString())).toEqual({
        error: `${method} is not allowed on /console`,
        code: 'METHOD_NOT_ALLOWED',
      });
    }
  });

  it('answers 404 for unknown files and never serves a file outside the table', async () => {
    const secret = readFileSync(join(root, 'package.json'), 'utf8');
    const paths = [
      '/console/nope.js',
      '/console/app.js.map',
      '/console/..%2fpackage.json',
      '/console/..%2f..%2fpackage.json',
      '/console/%2e%2e%2fpackage.json',
      '/console/app.js%00.css',
      '/console/index.html/',
      `/docs/swagger-ui/${swaggerVersion}/package.json`,
      `/docs/swagger-ui/${swaggerVersion}/swagger-ui-bundle.js.map`,
      `/docs/swagger-ui/${swaggerVersion}/index.html`,
      '/docs/swagger-ui/0.0.0/swagger-ui.css',
      '/docs/index.html',
    ];
    for (const path of paths) {
      const reply = await raw('GET', path);
      expect(reply.status, path).toBe(404);
      expect(reply.headers['content-type'], path).toBe('application/json; charset=utf-8');
      const body = JSON.parse(reply.body.toString());
      expect(body.code, path).toBe('NOT_FOUND');
      expect(reply.body.toString()).not.toContain(secret.slice(0, 40));
    }
    // Dot segments are resolved before routing: such a path leaves /console and reaches the route table.
    for (const path of [
      '/console/../package.json',
      '/docs/../../package.json',
      '/console/%2e%2e/package.json',
      '/console/.%2e/package.json',
      '/console/..\\package.json',
    ]) {
      const reply = await raw('GET', path);
      expect(reply.status, path).toBe(404);
      expect(reply.body.toString(), path).toBe(ROUTE_TABLE_MARK);
    }
  });

  it('leaves other paths to the route table, and stays out of start-up (loaded on first use)', async () => {
    for (const path of ['/consoles', '/documentation', '/v2/docs', '/api/console']) {
      expect((await raw('GET', path)).body.toString(), path).toBe(ROUTE_TABLE_MARK);
    }
    const source = readFileSync(join(root, 'lambdas/local/http-server.ts'), 'utf8');
    expect(source).toMatch(/await import\('\.\/console'\)/);
    expect(source).not.toMatch(/^import[^;]*from '\.\/console'/m);
  });
});
