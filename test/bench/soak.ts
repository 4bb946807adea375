// `npm run bench -- soak`: memory and latency under repeated load. Starts `npm start`'s entry
// (bin/local.ts) in a child process on a temporary data directory, then runs ROUNDS rounds of
// REQUESTS mixed authenticated requests at concurrency CONCURRENCY over loopback (reads of every
// family, lists, status of unknown executions, invalid bodies, unknown keys, a few starts of
// extractions whose one URL is malformed, so each runs its whole workflow at once) and prints, per round, the server's RSS, p50, p99 and status
// counts. The baseline beside the rounds: RSS at ready and after a warm-up. Flat means the last
// round's RSS within a few MB of the second's (the first round still warms code and pools).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './_service-process';

const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 5);
const REQUESTS = Number(process.env.SOAK_REQUESTS ?? 3000);
const CONCURRENCY = 32;
const READY_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Keys of three organizations, as PDS_BOOTSTRAP_KEYS creates them. */
export const KEYS = Array.from({ length: 12 }, (_, i) => ({
  key: `soak-key-${String(i).padStart(2, '0')}-0123456789abcdef`,
  org: `soak-org-${i % 3}`,
}));

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: string;
  contentType?: string;
  /** false: send a key nobody issued. */
  validKey?: boolean;
}

function send(base: string, call: Call, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': key };
    if (call.body !== undefined) {
      headers['content-type'] = call.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(call.body));
    }
    const req = request(
      `${base}${call.path}`,
      { method: call.method, agent, headers, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(call.body);
  });
}

/** The mix: mostly reads, some client errors, a few cheap starts; `i` picks deterministically. */
export function callFor(i: number): Call {
  const n = i % 40;
  const unknownId = `extract-urls-00000000-0000-4000-8000-${String(i % 1000).padStart(12, '0')}`;
  switch (n % 20) {
    case 0:
      return { method: 'GET', path: '/v2/vendors?page_size=20' };
    case 1:
      return { method: 'GET', path: '/v1/vendors' };
    case 2:
      return { method: 'GET', path: '/api/vendors' };
    case 3:
      return { method: 'GET', path: '/v2/usage?period=day' };
    case 4:
      return { method: 'GET', path: '/api/usage' };
    case 5:
      return { method: 'GET', path: '/v2/extract?page_size=5' };
    case 6:
      return { method: 'GET', path: '/v1/products?limit=5' };
    case 7:
      return { method: 'GET', path: `/v2/extract/${unknownId}` };
    case 8:
      return { method: 'GET', path: '/v2/crawl?page_size=5' };
    case 9:
      return { method: 'GET', path: `/v2/listings?vendor=unknown-${i % 500}.example` };
    case 10:
      return { method: 'POST', path: '/v2/extract', body: JSON.stringify({ urls: [`not a url ${i}`] }) };
    case 11:
      return { method: 'POST', path: '/v1/products', body: '{"urls": [' };
    case 12:
      return { method: 'POST', path: '/v2/extract', body: `${'['.repeat(200)}${']'.repeat(200)}` };
    case 13:
      return {
        method: 'POST',
        path: '/v2/affiliate',
        body: JSON.stringify({ urls: [`https://shop-${i % 50}.example/p/${i}`] }),
      };
    case 14:
      return { method: 'GET', path: '/v2/vendors', validKey: false };
    case 15:
      return { method: 'POST', path: '/api/search', body: JSON.stringify({ query: `red shoes ${i % 100}`, limit: 5 }) };
    case 16:
      return { method: 'DELETE', path: `/v1/products/${unknownId.replace('extract-urls', 'products-batch')}` };
    case 17:
      return { method: 'GET', path: '/v2/collections?vendor=unknown.example' };
    // A whole extraction workflow that ends at once (its one URL is malformed): start, Prepare, Finalize.
    case 18:
      return n === 18
        ? { method: 'POST', path: '/v1/products', body: JSON.stringify({ urls: [`not a url ${i}`] }) }
        : { method: 'GET', path: '/v2/vendors?page=2' };
    default:
      return { method: 'POST', path: '/api/products', body: JSON.stringify({ urls: [] }) };
  }
}

interface Round {
  p50: number;
  p99: number;
  rps: number;
  statuses: Record<number, number>;
  errors: number;
  rss: number | null;
}

async function round(base: string, offset: number, pid: number): Promise<Round> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const i = offset + next++;
        const call = callFor(i);
        const key = call.validKey === false ? `made-up-key-${i}-abcdefghijklmnop` : KEYS[i % KEYS.length]!.key;
        const t0 = performance.now();
        try {
          const status = await send(base, call, key);
          statuses[status] = (statuses[status] ?? 0) + 1;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { p50: pct(50), p99: pct(99), rps: REQUESTS / seconds, statuses, errors, rss: rssOf(pid) };
}

const rssOf = (pid: number): number | null => {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
};

async function waitReady(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`bin/local.ts exited with ${child.exitCode}`);
    try {
      if ((await send(base, { method: 'GET', path: '/health' }, '')) === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('not ready in time');
}

export default async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-soak-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      PDS_DATA_DIR: dataDir,
      PDS_BOOTSTRAP_KEYS: KEYS.map((k) => `${k.key}:${k.org}`).join(','),
      // Far above the load: this measures memory and latency, not the limiter's refusals.
      PDS_RATE_LIMIT: '1000000:100000000',
      PDS_CRAWL_DELAY_MS: '0',
    },
    // One JSON line per request is the service's log, not the bench's output: kept out.
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  try {
    await waitReady(base, child);
    const rssReady = rssOf(child.pid!);
    for (let i = 0; i < 200; i++) await send(base, callFor(i), KEYS[i % KEYS.length]!.key).catch(() => 0);
    const rssWarm = rssOf(child.pid!);
    console.log(
      `soak: ${ROUNDS} rounds x ${REQUESTS} mixed authenticated requests, concurrency ${CONCURRENCY}, loopback, ${KEYS.length} keys of 3 organizations`,
    );
    console.log(
      `baseline RSS: ${rssReady?.toFixed(0) ?? '?'} MB at ready, ${rssWarm?.toFixed(0) ?? '?'} MB after a 200-request warm-up`,
    );
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const figures = await round(base, r * REQUESTS, child.pid!);
      rounds.push(figures);
      const fivexx = Object.entries(figures.statuses)
        .filter(([s]) => Number(s) >= 500)
        .reduce((n, [, c]) => n + c, 0);
      console.log(
        `round ${r + 1}: RSS ${figures.rss?.toFixed(0) ?? '?'} MB   p50 ${figures.p50.toFixed(1)} ms   p99 ${figures.p99.toFixed(1)} ms   ${figures.rps.toFixed(0)} req/s   5xx ${fivexx}   socket errors ${figures.errors}   statuses ${JSON.stringify(figures.statuses)}`,
      );
    }
    const total5xx = rounds.reduce(
      (n, f) =>
        n +
        Object.entries(f.statuses)
          .filter(([s]) => Number(s) >= 500)
          .reduce((m, [, c]) => m + c, 0),
      0,
    );
    const second = rounds[Math.min(1, rounds.length - 1)]!.rss ?? 0;
    const last = rounds.at(-1)!.rss ?? 0;
    console.log(
      `RSS from round 2 to round ${rounds.length}: ${(last - second >= 0 ? '+' : '') + (last - second).toFixed(0)} MB; total 5xx: ${total5xx}; socket errors: ${rounds.reduce((n, f) => n + f.errors, 0)}`,
    );
    console.log(
      `machine load average (1/5/15 min) at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')}`,
    );
  } finally {
    agent.destroy();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
