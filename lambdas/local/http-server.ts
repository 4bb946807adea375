// The local stand-in for API Gateway (HTTP API, payload 2.0) + Lambda: matches the route table,
// builds the same event API Gateway would, and calls the route's exported `handler`. Unmatched
// requests go to public/fallback (API Gateway's $default route).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { Route } from '../topology/routes';
import { familyOf } from '../topology/routes';
import { matchRoute } from '../http/match';
import { errorBody, errorResult } from '../http/render';
import { AppError, type ErrorCode } from '../domain/errors';
import { registeredModule } from './modules';

/** What a handler may answer: a result, or nothing (payload 2.0 then answers an empty 200). */
type HandlerAnswer = APIGatewayProxyResultV2 | undefined;

export type LocalHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<HandlerAnswer> | HandlerAnswer;

export interface HttpServerOptions {
  port: number;
  host?: string;
  /** How a route's handler is loaded; default: dynamic import of lambdas/http/<handler>.ts. */
  loadHandler?: (route: Route | null) => Promise<LocalHandler>;
  /** Lambda timeout given to handlers (getRemainingTimeInMillis); API Gateway's cap is 30 s. */
  timeoutMs?: number;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** API Gateway -> Lambda synchronous payload limit; the pipeline's own 1 MiB cap sits below it. */
export const MAX_EVENT_BODY_BYTES = 6 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

const TEXTUAL = /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:json|xml|x-www-form-urlencoded|javascript))/i;

/** lambdas/http/ of this checkout (keys of the `npm start` bundle's registered modules). */
const HTTP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../http');

export async function defaultLoadHandler(route: Route | null): Promise<LocalHandler> {
  const bundled = registeredModule(join(HTTP_DIR, route?.handler ?? 'public/fallback'));
  const module = bundled
    ? await bundled()
    : route
      ? await import(/* @vite-ignore */ `../http/${route.handler}`)
      : await import('../http/public/fallback');
  if (typeof module.handler !== 'function')
    throw new Error(`lambdas/http/${route?.handler ?? 'public/fallback'}.ts exports no handler`);
  return module.handler as LocalHandler;
}

class BodyTooLarge extends Error {}

/** After a 413 the rest of an upload is read and dropped for at most this long / this much, then the socket closes. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 * 1024 * 1024;

function declaredLength(req: IncomingMessage): number {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) ? declared : -1;
}

const NO_BODY = Buffer.alloc(0);

/**
 * Whether the request carries no body, judged from its framing headers: HTTP/1.1 requests
 * without Content-Length or Transfer-Encoding have none (the parser reads nothing more), nor
 * do those with Content-Length 0. Then nothing needs to be read or waited for; Node's server
 * drains the (empty) request when the response finishes.
 */
const bodiless = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] === undefined &&
  (req.headers['content-length'] === undefined || req.headers['content-length'] === '0');

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> | Buffer {
  if (bodiless(req)) return NO_BODY;
  return new Promise((resolve, reject) => {
    if (declaredLength(req) > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering at once; the rest of the upload is drained after the 413 (lingerAndClose).
        req.off('data', onData);
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A graceful close after an early answer (a 413 while the upload still arrives): closing a socket
 * with unread data makes the kernel send a reset, and the client may never read the answer. So
 * the answer is sent, our side half-closes (FIN), and what the client still sends is read and
 * dropped until it ends or closes, for at most LINGER_MS and LINGER_BYTES.
 */
function lingerAndClose(req: IncomingMessage): void {
  const socket = req.socket;
  // Node destroys the socket once a `connection: close` response is flushed; end it instead.
  (socket as unknown as { destroySoon: () => void }).destroySoon = () => socket.end();
  // Once the answer is flushed and nothing is left unread, closing is clean.
  const closeWhenFlushed = () =>
    socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy());
  let drained = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', closeWhenFlushed);
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_BYTES) socket.destroy();
  });
  req.on('end', closeWhenFlushed);
  req.on('error', () => socket.destroy());
  req.resume();
}

