// One HTTP(S) GET over node:http/https, as the fetcher used it from got (got.stream with
// followRedirect false, throwHttpErrors false, retry 0, decompress true, its dnsLookup, agent and
// timeout options): the same request headers (accept-encoding added when unset), the same
// decompression (gzip, deflate raw or zlib, br, zstd where Node has it; the decompressed
// response's headers without content-encoding and content-length), the same timeouts (lookup,
// connect, secureConnect, send, response, socket idle, whole request: a TimeoutError named
// 'TimeoutError' with code ETIMEDOUT) and errors carrying the socket's code (a response cut short
// is ECONNRESET). Redirects, retries, caps and checks stay in the fetcher (index.ts). got and its
// dependencies were ~90 KB of every asset that fetches (issue 12); test/integration/fetch-request.test.ts
// runs this and got.stream side by side against the same server behaviours.
import { EventEmitter } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import net, { type LookupFunction, type Socket } from 'node:net';
import { PassThrough, Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(
    threshold: number,
    readonly event: string,
  ) {
    super(`Timeout awaiting '${event}' for ${threshold}ms`);
  }
}

export interface RequestTimeouts {
  /** DNS lookup (not for IP literals or a reused socket). */
  lookup?: number;
  /** From the lookup to the TCP connection. */
  connect?: number;
  /** From the TCP connection to the TLS handshake's end (https). */
  secureConnect?: number;
  /** From the connection to the request's end being written. */
  send?: number;
  /** From the request's end to the response headers. */
  response?: number;
  /** Longest idle gap on the socket. */
  socket?: number;
  /** The whole request, to the response's last byte. */
  request?: number;
}

export interface GetOptions {
  headers: Record<string, string>;
  /** The socket's DNS lookup (the SSRF guard). */
  lookup?: LookupFunction;
  agent?: { http?: http.Agent; https?: https.Agent };
  timeout?: RequestTimeouts;
}

export interface ResponseHead {
  statusCode: number;
  headers: IncomingHttpHeaders;
}

/** Events: 'response' (ResponseHead), 'data' (Buffer, decompressed), 'end', 'error' (once). */
export interface GetStream extends EventEmitter {
  on(event: 'response', listener: (response: ResponseHead) => void): this;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'end', listener: () => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  destroy(): void;
}

const SUPPORTS_ZSTD_HEADER = typeof process.versions.zstd === 'string';
const SUPPORTS_ZSTD_DECODER = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function';
const ACCEPT_ENCODING = [
  'gzip',
  'deflate',
  ...(process.versions.brotli ? ['br'] : []),
  ...(SUPPORTS_ZSTD_HEADER ? ['zstd'] : []),
].join(', ');

/** Statuses that carry no body (RFC 9110): never decompressed. */
const noBody = (status: number) =>
  (status >= 100 && status < 200) || status === 204 || status === 205 || status === 304;

