// The local console (/console) and API reference (/docs) of `npm start`: static files only. The
// console is plain HTML + JS + CSS from console/ (no build step); /docs is Swagger UI from the
// swagger-ui-dist package, rendering the served /openapi.json. Nothing here carries data: every
// figure the pages show comes from the public API, called by the browser with the user's key.
//
// Files are served from a fixed table built on first use (console/'s own files by name, and the
// two Swagger UI files), so a request path is a table lookup, never a filesystem path: no
// traversal. Loaded by http-server.ts only when a /console or /docs path is asked for, so it
// costs start-up nothing.
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { AppError } from '../domain/errors';
import { errorBody } from '../http/render';

const CONSOLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'console');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Console pages: scripts and styles only from this origin; images from anywhere over http(s) (product images live on the stores); API calls to this origin. */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Swagger UI sets style attributes from its scripts and inlines SVG icons as data: URLs. */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface StaticFile {
  body: Buffer;
  gzipped: Buffer | null;
  type: string;
  etag: string;
  cacheControl: string;
  csp: string;
}

function staticFile(body: Buffer, name: string, cacheControl: string, csp: string): StaticFile {
  const type = TYPES[extname(name)] ?? 'application/octet-stream';
  const compressible = /^(?:text\/|image\/svg)/.test(type) && body.length > 1024;
  return {
    body,
    gzipped: compressible ? gzipSync(body) : null,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    cacheControl,
    csp,
  };
}

let table: Map<string, StaticFile> | undefined;

/** URL path -> file, built once. Console files revalidate (no-cache + ETag); Swagger UI's sit under its version and never change. */
function files(): Map<string, StaticFile> {
  if (table) return table;
  const built = new Map<string, StaticFile>();
  const require = createRequire(import.meta.url);
  const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const { version } = JSON.parse(readFileSync(join(swaggerDir, 'package.json'), 'utf8')) as { version: string };
  for (const entry of readdirSync(CONSOLE_DIR, { withFileTypes: true })) {
    if (!entry.isFile() || !/^[a-z0-9][\w.-]*$/i.test(entry.name) || !TYPES[extname(entry.name)]) continue;
    const body = readFileSync(join(CONSOLE_DIR, entry.name));
    if (entry.name === 'docs.html') {
      // The page names Swagger UI's versioned files through a placeholder, so an upgrade needs no edit.
      const page = Buffer.from(body.toString('utf8').replaceAll('{{SWAGGER_UI_VERSION}}', version));
      built.set('/docs', staticFile(page, entry.name, 'no-cache', DOCS_CSP));
    } else {
      built.set(`/console/${entry.name}`, staticFile(body, entry.name, 'no-cache', CONSOLE_CSP));
    }
  }
  const index = built.get('/console/index.html');
  const docs = built.get('/docs');
  if (!index || !docs) throw new Error(`console/index.html or console/docs.html is missing under ${CONSOLE_DIR}`);
  built.set('/console', index);
  built.set('/console/', index);
  built.set('/docs/', docs);
  for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
    // The sourceMappingURL names a file not served here; dropped so no tool asks for it.
    const text = readFileSync(join(swaggerDir, name), 'utf8').replace(/\n\/[/*][#@] sourceMappingURL=[^\n]*$/, '\n');
    built.set(
      `/docs/swagger-ui/${version}/${name}`,
      staticFile(Buffer.from(text), name, 'public, max-age=31536000, immutable', DOCS_CSP),
    );
  }
  table = built;
  return built;
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

function answerError(res: ServerResponse, error: AppError, extra: Record<string, string> = {}): void {
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody('public', error, requestId));
  res.writeHead(error.status, {
    ...SECURITY_HEADERS,
    ...extra,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'request-id': requestId,
  });
  res.end(body);
}

/** Answers a request whose path matches CONSOLE_PATH. */
export function serveConsole(req: IncomingMessage, res: ServerResponse, pathname: string): void {
  const method = (req.method ?? 'GET').toUpperCase();
  // Nothing is uploaded here; whatever body came is read and dropped.
  req.resume();
  if (method !== 'GET' && method !== 'HEAD') {
    answerError(res, new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${pathname}`), {
      allow: 'GET, HEAD',
    });
    return;
  }
  const file = files().get(pathname);
  if (!file) {
    answerError(res, new AppError('NOT_FOUND', `No such file: ${pathname}`));
    return;
  }
  const headers: Record<string, string | number> = {
    ...SECURITY_HEADERS,
    'content-type': file.type,
    'cache-control': file.cacheControl,
    'content-security-policy': file.csp,
    etag: file.etag,
    vary: 'accept-encoding',
  };
  const match = req.headers['if-none-match'];
  if (match?.split(/\s*,\s*/).some((tag) => tag.replace(/^W\//, '') === file.etag || tag === '*')) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const gzip = file.gzipped && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? file.gzipped! : file.body;
  if (gzip) headers['content-encoding'] = 'gzip';
  headers['content-length'] = body.length;
  res.writeHead(200, headers);
  res.end(method === 'HEAD' ? undefined : body);
}