function payloadTooLarge(path: string, requestId: string) {
  return errorResult(
    familyOf(path),
    new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_EVENT_BODY_BYTES} bytes`),
    requestId,
  );
}

/** The Content-Length a raw request head declares, or -1. */
function declaredInHead(head: string): number {
  const end = head.indexOf('\r\n\r\n');
  const match = /\r\ncontent-length:[ \t]*(\d+)[ \t]*\r\n/i.exec(`${end < 0 ? head : head.slice(0, end)}\r\n`);
  return match ? Number(match[1]) : -1;
}

/** Requests the HTTP parser refuses (bad framing, header overflow) get a JSON answer, not a bare 400. */
function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  // A response already under way, or a peer gone: nothing more can be said on this socket.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const head = error.rawPacket?.toString('latin1') ?? '';
  const path = head.split('\r\n', 1)[0].split(' ')[1] ?? '/';
  const [status, reason, code, message]: [number, string, ErrorCode, string] =
    // Refused framing (Content-Length beside chunked) declaring a body over the cap: the size is
    // the answer, as for any request over it.
    declaredInHead(head) > MAX_EVENT_BODY_BYTES
      ? [413, 'Payload Too Large', 'PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_EVENT_BODY_BYTES} bytes`]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'INVALID_PARAMETER', 'Request headers are too large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'TIMEOUT', 'The request did not arrive in time']
          : [400, 'Bad Request', 'INVALID_PARAMETER', 'Malformed HTTP request'];
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(familyOf(path), new AppError(code, message), requestId));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nrequest-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The request target as API Gateway reports it: path, raw query string and its parameters. */
export interface RequestTarget {
  path: string;
  rawQueryString: string;
  /** Parameters in order, repeated names joined with commas; absent when there are none. */
  query: Record<string, string> | undefined;
}

/**
 * Targets WHATWG URL parsing leaves exactly as they are: an origin-form path of plain characters
 * (no dot segment, no empty segment, no backslash, nothing it would percent-encode) and a query of
 * plain characters. Anything else goes through `new URL`, the reference.
 */
const PLAIN_TARGET = /^(?!\/\/)(?:\/(?![.]|%2e)[\w\-.~!$&()*+,;=:@%]*)+(?:\?[\w\-.~!$&()*+,;=:@%/?]*)?$/i;

/** Adds one parameter as API Gateway does (repeats joined with commas); false when skipped. */
function addParameter(query: Record<string, string>, name: string, value: string): boolean {
  // Own keys only: a parameter named "constructor" or "__proto__" is data, not Object.prototype.
  if (name === '__proto__') return false;
  query[name] = Object.hasOwn(query, name) ? `${query[name]},${value}` : value;
  return true;
}

function queryParameters(parameters: URLSearchParams): Record<string, string> | undefined {
  const query: Record<string, string> = {};
  let any = false;
  for (const [name, value] of parameters) if (addParameter(query, name, value)) any = true;
  return any ? query : undefined;
}

/**
 * The parameters of a plain query (PLAIN_TARGET's characters): without "%" or "+" nothing needs
 * decoding, so splitting at "&" and the first "=" gives what URLSearchParams gives; otherwise it
 * is URLSearchParams (which drops one leading "?" of its input: the query's own one stays data).
 */
function plainQuery(search: string): Record<string, string> | undefined {
  if (!search) return undefined;
  if (search.includes('%') || search.includes('+')) return queryParameters(new URLSearchParams(`?${search}`));
  const query: Record<string, string> = {};
  let any = false;
  for (const pair of search.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const added = eq < 0 ? addParameter(query, pair, '') : addParameter(query, pair.slice(0, eq), pair.slice(eq + 1));
    if (added) any = true;
  }
  return any ? query : undefined;
}

