// dynalite (DynamoDB on LevelDB) on a worker thread of its own: its request parsing, expression
// evaluation, LevelDB calls and JSON work use the second core instead of blocking the HTTP
// server's event loop. A thread rather than a child process: it dies with the process however
// that ends (kill -9 included), so no orphan can keep holding the LevelDB lock of the data
// directory. Light on purpose (no SDK): bin/local.ts starts it before the service's modules load.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MessageChannel, Worker } from 'node:worker_threads';
import { engineThreadExecArgv, superviseEngineThread } from './engine-thread';
import { PORT_SERVER_SOURCE, servePortThread, type PortRequestHandler } from './port-transport';

// The thread's whole program (CommonJS, plain JS: no TypeScript loader needed in the thread).
const DYNALITE_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
// dynalite 4 reads LevelDB through iterators it never closes (its streams stop at the end, or at
// a Query's Limit, without closing them): each one stays attached to the database and pins a
// native LevelDB iterator, so memory grew with every query. Close them at their end, and close
// any left unread for IDLE_MS (a Query that stopped early never reads it again).
(function closeAbandonedIterators() {
  const { AbstractLevel } = createRequire(workerData.dynalite)('abstract-level');
  const IDLE_MS = 10000;
  const open = new Map();
  const closeQuietly = (it) => { open.delete(it); it.close().catch(() => undefined); };
  for (const method of ['iterator', 'keys', 'values']) {
    const original = AbstractLevel.prototype[method];
    AbstractLevel.prototype[method] = function (...args) {
      const it = original.apply(this, args);
      const next = it.next;
      open.set(it, Date.now());
      it.next = async function (...nextArgs) {
        open.set(it, Date.now());
        const item = await next.apply(this, nextArgs);
        if (item === undefined) closeQuietly(it);
        else if (open.has(it)) open.set(it, Date.now());
        return item;
      };
      const close = it.close;
      it.close = function (...closeArgs) { open.delete(it); return close.apply(this, closeArgs); };
      return it;
    };
  }
  setInterval(() => {
    const idleSince = Date.now() - IDLE_MS;
    for (const [it, at] of open) if (at < idleSince) closeQuietly(it);
  }, IDLE_MS).unref();
})();
// dynalite reads the table's description from LevelDB (a get and a JSON parse) on every request,
// and once more for each item of a BatchWriteItem (25 reads for 25 puts). A description changes
// only through the table's own writes (create, update, delete): kept in memory per table while
// ACTIVE, and forgotten on any write to the descriptions. Calls that look at a table in any state
// (describe, update, delete, tags: checkStatus false) still read it, and get their own copy to edit.
(function cacheTableDescriptions() {
  const db = createRequire(workerData.dynalite)('./db');
  const create = db.create;
  db.create = function (options) {
    const store = create.call(this, options);
    const active = new Map();
    // A read that started before a description write must not cache what it read.
    let generation = 0;
    for (const method of ['put', 'del', 'batch']) {
      const write = store.tableDb[method];
      store.tableDb[method] = function (...args) { generation++; active.clear(); return write.apply(this, args); };
    }
    const getTable = store.getTable;
    store.getTable = function (name, checkStatus, cb) {
      const callback = typeof checkStatus === 'function' ? checkStatus : cb;
      if (!checkStatus) return getTable.call(this, name, checkStatus, cb);
      const known = active.get(name);
      if (known) return process.nextTick(callback, null, known);
      const readAt = generation;
      getTable.call(this, name, (error, table) => {
        if (!error && table.TableStatus === 'ACTIVE' && readAt === generation) active.set(name, table);
        callback(error, table);
      });
    };
    return store;
  };
})();
// dynalite stamps every response with its CRC32 (which the SDK checks) in JavaScript
// (buffer-crc32, byte by byte); zlib's native crc32 (Node 20.15+) gives the same value.
(function nativeCrc32() {
  const { crc32 } = require('node:zlib');
  if (typeof crc32 !== 'function') return;
  createRequire(workerData.dynalite)('buffer-crc32').unsigned = (input) => crc32(input);
})();
const dynalite = require(workerData.dynalite);
const server = dynalite(workerData.options);
// This process's own clients send their requests over a MessagePort (port-transport.ts) to the
// same handler the HTTP server calls.
${PORT_SERVER_SOURCE}
servePort(workerData.port, server.listeners('request')[0]);
server.once('error', (error) => parentPort.postMessage({ type: 'error', message: String(error && error.message) }));
// The thread's kernel id (Linux; null elsewhere): per-thread CPU figures (engineThreadIds).
let tid = null;
try { tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()); } catch {}
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ type: 'listening', port: server.address().port, tid }));
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  // Closes the LevelDB store too (dynalite wraps close); idle keep-alive sockets end at once.
  server.close((error) => parentPort.postMessage({ type: 'stopped', message: error ? String(error.message) : undefined }));
  server.closeIdleConnections();
});
`;

export interface DynaliteThread {
  /** The HTTP endpoint; a client of it built in this process sends its requests over `transport`. */
  endpoint: string;
  transport: PortRequestHandler;
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 35_000; // dynalite's own close gives pending operations 30 s

export async function startDynaliteThread(dataDir: string | undefined): Promise<DynaliteThread> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(DYNALITE_THREAD, {
    eval: true,
    execArgv: engineThreadExecArgv(),
    workerData: {
      dynalite: createRequire(import.meta.url).resolve('dynalite'),
      options: { ...(dataDir ? { path: dataDir } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 },
      port: port2,
    },
    transferList: [port2],
  });
  const { endpoint, transport, stop } = await servePortThread(
    port1,
    'dynalite',
    () => superviseEngineThread(worker, 'dynalite', STOP_TIMEOUT_MS, (listening) => listening.port as number),
    (port) => port,
  );
  return { endpoint, transport, stop };
}
