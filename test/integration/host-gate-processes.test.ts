// Politeness across processes: three worker processes, each with the production composition
// (container -> fetcher -> the table's host gate) over one shared DynamoDB, fetch pages of one
// simulated host at once. The host records every request's arrival and how many were in flight:
// the starts keep robots.txt's Crawl-delay between them whichever process sent them, never more
// than the configured concurrency is in flight, and a 429 with Retry-After answered to one
// process pauses the host for all of them. The host runs in a process of its own
// (test/tools/polite-host.mjs): in the test's process, the embedded DynamoDB's work would delay
// the reading of an arrival's time. The worker (test/tools/host-gate-worker.ts) is bundled
// once with esbuild and each process runs the bundle with plain Node, rather than each
// transpiling the composition through tsx.
import '../../lambdas/local/polyfills';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { ENV } from '../../lambdas/topology/env';

const HOST = 'polite-shop.test';
/** PDS_CRAWL_DELAY_MS: the spacing a worker uses before it has read robots.txt. */
const CONFIGURED_DELAY_MS = 250;
/** robots.txt's Crawl-delay (seconds), larger: it governs every page request. */
const CRAWL_DELAY_S = 0.5;
/** Each page is answered after this long, so two requests overlap and the concurrency limit (2) binds. */
const HOLD_MS = 600;
const RETRY_AFTER_S = 1;
/**
 * How much closer than the spacing two arrivals may come: a start leaves up to a tenth of the
 * spacing after its booked instant (the gate books it again when later), plus loopback scheduling
 * on a loaded machine.
 */
const JITTER_MS = 60;
/**
 * The robots.txt reads are each process's first request: got's and the connection's first use run
 * after the turn is given, and on two cores busy with the rest of the suite that has sent one of
 * them up to ~85 ms after its turn (page requests, on warm processes, keep within JITTER_MS).
 */
const FIRST_REQUEST_JITTER_MS = 100;

interface Arrival {
  at: number;
  path: string;
  status: number;
}

let engines: Engines;
/** The host (test/tools/polite-host.mjs): a process of its own, so its clock reads arrivals on time. */
let host: ChildProcessWithoutNullStreams;
let hostPort: number;
let hostOutput = '';
/** Inside the project, so the bundle's packages (left out of it) resolve from node_modules. */
let workerDir: string;
let workerBundle: string;

beforeAll(async () => {
  const cache = join(process.cwd(), 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  workerDir = mkdtempSync(join(cache, 'host-gate-worker-'));
  workerBundle = join(workerDir, 'worker.mjs');
  await build({
    entryPoints: ['test/tools/host-gate-worker.ts'],
    outfile: workerBundle,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    logLevel: 'error',
  });
  engines = await startEngines();
  host = spawn(process.execPath, [
    'test/tools/polite-host.mjs',
    String(CRAWL_DELAY_S),
    String(HOLD_MS),
    String(RETRY_AFTER_S),
  ]);
  host.stdout.on('data', (chunk) => (hostOutput += chunk));
  hostPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the host did not start in 10 s')), 10_000);
    host.stdout.on('data', () => {
      const listening = /^listening (\d+)\n/.exec(hostOutput);
      if (listening) {
        clearTimeout(timer);
        resolve(Number(listening[1]));
      }
    });
  });
});

afterAll(async () => {
  host?.stdin.end();
  host?.kill();
  await engines?.stop();
  if (workerDir) rmSync(workerDir, { recursive: true, force: true });
});

/** What the host saw: every arrival and the peak of requests in flight. */
function hostReport(): Promise<{ arrivals: Arrival[]; peak: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the host did not report in 10 s')), 10_000);
    const read = () => {
      const line = hostOutput.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      host.stdout.off('data', read);
      resolve(JSON.parse(line));
    };
    host.stdout.on('data', read);
    host.stdin.write('report\n');
  });
}

type Outcome = { url: string; status?: number; error?: string };

