// fauxqs (SQS, in memory) on a worker thread of its own, as dynalite is (dynalite-thread.ts): its
// start (fastify and its plugins, a quarter of a second) and every SQS request it serves use the
// second core instead of the HTTP server's event loop. The queues are created in the thread at
// start (fauxqs creates them in process, synchronously); the thread dies with the process.
// Light on purpose (no SDK): bin/local.ts starts it before the service's modules load.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { engineThreadExecArgv, superviseEngineThread } from './engine-thread';
import { PORT_INJECT_SOURCE, servePortThread, type PortRequestHandler } from './port-transport';
import type { startFauxqs } from 'fauxqs';
import type { QueueSpec } from '../topology/queues';

export interface SqsThread {
  port: number;
  /** The address fauxqs's HTTP server listens on: loopback only. */
  address: string;
  /** http://127.0.0.1:<port>; a client of it built in this process sends its requests over `transport`. */
  endpoint: string;
  transport: PortRequestHandler;
  /** queue logical name -> URL (DLQs are `<name>-dlq`). */
  queueUrls: Record<string, string>;
  stop(): Promise<void>;
}

type QueueShape = Pick<QueueSpec, 'name' | 'visibilityTimeoutSeconds' | 'maxReceiveCount'>;

// The thread's whole program (CommonJS, plain JS; fauxqs is ESM, hence import()).
const SQS_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
// fauxqs does not hand out its fastify app: its HTTP server is caught as fastify creates it, for
// its request handler (this process's own clients reach it over a MessagePort). fauxqs also
// listens on every interface (0.0.0.0, whatever its host option says): the server is kept to
// the loopback address, as the other engines are.
const http = require('node:http');
const createServer = http.createServer;
let httpServer;
http.createServer = function (...args) {
  const created = createServer.apply(this, args);
  if (!httpServer) {
    httpServer = created;
    const listen = created.listen;
    created.listen = function (options, ...rest) {
      const loopback = options && typeof options === 'object' ? { ...options, host: workerData.options.host } : options;
      return listen.call(this, loopback, ...rest);
    };
  }
  return created;
};
${PORT_INJECT_SOURCE}
(async () => {
  const { startFauxqs } = await import(workerData.fauxqs);
  const server = await startFauxqs(workerData.options);
  http.createServer = createServer;
  const handler = httpServer && httpServer.listeners('request')[0];
  if (!handler) throw new Error('fauxqs created no HTTP server with a request handler');
  serveInjected(workerData.port, handler, require(workerData.lightMyRequest).inject);
  const queueUrls = {};
  for (const queue of workerData.queues) {
    const dlq = server.createQueue(queue.name + '-dlq', { attributes: { MessageRetentionPeriod: '1209600' } });
    const main = server.createQueue(queue.name, {
      attributes: {
        VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: queue.maxReceiveCount }),
      },
    });
    queueUrls[queue.name] = main.queueUrl;
    queueUrls[queue.name + '-dlq'] = dlq.queueUrl;
  }
  parentPort.on('message', (message) => {
    if (message !== 'stop') return;
    server.stop().then(
      () => parentPort.postMessage({ type: 'stopped' }),
      (error) => parentPort.postMessage({ type: 'stopped', message: String(error && error.message) }),
    );
  });
  // The thread's kernel id (Linux; null elsewhere): per-thread CPU figures (engineThreadIds).
  let tid = null;
  try { tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()); } catch {}
  parentPort.postMessage({ type: 'listening', port: server.port, address: httpServer.address().address, queueUrls, tid });
})().catch((error) => parentPort.postMessage({ type: 'error', message: String((error && error.stack) || error) }));
`;

const STOP_TIMEOUT_MS = 10_000;

/** fauxqs's options in the thread: any free loopback port, no request logging. */
const FAUXQS_OPTIONS = { port: 0, host: '127.0.0.1', logger: false } satisfies Parameters<typeof startFauxqs>[0];

/** fauxqs's ESM entry as a file URL (its package exports only an `import` condition, which require.resolve cannot read). */
function fauxqsEntry(): string {
  const require = createRequire(import.meta.url);
  for (const dir of require.resolve.paths('fauxqs') ?? []) {
    const manifest = join(dir, 'fauxqs', 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
      exports?: { '.'?: { import?: { default?: string } | string } };
      main?: string;
    };
    const target = pkg.exports?.['.']?.import;
    const file = (typeof target === 'string' ? target : target?.default) ?? pkg.main ?? 'index.js';
    return pathToFileURL(join(dirname(manifest), file)).href;
  }
  throw new Error('fauxqs is not installed (npm install)');
}

export async function startSqsThread(queues: readonly QueueShape[]): Promise<SqsThread> {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(SQS_THREAD, {
    eval: true,
    // Not the parent's --import tsx: the thread runs plain JS.
    execArgv: engineThreadExecArgv(),
    workerData: {
      fauxqs: fauxqsEntry(),
      lightMyRequest: createRequire(import.meta.url).resolve('light-my-request'),
      port: port2,
      options: FAUXQS_OPTIONS,
      queues: queues.map(({ name, visibilityTimeoutSeconds, maxReceiveCount }) => ({
        name,
        visibilityTimeoutSeconds,
        maxReceiveCount,
      })),
    },
    transferList: [port2],
  });
  const served = await servePortThread(
    port1,
    'fauxqs',
    () =>
      superviseEngineThread(worker, 'fauxqs', STOP_TIMEOUT_MS, (listening) => ({
        port: listening.port as number,
        address: listening.address as string,
        queueUrls: listening.queueUrls as Record<string, string>,
      })),
    ({ port }) => port,
  );
  return { ...served.started, endpoint: served.endpoint, transport: served.transport, stop: served.stop };
}
