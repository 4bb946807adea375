// `npm run bench -- platform`: the platform pipeline's cost. Starts `npm start`'s entry
// (bin/local.ts) with a temporary data directory, measures time to ready and RSS, then drives
// authenticated GET /v2/vendors (auth + rate limit + metering + a GSI query) beside
// unauthenticated GET /health over loopback, same count and concurrency, and prints both, with
// the machine's load average (the client runs on the same cores as the server).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../lambdas/config';
import { createContainer } from '../../lambdas/composition/container';
import { recordProductSeen } from '../../lambdas/domain/vendors/service';
import { freePort, stopProcessGroup } from './_service-process';

const REQUESTS = 2000;
const CONCURRENCY = 16;
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
}

async function load(url: string, headers: Record<string, string>): Promise<Figures> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const t0 = performance.now();
        const status = await get(url, headers);
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { rps: REQUESTS / seconds, p50: pct(50), p99: pct(99), statuses };
}

const rssOf = (pid: number): number | null => {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
};

export default async function main(): Promise<void> {
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
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
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

    // Warm both paths (module load, connections) before measuring.
    for (let i = 0; i < 50; i++) {
      await get(`${url}/health`);
      await get(`${url}/v2/vendors`, { 'x-api-key': KEY });
    }
    const health = await load(`${url}/health`, {});
    const vendors = await load(`${url}/v2/vendors?page_size=20`, { 'x-api-key': KEY });
    const rssAfter = rssOf(runtime.pid);

    const row = (name: string, f: Figures) =>
      `${name.padEnd(36)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(2).padStart(6)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   statuses ${JSON.stringify(f.statuses)}`;
    console.log(
      `platform bench: ${REQUESTS} requests per path, concurrency ${CONCURRENCY}, loopback, ${VENDORS} vendors`,
    );
    // The bench shares the machine with the server: figures move with the load around them.
    console.log(
      `machine load average (1/5/15 min) at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')}`,
    );
    console.log(row('GET /health (no auth)', health));
    console.log(row('GET /v2/vendors (auth+rate+meter+query)', vendors));
    console.log(
      `throughput ratio vendors/health: ${(vendors.rps / health.rps).toFixed(2)}   p50 ratio: ${(vendors.p50 / health.p50).toFixed(1)}x`,
    );
    console.log(`npm start (npx tsx bin/local.ts) to ready: ${readyMs.toFixed(0)} ms`);
    console.log(
      `server RSS (whole process, dynalite thread included): ${rssReady?.toFixed(0) ?? '?'} MB at ready, ${rssAfter?.toFixed(0) ?? '?'} MB after the load`,
    );
  } finally {
    agent.destroy();
    await stopProcessGroup(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
