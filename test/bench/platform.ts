// `npm run bench -- platform`: the platform pipeline's cost. Starts `npm start`'s entry
// (bin/local.ts) with a temporary data directory, measures time to ready and RSS, then drives
// authenticated GET /v2/vendors (auth + rate limit + metering + a GSI query) beside
// unauthenticated GET /health over loopback, same count and concurrency, and prints p50, p99 and
// their ratios, with the machine's load average (the client runs on the same cores as the
// server). Two services in one run, taking turns pass by pass: the baseline
// (PDS_USAGE_WRITE_BEHIND_MS=0, PDS_RATE_LIMIT_LEASES=off) and the request path as shipped; each
// pass starts once both are idle, so one service's leftover work does not land in the other's pass.
// After one untimed pass of each, the headline p50 and p99 of each path are over all its
// requests of the measured passes (50,000), beside the median pass and every pass.
// Beside the latencies, the server's CPU per request of each path, from the kernel's per-thread
// accounting (/proc/<pid>/task/<tid>/schedstat, nanoseconds on CPU) read around every slice: its
// main thread (where the handlers run) and all its threads (embedded DynamoDB, GC, libuv). It
// moves far less with outside load than latencies do, so progress shows on a busy machine too.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../lambdas/config';
import { createContainer } from '../../lambdas/composition/container';
import { recordProductSeen } from '../../lambdas/domain/vendors/service';
import { freePort, stopProcessGroup } from './_service-process';

/**
 * Requests of each path per pass. A p99 is the slowest 1% of them, and one stall of a few ms (a
 * major GC, a background table call) holds up all CONCURRENCY requests in flight at once: at 2,000
 * requests that one event was the whole p99 (the 20 slowest), so a pass's ratio said which path
 * the event happened to land in (0.7x to 1.8x in one run). At 10,000 it takes several events.
 */
const REQUESTS = 10_000;
/**
 * Each path's requests come in this many slices (500 requests, tens of ms), alternating with the
 * other path's: a burst of load from outside (other processes on the machine) touches both paths
 * alike instead of landing on one path's slice.
 */
const ROUNDS = 20;
/** Passes per service, the services taking turns; the median pass is reported (odd). */
const PASSES = 5;
/** Requests of each path, one at a time, before measuring. */
const WARM_UP = 300;
const CONCURRENCY = 16;
/** Settling between passes: idle means under 5% of a core over a 50 ms window, waited for up to 3 s. */
const SETTLE_WINDOW_MS = 50;
const SETTLE_IDLE_SHARE = 0.05;
const SETTLE_MAX_MS = 3000;
const VENDORS = 50;
const READY_TIMEOUT_MS = 120_000;
const KEY = 'bench-key-0123456789abcdef';

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`bin/local.ts exited with ${child.exitCode}`);
    try {
      if ((await get(`${url}/health`)) === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('not ready in time');
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
  /** Server CPU per request in microseconds (null where /proc/<pid>/task/<tid>/schedstat is missing). */
  mainCpuUs: number | null;
  allCpuUs: number | null;
  /** The bench's own CPU per request (the client, on the same cores), in microseconds. */
  clientCpuUs: number;
}

/** Nanoseconds a thread of `pid` has run (first field of schedstat), or null. */
function threadRunNs(pid: number, tid: number | string): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
  } catch {
    return null;
  }
}

/** The server's CPU so far: its main thread and all its threads together, in ns (null: not Linux). */
function serverCpu(pid: number): { main: number; all: number } | null {
  const main = threadRunNs(pid, pid);
  if (main === null) return null;
  let all = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) all += threadRunNs(pid, tid) ?? 0; // a thread may end meanwhile
  } catch {
    return null;
  }
  return { main, all };
}

/**
 * Latencies of `count` GETs of `url` at CONCURRENCY, added to `into`, with the CPU the server
 * (process `pid`) spent meanwhile. Work a path leaves behind (usage writes, lease renewals, cache
 * refreshes) counts in whichever slice it runs, so a little of it lands in the other path's.
 */