/** GET `url`; the stream emits the response head, its decompressed bytes, then 'end', or one 'error'. */
export function get(url: string | URL, options: GetOptions): GetStream {
  const target = typeof url === 'string' ? new URL(url) : url;
  const stream = new EventEmitter() as GetStream;
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.headers))
    if (value !== undefined) headers[key.toLowerCase()] = value;
  headers['accept-encoding'] ??= ACCEPT_ENCODING;
  const secure = target.protocol === 'https:';
  const request = (secure ? https : http).request(target, {
    method: 'GET',
    headers,
    agent: secure ? options.agent?.https : options.agent?.http,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  let response: IncomingMessage | undefined;
  let body: Readable | undefined;
  let done = false;
  const timers = watchTimeouts(request, target, options.timeout ?? {});
  /** Ends the exchange once: false when it had already ended. */
  const close = (): boolean => {
    if (done) return false;
    done = true;
    timers.cancel();
    request.destroy();
    response?.destroy();
    body?.destroy();
    return true;
  };
  const fail = (error: Error) => {
    if (close()) stream.emit('error', error);
  };
  timers.onTimeout = fail;
  stream.destroy = () => void close();
  // `on`, not `once`: a request or response destroyed after the outcome may still emit errors.
  request.on('error', (error) => fail(error));
  request.once('response', (res: IncomingMessage) => {
    if (done) return res.destroy();
    response = res;
    const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
    const decoded = noBody(res.statusCode ?? 0) ? undefined : decompressed(res, encoding);
    body = decoded?.stream ?? res;
    res.on('error', (error) => fail(error));
    res.once('aborted', () =>
      fail(Object.assign(new Error('The server aborted pending request'), { code: 'ECONNRESET' })),
    );
    if (decoded) body.on('error', (error) => fail(error));
    body.on('data', (chunk: Buffer) => {
      if (!done) stream.emit('data', chunk);
    });
    body.once('end', () => {
      if (done) return;
      done = true;
      timers.cancel();
      stream.emit('end');
    });
    stream.emit('response', { statusCode: res.statusCode ?? 0, headers: decoded?.headers ?? res.headers });
  });
  request.end(() => timers.uploaded());
  return stream;
}

/**
 * The response's bytes decoded as its content-encoding says (decompress-response's rules, which
 * got applied): deflate is raw when its first byte says so, an empty body ends without a decoder,
 * and a decoder's error on a body that ended empty is no error. Undefined: not an encoding decoded.
 */
function decompressed(
  response: IncomingMessage,
  encoding: string,
): { stream: Readable; headers: IncomingHttpHeaders } | undefined {
  if (!['gzip', 'deflate', 'br', ...(SUPPORTS_ZSTD_DECODER ? ['zstd'] : [])].includes(encoding)) return undefined;
  const headers = { ...response.headers };
  delete headers['content-encoding'];
  delete headers['content-length'];
  const out = new PassThrough({ autoDestroy: false });
  let empty = true;
  const checker = new Transform({
    transform(data: Buffer, _encoding, callback) {
      if (empty) {
        empty = false;
        const decoder =
          encoding === 'zstd'
            ? (zlib as unknown as { createZstdDecompress(): Transform }).createZstdDecompress()
            : encoding === 'br'
              ? zlib.createBrotliDecompress()
              : encoding === 'deflate' && data.length > 0 && (data[0]! & 0x08) === 0
                ? zlib.createInflateRaw()
                : zlib.createUnzip();
        decoder.once('error', (error) => {
          if (empty && !response.readable) return void out.end();
          out.destroy(error);
        });
        checker.pipe(decoder).pipe(out);
      }
      callback(null, data);
    },
    flush(callback) {
      if (empty) out.end();
      callback();
    },
  });
  response.pipe(checker);
  return { stream: out, headers };
}

/** got's timed-out rules over a node:http request; `onTimeout` receives the TimeoutError. */
function watchTimeouts(request: http.ClientRequest, url: URL, delays: RequestTimeouts) {
  const timers: Array<() => void> = [];
  const handled = new Set<string>();
  const state = {
    onTimeout: (_error: Error) => {},
    uploaded: () => {},
    cancel: () => {
      for (const cancel of timers) cancel();
      timers.length = 0;
    },
  };
  const uploadedListeners: Array<() => void> = [];
  let isUploaded = false;
  state.uploaded = () => {
    isUploaded = true;
    for (const listener of uploadedListeners.splice(0)) listener();
  };
  const onUploaded = (listener: () => void) => (isUploaded ? listener() : void uploadedListeners.push(listener));
  const add = (delay: number, event: string): (() => void) => {
    const timer = setTimeout(() => {
      // Deferred so a cancel already queued (a busy event loop) wins, as got does.
      setTimeout(() => {
        if (!handled.has(event)) state.onTimeout(new TimeoutError(delay, event));
      }, 0);
    }, delay);
    timer.unref?.();
    const cancel = () => {
      handled.add(event);
      clearTimeout(timer);
    };
    timers.push(cancel);
    return cancel;
  };
  if (delays.request !== undefined) {
    const cancel = add(delays.request, 'request');
    request.once('response', (response: IncomingMessage) => response.once('end', cancel));
  }
  if (delays.socket !== undefined) {
    const idle = delays.socket;
    const onIdle = () =>
      setTimeout(() => {
        if (!handled.has('socket')) state.onTimeout(new TimeoutError(idle, 'socket'));
      }, 0);
    request.setTimeout(idle, onIdle);
    timers.push(() => {
      handled.add('socket');
      request.removeListener('timeout', onIdle);
    });
  }
  const { lookup, connect, secureConnect, send } = delays;
  if (lookup !== undefined || connect !== undefined || secureConnect !== undefined || send !== undefined) {
    request.once('socket', (socket: Socket) => {
      if (socket.connecting) {
        const literal = net.isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0;
        if (lookup !== undefined && !literal && (socket.address() as { address?: string }).address === undefined)
          socket.once('lookup', add(lookup, 'lookup'));
        if (connect !== undefined) {
          const timeConnect = () => add(connect, 'connect');
          if (literal) socket.once('connect', timeConnect());
          else
            socket.once('lookup', (error: Error | null) => {
              if (error === null) socket.once('connect', timeConnect());
            });
        }
        if (secureConnect !== undefined && url.protocol === 'https:')
          socket.once('connect', () => socket.once('secureConnect', add(secureConnect, 'secureConnect')));
      }
      if (send !== undefined) {
        const timeSend = () => add(send, 'send');
        if (socket.connecting) socket.once('connect', () => onUploaded(timeSend()));
        else onUploaded(timeSend());
      }
    });
  }
  if (delays.response !== undefined) {
    const responseDelay = delays.response;
    onUploaded(() => {
      const cancel = add(responseDelay, 'response');
      request.once('response', cancel);
    });
  }
  return state;
}