/** Starts one worker process over the shared table; `ready` resolves once it waits for "go", `done` with its outcomes. */
function worker(urls: string[]): { ready: Promise<void>; go(): void; done: Promise<Outcome[]> } {
  const child = spawn(process.execPath, [workerBundle, JSON.stringify(urls)], {
    env: {
      ...process.env,
      [ENV.dynamodbEndpoint]: engines.dynamodbEndpoint,
      [ENV.tableName]: engines.tableName,
      [ENV.resolve]: `${HOST}=127.0.0.1:${hostPort}`,
      [ENV.crawlDelayMs]: String(CONFIGURED_DELAY_MS),
      AWS_REGION: 'us-east-1',
      NODE_NO_WARNINGS: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.startsWith('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk) => (err += chunk));
  const done = new Promise<Outcome[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not finish in 60 s:\n${err}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`worker exited with ${code}:\n${err}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!));
    });
  });
  done.catch(() => markReady());
  return { ready, go: () => child.stdin.end('go\n'), done };
}

describe('host gate across processes', () => {
  it('keeps Crawl-delay, concurrency and a Retry-After pause across three processes on one table', async () => {
    const pages = (worker: number) => Array.from({ length: 5 }, (_, i) => `https://${HOST}/p/${worker}-${i}`);
    const workers = [worker(pages(0)), worker(pages(1)), worker(pages(2))];
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    const results = await Promise.all(workers.map((w) => w.done));
    // Every fetch succeeded, the paused one after its retry.
    expect(results.flat().filter((r) => r.status !== 200)).toEqual([]);
    expect(results.flat()).toHaveLength(15);

    const { arrivals, peak } = await hostReport();
    const sorted = [...arrivals].sort((a, b) => a.at - b.at);
    // 3 robots.txt, 15 pages and the one retried after the 429.
    expect(sorted).toHaveLength(19);
    expect(sorted.filter((a) => a.path === '/robots.txt')).toHaveLength(3);
    expect(peak).toBe(2);

    // Spacing: never closer than the configured delay (robots.txt is read before the Crawl-delay is
    // known; these are first requests), and page requests never closer than the Crawl-delay to the
    // request before them.
    const gaps = sorted.slice(1).map((a, i) => ({ gap: a.at - sorted[i]!.at, page: a.path !== '/robots.txt' }));
    const t0 = sorted[0]!.at;
    const timeline = sorted.map((a) => `${a.at - t0} ${a.path} ${a.status}`).join('\n');
    expect(Math.min(...gaps.map((g) => g.gap)), timeline).toBeGreaterThanOrEqual(
      CONFIGURED_DELAY_MS - FIRST_REQUEST_JITTER_MS,
    );
    const pageArrivals = sorted.filter((a) => a.path !== '/robots.txt');
    const pageGaps = pageArrivals.slice(1).map((a, i) => a.at - pageArrivals[i]!.at);
    expect(Math.min(...pageGaps)).toBeGreaterThanOrEqual(CRAWL_DELAY_S * 1000 - JITTER_MS);

    // The pause: after the 429, no process starts a request before Retry-After has passed, but for
    // one start already under way when the pause could be written (its slot taken a table round
    // trip before it): within one Crawl-delay of the 429.
    const limited = sorted.find((a) => a.status === 429)!;
    const during = sorted.filter((a) => a.at > limited.at && a.at < limited.at + RETRY_AFTER_S * 1000 - JITTER_MS);
    expect(during.length).toBeLessThanOrEqual(1);
    for (const arrival of during) expect(arrival.at - limited.at).toBeLessThan(CRAWL_DELAY_S * 1000 + JITTER_MS);
    // ... while every process had pages left, which they all fetched afterwards.
    const after = new Set(
      sorted.filter((a) => a.at > limited.at && a.path !== '/robots.txt').map((a) => a.path.split('-')[0]),
    );
    expect(after.size).toBe(3);
  });
});