async function load(
  url: string,
  headers: Record<string, string>,
  count: number,
  into: Sample,
  pid: number,
): Promise<void> {
  let next = 0;
  const cpuBefore = serverCpu(pid);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next++;
        const t0 = performance.now();
        const status = await get(url, headers);
        into.latencies.push(performance.now() - t0);
        into.statuses[status] = (into.statuses[status] ?? 0) + 1;
      }
    }),
  );
  into.seconds += (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  into.clientUs += client.user + client.system;
  const cpuAfter = serverCpu(pid);
  if (cpuBefore && cpuAfter && into.cpu) {
    into.cpu.mainNs += cpuAfter.main - cpuBefore.main;
    into.cpu.allNs += cpuAfter.all - cpuBefore.all;
  } else into.cpu = null;
}

interface Sample {
  latencies: number[];
  statuses: Record<number, number>;
  seconds: number;
  /** Server CPU during this path's slices (null once a reading failed). */
  cpu: { mainNs: number; allNs: number } | null;
  clientUs: number;
}

const newSample = (): Sample => ({
  latencies: [],
  statuses: {},
  seconds: 0,
  cpu: { mainNs: 0, allNs: 0 },
  clientUs: 0,
});

function figures(sample: Sample): Figures {
  const latencies = [...sample.latencies].sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  const perRequestUs = (ns: number | undefined) => (ns === undefined ? null : ns / 1000 / latencies.length);
  return {
    rps: latencies.length / sample.seconds,
    p50: pct(50),
    p99: pct(99),
    statuses: sample.statuses,
    mainCpuUs: perRequestUs(sample.cpu?.mainNs),
    allCpuUs: perRequestUs(sample.cpu?.allNs),
    clientCpuUs: sample.clientUs / latencies.length,
  };
}

const rssOf = (pid: number): number | null => {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
};

interface Pass {
  health: Figures;
  vendors: Figures;
  /** The pass's raw latencies, pooled across passes for the headline figures. */
  samples: { health: Sample; vendors: Sample };
}

/** One sample of all the passes' requests of a path. */
const pooled = (samples: Sample[]): Sample => ({
  latencies: samples.flatMap((s) => s.latencies),
  statuses: samples.reduce<Record<number, number>>((sum, s) => {
    for (const [status, n] of Object.entries(s.statuses)) sum[Number(status)] = (sum[Number(status)] ?? 0) + n;
    return sum;
  }, {}),
  seconds: samples.reduce((sum, s) => sum + s.seconds, 0),
  cpu: samples.every((s) => s.cpu)
    ? {
        mainNs: samples.reduce((sum, s) => sum + s.cpu!.mainNs, 0),
        allNs: samples.reduce((sum, s) => sum + s.cpu!.allNs, 0),
      }
    : null,
  clientUs: samples.reduce((sum, s) => sum + s.clientUs, 0),
});

interface Service {
  url: string;
  readyMs: number;
  rssReady: number | null;
  pid: number;
  stop(): Promise<void>;
}

