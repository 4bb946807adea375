// HTTP requests over a MessagePort, for an engine on a worker thread of this process
// (dynalite-thread.ts, sqs-thread.ts). The SDK's request goes to the thread as a message, and the
// engine's own node:http request handler answers it through a minimal request and response
// (headers, body, status; light-my-request's for fauxqs's fastify app), so neither side pays for
// the loopback socket: the kernel's TCP path, the HTTP client's agent and streams, the server's
// parser. Measured warmed: a DynamoDB GetItem's main-thread CPU 420-470 µs over HTTP, 200-260 µs
// here, its round trip 610-740 µs, 340-460 µs here; an SQS SendMessage, ReceiveMessage or
// DeleteMessageBatch ~440 µs over HTTP, ~270 µs here. The engines' HTTP servers stay up for
// clients in other processes.
import type { MessagePort } from 'node:worker_threads';
import {
  inProcessRequestHandler,
  serveInProcess,
  type InProcessRequestHandler,
} from '../adapters/in-process-endpoints';
import type { SupervisedThread } from './engine-thread';

/** A request as it crosses the port; a binary body is transferred, not copied. */
interface PortRequest {
  id: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

interface PortReply {
  id: number;
  statusCode: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * The thread's side, as source for an eval'd CommonJS worker: `servePort(port, handler)` answers
 * every request on `port` by calling `handler(req, res)`, a node:http request listener that reads
 * req.method, req.url, req.headers (lower-case names) and the body's 'data' and 'end' events, and
 * answers with res.statusCode, res.setHeader and res.end(body).
 */
export const PORT_SERVER_SOURCE = `
function servePort(port, handler) {
  const { EventEmitter } = require('node:events');
  const encoder = new TextEncoder();
  port.on('message', (request) => {
    const headers = {};
    for (const name of Object.keys(request.headers)) headers[name.toLowerCase()] = String(request.headers[name]);
    const req = new EventEmitter();
    req.method = request.method;
    req.url = request.url;
    req.headers = headers;
    const responseHeaders = {};
    let answered = false;
    const answer = (statusCode, body) => {
      if (answered) return;
      answered = true;
      const bytes = typeof body === 'string' ? encoder.encode(body) : body ? new Uint8Array(body) : new Uint8Array(0);
      port.postMessage({ id: request.id, statusCode, headers: responseHeaders, body: bytes }, [bytes.buffer]);
    };
    const res = {
      statusCode: 200,
      setHeader(name, value) { responseHeaders[String(name).toLowerCase()] = String(value); },
      end(body) { answer(res.statusCode, body); },
    };
    try {
      handler(req, res);
      const body = request.body;
      if (body.length) req.emit('data', typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
      req.emit('end');
    } catch (error) {
      responseHeaders['content-type'] = 'application/x-amz-json-1.0';
      answer(500, JSON.stringify({ __type: 'InternalFailure', message: String(error && error.message) }));
    }
  });
}
`;

/**
 * The thread's side for an engine whose handler needs a whole node:http request and response (a
 * fastify app's): `serveInjected(port, handler, inject)` answers every request on `port` through
 * light-my-request's `inject`, which gives the handler a complete fake request and response.
 */
export const PORT_INJECT_SOURCE = `
function serveInjected(port, handler, inject) {
  const reply = (id, statusCode, headers, body) => {
    const bytes = new Uint8Array(body);
    port.postMessage({ id, statusCode, headers, body: bytes }, [bytes.buffer]);
  };
  port.on('message', (request) => {
    const body = request.body;
    const payload = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    inject(handler, { method: request.method, url: request.url, headers: request.headers, payload }).then(
      (response) => {
        const headers = {};
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
        reply(request.id, response.statusCode, headers, response.rawPayload);
      },
      (error) => reply(request.id, 500, { 'content-type': 'application/x-amz-json-1.0' },
        Buffer.from(JSON.stringify({ __type: 'InternalFailure', message: String(error && error.message) }))),
    );
  });
}
`;

/** The parts of the SDK's HttpRequest this transport reads. */
interface SdkRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null | undefined>;
  headers: Record<string, string>;
  body?: unknown;
}

export interface PortRequestHandler extends InProcessRequestHandler {
  /** Requests sent through the port so far. */
  readonly sent: number;
  /** Refuses new requests (the thread is stopping); those already sent still get their answers. */
  refuseNew(): void;
  /** Fails the requests still waiting and closes the port. */
  close(): void;
}

function queryString(query: SdkRequest['query']): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    const key = encodeURIComponent(name);
    if (value === null || value === undefined) parts.push(key);
    else for (const one of Array.isArray(value) ? value : [value]) parts.push(`${key}=${encodeURIComponent(one)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** A body the port can carry: a string as is, bytes copied into a buffer of their own (transferred). */
function portBody(body: unknown): string | Uint8Array {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  throw new Error('A streaming request body cannot be sent to an in-process engine');
}

function abortError(): Error {
  const error = new Error('Request aborted');
  error.name = 'AbortError';
  return error;
}

/** The SDK request handler of the main-thread side of `port`; `name` names the engine in errors. */
export function portRequestHandler(port: MessagePort, name: string): PortRequestHandler {
  let nextId = 0;
  let sent = 0;
  let refusal: Error | undefined;
  const waiting = new Map<number, { resolve(reply: PortReply): void; reject(error: Error): void }>();
  // The port keeps the process alive only while a request waits on it, as a socket would.
  port.unref();
  const done = (id: number) => {
    const entry = waiting.get(id);
    waiting.delete(id);
    if (!waiting.size) port.unref();
    return entry;
  };
  const failAll = (error: Error) => {
    for (const id of [...waiting.keys()]) done(id)?.reject(error);
  };
  const stopped = () => new Error(`The ${name} thread has stopped`);
  port.on('message', (reply: PortReply) => done(reply.id)?.resolve(reply));
  port.on('close', () => {
    refusal ??= stopped();
    failAll(refusal);
  });

  const handler = inProcessRequestHandler(async (request, options) => {
    const { method, path, query, headers, body } = request as SdkRequest;
    const signal = options?.abortSignal as AbortSignal | undefined;
    if (refusal) throw refusal;
    if (signal?.aborted) throw abortError();
    const message: PortRequest = {
      id: nextId++,
      method,
      url: path + queryString(query),
      headers,
      body: portBody(body),
    };
    const onAbort = () => done(message.id)?.reject(abortError());
    const reply = await new Promise<PortReply>((resolve, reject) => {
      waiting.set(message.id, { resolve, reject });
      port.ref();
      signal?.addEventListener('abort', onAbort, { once: true });
      port.postMessage(message, typeof message.body === 'string' ? [] : [message.body.buffer as ArrayBuffer]);
      sent++;
    }).finally(() => signal?.removeEventListener('abort', onAbort));
    const { statusCode, headers: replyHeaders, body: bytes } = reply;
    return {
      response: {
        statusCode,
        headers: replyHeaders,
        body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      },
    };
  });

  return {
    ...handler,
    get sent() {
      return sent;
    },

    refuseNew() {
      refusal ??= stopped();
    },

    close() {
      refusal ??= stopped();
      failAll(refusal);
      port.close();
    },
  };
}

/** An engine thread whose endpoint this process's clients reach over the thread's MessagePort. */
export interface PortServedThread<T> {
  /** What the thread's `listening` message said (superviseEngineThread's `started`). */
  started: T;
  endpoint: string;
  transport: PortRequestHandler;
  /** Requests already sent are answered while the thread stops; later ones fail at once. */
  stop(): Promise<void>;
}

/**
 * Supervises an engine thread (`supervise`) and, once it listens, serves its loopback endpoint (the
 * HTTP port `portOf(started)`) in this process through the main side of `port` (serveInProcess),
 * until stop.
 */
export async function servePortThread<T>(
  port: MessagePort,
  name: string,
  supervise: () => Promise<SupervisedThread<T>>,
  portOf: (started: T) => number,
): Promise<PortServedThread<T>> {
  const transport = portRequestHandler(port, name);
  let thread: SupervisedThread<T>;
  try {
    thread = await supervise();
  } catch (error) {
    transport.close();
    throw error;
  }
  const endpoint = `http://127.0.0.1:${portOf(thread.started)}`;
  const unserve = serveInProcess(endpoint, transport);
  return {
    started: thread.started,
    endpoint,
    transport,
    async stop() {
      unserve();
      transport.refuseNew();
      await thread.stop();
      transport.close();
    },
  };
}
