// The local stand-in for API Gateway (HTTP API, payload 2.0) + Lambda: matches the route table,
// builds the same event API Gateway would, and calls the route's exported `handler`. Unmatched
// requests go to public/fallback (API Gateway's $default route).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { Route } from '../topology/routes';
import { familyOf } from '../topology/routes';
import { matchRoute } from '../http/match';
import { errorResult } from '../http/render';
import { AppError } from '../domain/errors';

export type LocalHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2 | void> | APIGatewayProxyResultV2 | void;

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

export async function defaultLoadHandler(route: Route | null): Promise<LocalHandler> {
  const module = route ? await import(/* @vite-ignore */ `../http/${route.handler}`) : await import('../http/public/fallback');
  if (typeof module.handler !== 'function') throw new Error(`lambdas/http/${route?.handler ?? 'public/fallback'}.ts exports no handler`);
  return module.handler as LocalHandler;
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering at once; the connection is closed after the 413.
        req.removeAllListeners('data');
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function buildEvent(req: IncomingMessage, url: URL, body: Buffer, route: Route | null, pathParameters: Record<string, string>, requestId: string): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const cookies = req.headers.cookie ? req.headers.cookie.split(/;\s*/).filter(Boolean) : undefined;
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const contentType = headers['content-type'] ?? '';
  const textual = !body.length || !contentType || TEXTUAL.test(contentType);
  const method = (req.method ?? 'GET').toUpperCase();
  const routeKey = route ? `${route.method} ${route.path}` : '$default';
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    ...(cookies ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(route && Object.keys(pathParameters).length ? { pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0],
      http: { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: textual ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !textual } : { isBase64Encoded: false }),
  };
}

function lambdaContext(route: Route | null, requestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  const functionName = `pds-${route?.operationId ?? 'fallback'}`;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function writeResult(res: ServerResponse, result: APIGatewayProxyResultV2 | void): void {
  // Payload 2.0: a result without statusCode is a 200 JSON body (API Gateway's inference).
  if (!result || typeof result !== 'object' || !('statusCode' in result)) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(result === undefined ? '' : typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies);
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  res.statusCode = result.statusCode ?? 200;
  res.end(body);
}

export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const load = opts.loadHandler ?? defaultLoadHandler;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const handlers = new Map<string, Promise<LocalHandler>>();
  const handlerFor = (route: Route | null) => {
    const key = route?.operationId ?? '$default';
    let loading = handlers.get(key);
    if (!loading) {
      loading = load(route);
      loading.catch(() => handlers.delete(key)); // a failed import is retried next time
      handlers.set(key, loading);
    }
    return loading;
  };

  const server = createServer(async (req, res) => {
    const requestId = randomUUID();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      url = new URL('http://localhost/');
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matchRoute(method, url.pathname);
    const route = match?.route ?? null;
    try {
      let body: Buffer;
      try {
        body = await readBody(req, MAX_EVENT_BODY_BYTES);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        res.setHeader('connection', 'close');
        writeResult(res, errorResult(familyOf(url.pathname), new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_EVENT_BODY_BYTES} bytes`), requestId));
        res.on('finish', () => req.destroy());
        return;
      }
      const event = buildEvent(req, url, body, route, match?.pathParameters ?? {}, requestId);
      const handler = await handlerFor(route);
      writeResult(res, await handler(event, lambdaContext(route, requestId, timeoutMs)));
    } catch (error) {
      // What API Gateway answers when the integration itself fails.
      process.stderr.write(`${JSON.stringify({ level: 'error', requestId, message: 'handler failed', error: (error as Error)?.message })}\n`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'request-id': requestId });
        res.end(JSON.stringify({ message: 'Internal Server Error' }));
      } else {
        res.end();
      }
    }
  });
  server.keepAliveTimeout = 5_000;

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