/** `npm start`'s entry with `env` added and VENDORS vendors stored, both paths warmed. */
async function startService(env: Record<string, string>): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn('npx', ['tsx', 'bin/local.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      PDS_DATA_DIR: dataDir,
      PDS_BOOTSTRAP_KEYS: `${KEY}:bench-org`,
      PDS_RATE_LIMIT: '1000000:100000000',
      NODE_NO_WARNINGS: '1',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const stop = async () => {
    await stopProcessGroup(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, child);
    const readyMs = performance.now() - started;
    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
      pid: number;
      dynamodbEndpoint: string;
      tableName: string;
    };
    const deps = createContainer(
      loadConfig({ PDS_DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint, PDS_TABLE_NAME: runtime.tableName }),
    );
    for (let i = 0; i < VENDORS; i++) {
      await recordProductSeen(deps.vendors, {
        vendor: `shop-${i}.example`,
        newProduct: true,
        updatedAt: new Date().toISOString(),
      });
    }
    deps.clients.dynamodb.destroy();
    const rssReady = rssOf(runtime.pid);
    // Warm both paths alike (module load, connections, the JIT) before measuring.
    for (let i = 0; i < WARM_UP; i++) {
      await get(`${url}/health`);
      await get(`${url}/v2/vendors`, { 'x-api-key': KEY });
    }
    return { url, readyMs, rssReady, pid: runtime.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Waits (up to SETTLE_MAX_MS) until both services' threads have been idle for a window: the work a
 * pass leaves behind (the baseline's storage compaction, GC, write-behind flushes) would otherwise
 * run during the next pass, the other service's, and land in its latencies. Returns the ms waited.
 */
async function settle(services: Service[]): Promise<number> {
  const started = performance.now();
  const cpuNow = () => services.reduce((sum, s) => sum + (serverCpu(s.pid)?.all ?? 0), 0);
  let before = cpuNow();
  while (performance.now() - started < SETTLE_MAX_MS) {
    await new Promise((r) => setTimeout(r, SETTLE_WINDOW_MS));
    const after = cpuNow();
    if (after - before < SETTLE_WINDOW_MS * 1e6 * SETTLE_IDLE_SHARE) break;
    before = after;
  }
  return performance.now() - started;
}

/** ROUNDS alternating slices of health and vendors requests (a load change touches both alike). */
async function pass(service: Service): Promise<Pass> {
  const health = newSample();
  const vendors = newSample();
  for (let round = 0; round < ROUNDS; round++) {
    await load(`${service.url}/health`, {}, REQUESTS / ROUNDS, health, service.pid);
    await load(`${service.url}/v2/vendors?page_size=20`, { 'x-api-key': KEY }, REQUESTS / ROUNDS, vendors, service.pid);
  }
  return { health: figures(health), vendors: figures(vendors), samples: { health, vendors } };
}

const p99Ratio = (p: Pick<Pass, 'health' | 'vendors'>) => p.vendors.p99 / p.health.p99;
/** The pass with the median p99 ratio (PASSES is odd). */
const medianPass = (passes: Pass[]) => [...passes].sort((a, b) => p99Ratio(a) - p99Ratio(b))[(passes.length - 1) / 2];
const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

/** "main thread 41 µs, all threads 55 µs" per request. */
const cpuText = (f: Figures) =>
  f.mainCpuUs === null || f.allCpuUs === null
    ? 'server CPU n/a'
    : `server CPU main thread ${f.mainCpuUs.toFixed(0)} µs, all threads ${f.allCpuUs.toFixed(0)} µs per request (client ${f.clientCpuUs.toFixed(0)} µs)`;

export default async function main(): Promise<void> {
  const services: Service[] = [];
  const loadAtStart = loadAverage();
  try {
    // Both services run side by side and take turns, pass by pass, so the machine's load changes
    // touch them alike: the baseline without write-behind and leases (usage written before each
    // response, one rate-limit update per admission or group), and the request path as shipped.
    const baseline = await startService({ PDS_USAGE_WRITE_BEHIND_MS: '0', PDS_RATE_LIMIT_LEASES: 'off' });
    services.push(baseline);
    const current = await startService({});
    services.push(current);
    // One untimed pass of each first: the first pass at full concurrency ran slower than the
    // rest on both paths (p99 5-7 ms against 2-3), which the pooled tail would mostly be made of.
    for (const service of services) {
      await settle(services);
      await pass(service);
    }
    const settleMs: number[] = [];
    const baselinePasses: Pass[] = [];
    const currentPasses: Pass[] = [];
    for (let i = 0; i < PASSES; i++) {
      settleMs.push(await settle(services));
      baselinePasses.push(await pass(baseline));
      settleMs.push(await settle(services));
      currentPasses.push(await pass(current));
    }

    const row = (name: string, f: Figures) =>
      `${name.padEnd(44)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(2).padStart(6)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   statuses ${JSON.stringify(f.statuses)}`;
    const ratios = (p: Pick<Pass, 'health' | 'vendors'>) =>
      `p50 ratio ${(p.vendors.p50 / p.health.p50).toFixed(2)}x   p99 ratio ${p99Ratio(p).toFixed(2)}x   throughput ratio ${(p.vendors.rps / p.health.rps).toFixed(2)}`;
    const report = (title: string, passes: Pass[], goal = '') => {
      // Each path's requests of every pass as one distribution: its p99 is the slowest 1% of
      // PASSES * REQUESTS requests, which no single stall decides.
      const all = {
        health: figures(pooled(passes.map((p) => p.samples.health))),
        vendors: figures(pooled(passes.map((p) => p.samples.vendors))),
      };
      const median = medianPass(passes);
      console.log(title);
      console.log(row('  GET /health (no auth)', all.health));
      console.log(row('  GET /v2/vendors (auth+rate+meter+query)', all.vendors));
      console.log(`  vendors vs health (all passes, ${PASSES * REQUESTS} requests per path): ${ratios(all)}${goal}`);
      console.log(`  vendors vs health (median pass): ${ratios(median)}`);
      for (const [i, p] of passes.entries()) {
        console.log(
          `  pass ${i + 1}: health p50 ${p.health.p50.toFixed(2)} / p99 ${p.health.p99.toFixed(2)} ms, vendors p50 ${p.vendors.p50.toFixed(2)} / p99 ${p.vendors.p99.toFixed(2)} ms: ${ratios(p)}`,
        );
        console.log(`          health ${cpuText(p.health)}; vendors ${cpuText(p.vendors)}`);
      }
      console.log(`  p99 ratio of each pass: ${passes.map((p) => `${p99Ratio(p).toFixed(2)}x`).join(', ')}`);
      // The CPU figures, medians over the passes: what each vendors request costs the server
      // beyond a /health request, whatever the machine's load did to the latencies.
      if (passes.every((p) => p.health.mainCpuUs !== null && p.vendors.mainCpuUs !== null)) {
        const per = (pick: (p: Pass) => number) => medianOf(passes.map(pick));
        const mainHealth = per((p) => p.health.mainCpuUs!);
        const mainVendors = per((p) => p.vendors.mainCpuUs!);
        const allHealth = per((p) => p.health.allCpuUs!);
        const allVendors = per((p) => p.vendors.allCpuUs!);
        const extraMain = per((p) => p.vendors.mainCpuUs! - p.health.mainCpuUs!);
        const extraAll = per((p) => p.vendors.allCpuUs! - p.health.allCpuUs!);
        const clientHealth = per((p) => p.health.clientCpuUs);
        const clientVendors = per((p) => p.vendors.clientCpuUs);
        console.log(
          `  server CPU per request (median of passes): main thread health ${mainHealth.toFixed(0)} µs, vendors ${mainVendors.toFixed(0)} µs (+${extraMain.toFixed(0)} µs, ${(mainVendors / mainHealth).toFixed(2)}x); all threads health ${allHealth.toFixed(0)} µs, vendors ${allVendors.toFixed(0)} µs (+${extraAll.toFixed(0)} µs, ${(allVendors / allHealth).toFixed(2)}x); the bench's client health ${clientHealth.toFixed(0)} µs, vendors ${clientVendors.toFixed(0)} µs`,
        );
      }
    };
    console.log(
      `platform bench: ${PASSES} passes per service, each ${REQUESTS} requests per path in ${ROUNDS} alternating slices, concurrency ${CONCURRENCY}, loopback, ${VENDORS} vendors`,
    );
    // The bench shares the machine with the server: figures move with the load around them.
    console.log(`machine load average (1/5/15 min): ${loadAtStart} at the start, ${loadAverage()} at the end`);
    console.log(`settling before each pass (both services idle): ${settleMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    report(
      'baseline (PDS_USAGE_WRITE_BEHIND_MS=0 PDS_RATE_LIMIT_LEASES=off: usage written before each response):',
      baselinePasses,
    );
    report('as shipped:', currentPasses, '   (goal: p99 ratio <= 1.5x)');
    console.log(
      `npm start (npx tsx bin/local.ts) to ready: ${current.readyMs.toFixed(0)} ms (beside the baseline's process)`,
    );
    console.log(
      `server RSS (whole process, dynalite thread included): ${current.rssReady?.toFixed(0) ?? '?'} MB at ready, ${rssOf(current.pid)?.toFixed(0) ?? '?'} MB after the load`,
    );
  } finally {
    agent.destroy();
    for (const service of services) await service.stop();
  }
}