/** The path, raw query string and query parameters of a request line's target (`req.url`). */
export function requestTarget(rawUrl: string | undefined): RequestTarget {
  const target = rawUrl ?? '/';
  if (PLAIN_TARGET.test(target)) {
    const at = target.indexOf('?');
    if (at < 0) return { path: target, rawQueryString: '', query: undefined };
    const rawQueryString = target.slice(at + 1);
    return { path: target.slice(0, at), rawQueryString, query: plainQuery(rawQueryString) };
  }
  let url: URL;
  try {
    url = new URL(target, 'http://localhost');
  } catch {
    url = new URL('http://localhost/');
  }
  return {
    path: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    query: queryParameters(url.searchParams),
  };
}

/** "GET /v2/vendors" per route, made once. */
const routeKeys = new WeakMap<Route, string>();
const routeKeyOf = (route: Route | null): string => {
  if (!route) return '$default';
  let key = routeKeys.get(route);
  if (key === undefined) routeKeys.set(route, (key = `${route.method} ${route.path}`));
  return key;
};

function buildEvent(
  req: IncomingMessage,
  target: RequestTarget,
  body: Buffer,
  route: Route | null,
  pathParameters: Record<string, string>,
  requestId: string,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  const incoming = req.headers;
  // Node lower-cases the names of req.headers already.
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || name === 'cookie') continue;
    headers[name] = typeof value === 'string' ? value : value.join(',');
  }
  const cookies = incoming.cookie ? incoming.cookie.split(/;\s*/).filter(Boolean) : undefined;
  const contentType = headers['content-type'] ?? '';
  const textual = !body.length || !contentType || TEXTUAL.test(contentType);
  const method = (req.method ?? 'GET').toUpperCase();
  const routeKey = routeKeyOf(route);
  const now = new Date();
  let hasPathParameters = false;
  for (const _ in pathParameters) {
    hasPathParameters = true;
    break;
  }
  return {
    version: '2.0',
    routeKey,
    rawPath: target.path,
    rawQueryString: target.rawQueryString,
    ...(cookies ? { cookies } : {}),
    headers,
    ...(target.query ? { queryStringParameters: target.query } : {}),
    ...(route && hasPathParameters ? { pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0],
      http: {
        method,
        path: target.path,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length
      ? { body: textual ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !textual }
      : { isBase64Encoded: false }),
  };
}

/** The Lambda context of one invocation (its methods shared, not made per request). */
class LocalLambdaContext implements Context {
  callbackWaitsForEmptyEventLoop = false;
  functionName: string;
  functionVersion = '$LATEST';
  invokedFunctionArn: string;
  memoryLimitInMB = '1024';
  awsRequestId: string;
  logGroupName: string;
  logStreamName = 'local';
  readonly #deadline: number;

  constructor(route: Route | null, requestId: string, timeoutMs: number) {
    this.#deadline = Date.now() + timeoutMs;
    this.functionName = `pds-${route?.operationId ?? 'fallback'}`;
    this.invokedFunctionArn = `arn:aws:lambda:local:000000000000:function:${this.functionName}`;
    this.logGroupName = `/aws/lambda/${this.functionName}`;
    this.awsRequestId = requestId;
  }

