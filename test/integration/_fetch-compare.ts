// got.stream (what the fetcher used) and request.ts (what it uses) run with the same options and
// collected into the same outcome, for the side-by-side fetch-request tests.
import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import got from 'got';
import { get, type RequestTimeouts } from '../../lambdas/adapters/http-fetch/request';

interface Outcome {
  status?: number;
  headers?: Record<string, unknown>;
  body?: string;
  /** What the fetcher reads of an error (failureFromError): whether it is a timeout, and its code. */
  error?: { timeout: boolean; code: unknown };
  /** What the server received: its raw header list, names lowercased. */
  received?: string[];
}

interface Run {
  url: string;
  lookup?: LookupFunction;
  timeout?: RequestTimeouts;
  agent?: { http?: http.Agent; https?: https.Agent };
  /** Instead of the comparer's request headers. */
  headers?: Record<string, string>;
}

type Events = {
  on(event: 'response', listener: (r: { statusCode: number; headers: Record<string, unknown> }) => void): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'error', listener: (error?: Error) => void): unknown;
  destroy(): void;
};

interface CompareOptions {
  headers: Record<string, string>;
  /** Response headers left out of the outcome (they differ between two requests or agents). */
  omit: string[];
  /** What the server received for the last request, if the test records it. */
  received?: () => string[];
}

export function fetchComparer({ headers: defaultHeaders, omit, received }: CompareOptions) {
  const collect = (stream: Events): Promise<Outcome> =>
    new Promise((resolve) => {
      const outcome: Outcome = {};
      const chunks: Buffer[] = [];
      const seen = () => (received ? { received: received() } : {});
      stream.on('response', (r) => {
        outcome.status = r.statusCode;
        outcome.headers = Object.fromEntries(Object.entries(r.headers).filter(([name]) => !omit.includes(name)));
      });
      stream.on('data', (chunk) => chunks.push(chunk));
      stream.on('end', () => resolve({ ...outcome, body: Buffer.concat(chunks).toString('utf8'), ...seen() }));
      stream.on('error', (error) => {
        stream.destroy();
        const e = error as Error & { code?: unknown };
        // got wraps the socket's error (RequestError, ReadError) and keeps its code.
        resolve({ ...outcome, error: { timeout: e.name === 'TimeoutError', code: e.code }, ...seen() });
      });
    });
  const viaGot = ({ url, lookup, timeout, agent, headers = defaultHeaders }: Run) =>
    collect(
      got.stream(url, {
        headers,
        followRedirect: false,
        throwHttpErrors: false,
        decompress: true,
        retry: { limit: 0 },
        dnsLookup: lookup as never,
        ...(agent ? { agent } : {}),
        timeout,
      }) as Readable & Events,
    );
  const viaNode = ({ url, lookup, timeout, agent, headers = defaultHeaders }: Run) =>
    collect(get(url, { headers, lookup, timeout, agent }));
  /** got's outcome, then request.ts's, for the same request. */
  const both = async (run: Run): Promise<[Outcome, Outcome]> => [await viaGot(run), await viaNode(run)];
  return { viaGot, viaNode, both };
}

/** Listens on a loopback port, tracking open sockets (so a test can end them); its base URL. */
export async function listenTracked(server: http.Server, sockets: Set<Socket>): Promise<string> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
