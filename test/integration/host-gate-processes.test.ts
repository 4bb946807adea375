// Politeness across processes: three worker processes, each with the production composition
// (container -> fetcher -> the table's host gate) over one shared DynamoDB, fetch pages of one
// simulated host at once. The host records every request's arrival and how many were in flight:
// the starts keep robots.txt's Crawl-delay between them whichever process sent them, never more
// than the configured concurrency is in flight, and a 429 with Retry-After answered to one
// process pauses the host for all of them. The worker (test/tools/host-gate-worker.ts) is bundled
// once with esbuild and each process runs the bundle with plain Node, rather than each
// transpiling the composition through tsx.
import '../../lambdas/local/polyfills';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

interface Arrival {
  at: number;
  path: string;
  status: number;
}

let engines: Engines;
let server: http.Server;
/** Inside the project, so the bundle's packages (left out of it) resolve from node_modules. */
let workerDir: string;
let workerBundle: string;
const arrivals: Arrival[] = [];
let inFlight = 0;
let peak = 0;
let paused = false;

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
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const at = Date.now();
    if (path === '/robots.txt') {
      arrivals.push({ at, path, status: 200 });
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(`User-agent: *\nCrawl-delay: ${CRAWL_DELAY_S}\nAllow: /\n`);
    }
    // The first page request, whichever process sent it, is told to come back later: the others
    // have pages left to fetch.
    if (path.startsWith('/p/') && !paused) {
      paused = true;
      arrivals.push({ at, path, status: 429 });
      res.writeHead(429, { 'retry-after': String(RETRY_AFTER_S), 'content-type': 'text/plain' });
      return res.end('slow down');
    }
    arrivals.push({ at, path, status: 200 });
    peak = Math.max(peak, ++inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body><h1>${path}</h1></body></html>`);
    }, HOLD_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await engines?.stop();
  if (workerDir) rmSync(workerDir, { recursive: true, force: true });
});

type Outcome = { url: string; status?: number; error?: string };

/** Starts one worker process over the shared table; `ready` resolves once it waits for "go", `done` with its outcomes. */
function worker(urls: string[]): { ready: Promise<void>; go(): void; done: Promise<Outcome[]> } {
  const { port } = server.address() as AddressInfo;
  const child = spawn(process.execPath, [workerBundle, JSON.stringify(urls)], {
    env: {
      ...process.env,
      [ENV.dynamodbEndpoint]: engines.dynamodbEndpoint,
      [ENV.tableName]: engines.tableName,
      [ENV.resolve]: `${HOST}=127.0.0.1:${port}`,
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

    const sorted = [...arrivals].sort((a, b) => a.at - b.at);
    // 3 robots.txt, 15 pages and the one retried after the 429.
    expect(sorted).toHaveLength(19);
    expect(sorted.filter((a) => a.path === '/robots.txt')).toHaveLength(3);
    expect(peak).toBe(2);

    // Spacing: never closer than the configured delay, and page requests never closer than the
    // Crawl-delay to the request before them (robots.txt is read before the Crawl-delay is known).
    const gaps = sorted.slice(1).map((a, i) => ({ gap: a.at - sorted[i]!.at, page: a.path !== '/robots.txt' }));
    expect(Math.min(...gaps.map((g) => g.gap))).toBeGreaterThanOrEqual(CONFIGURED_DELAY_MS - JITTER_MS);
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