  getRemainingTimeInMillis(): number {
    return Math.max(0, this.#deadline - Date.now());
  }
  done(): void {}
  fail(): void {}
  succeed(): void {}
}

/** Bodies at least this long are sent from an encoded copy kept per body text (see bodyBytes). */
const KEPT_BODY_MIN_CHARS = 1024;
const KEPT_BODIES_MAX = 64;
const keptBodies = new Map<string, Buffer>();

/**
 * The UTF-8 bytes of a response body, kept for bodies answered again and again (a route's cached
 * page is the same string object every time, whose hash V8 keeps): Node then writes the headers
 * and these bytes as they are, instead of joining the headers and the body into a new string and
 * encoding it for every response. Same bytes on the wire.
 */
function bodyBytes(body: string): Buffer {
  let bytes = keptBodies.get(body);
  if (!bytes) {
    if (keptBodies.size >= KEPT_BODIES_MAX) keptBodies.clear();
    keptBodies.set(body, (bytes = Buffer.from(body, 'utf8')));
  }
  return bytes;
}

function writeResult(res: ServerResponse, result: HandlerAnswer): void {
  // Payload 2.0: a result without statusCode is a 200 JSON body (API Gateway's inference).
  if (!result || typeof result !== 'object' || !('statusCode' in result)) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(result === undefined ? '' : typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const headers = result.headers;
  if (headers) for (const name in headers) res.setHeader(name, String(headers[name]));
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies);
  const body =
    result.body === undefined
      ? ''
      : result.isBase64Encoded
        ? Buffer.from(result.body, 'base64')
        : result.body.length >= KEPT_BODY_MIN_CHARS
          ? bodyBytes(result.body)
          : result.body;
  res.statusCode = result.statusCode ?? 200;
  res.end(body);
}

/** The local console and API reference (static files, lambdas/local/console.ts), outside the route table; loaded on first use. */
const CONSOLE_PATH = /^\/(?:console|docs)(?:\/|$)/;

async function serveConsolePath(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  try {
    (await import('./console')).serveConsole(req, res, pathname);
  } catch (error) {
    const message = (error as Error)?.message;
    process.stderr.write(`${JSON.stringify({ level: 'error', message: 'console failed', error: message })}\n`);
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'Internal Server Error' }));
  }
}

export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const load = opts.loadHandler ?? defaultLoadHandler;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const handlers = new Map<string, Promise<LocalHandler>>();
  // Handlers once loaded, so a request to a loaded route does not wait a turn for the promise.
  const loaded = new Map<string, LocalHandler>();
  const handlerFor = (route: Route | null): LocalHandler | Promise<LocalHandler> => {
    const key = route?.operationId ?? '$default';
    const handler = loaded.get(key);
    if (handler) return handler;
    let loading = handlers.get(key);
    if (!loading) {
      loading = load(route);
      loading.then(
        (ready) => loaded.set(key, ready),
        () => handlers.delete(key), // a failed import is retried next time
      );
      handlers.set(key, loading);
    }
    return loading;
  };

  const server = createServer(async (req, res) => {
    const requestId = randomUUID();
    const target = requestTarget(req.url);
    if (CONSOLE_PATH.test(target.path)) return serveConsolePath(req, res, target.path);
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matchRoute(method, target.path);
    const route = match?.route ?? null;
    try {
      let body: Buffer;
      try {
        const read = readBody(req, MAX_EVENT_BODY_BYTES);
        body = Buffer.isBuffer(read) ? read : await read;
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        res.setHeader('connection', 'close');
        lingerAndClose(req);
        writeResult(res, payloadTooLarge(target.path, requestId));
        return;
      }
      const event = buildEvent(req, target, body, route, match?.pathParameters ?? {}, requestId);
      const found = handlerFor(route);
      const handler = typeof found === 'function' ? found : await found;
      writeResult(res, await handler(event, new LocalLambdaContext(route, requestId, timeoutMs)));
    } catch (error) {
      // What API Gateway answers when the integration itself fails.
      process.stderr.write(
        `${JSON.stringify({ level: 'error', requestId, message: 'handler failed', error: (error as Error)?.message })}\n`,
      );
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'request-id': requestId });
        res.end(JSON.stringify({ message: 'Internal Server Error' }));
      } else {
        res.end();
      }
    }
  });
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerClientError);
  // `Expect: 100-continue` with a declared length over the cap: answer 413 before the body is sent.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (declaredLength(req) > MAX_EVENT_BODY_BYTES) {
      res.setHeader('connection', 'close');
      lingerAndClose(req);
      writeResult(res, payloadTooLarge(new URL(req.url ?? '/', 'http://localhost').pathname, randomUUID()));
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
