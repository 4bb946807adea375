// `npm run bench -- startup`: `npm start` from spawn to ready, against the goal (issue 12: under
// 1.5 s) and against the start-up before the change, in one run (rounds alternate, medians).
// Each start gets a fresh data directory (first-start work: the table, the development key).
//   before     the tree at STARTUP_BASE (default: the commit before the change), `npm start` as it
//              was then (tsx bin/local.ts), extracted with `git archive` beside node_modules
//   tsx        today's code through tsx, nothing remembered (PDS_NO_BUNDLE=1, empty cache dir)
//   first      `npm start` on a fresh clone: empty cache, so the bundle is built and the state
//              machine definitions validated on the way
//   npm start  `npm start` again: the cached bundle, definitions remembered (every later start)
// Per start: ms to the "ready" line and to the first 200 from GET /health (both from spawn), and
// the phases the service prints (PDS_STARTUP_PHASES=1). STARTUP_RUNS rounds (default 3).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopProcessGroup } from './_service-process';

const RUNS = Math.max(1, Math.min(9, Number(process.env.STARTUP_RUNS ?? 3)));
const BASE = process.env.STARTUP_BASE ?? 'af86bdd';
const GOAL_MS = 1500;
const READY_TIMEOUT_MS = 60_000;

interface Variant {
  name: string;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** A fresh cache directory per start (first-start cost). */
  freshCache?: boolean;
}

interface Sample {
  readyMs: number;
  healthMs: number;
  phases: Record<string, number>;
}

const health = (url: string) =>
  new Promise<number>((resolve) => {
    const req = request(`${url}/health`, { timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });

async function startOnce(variant: Variant): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-startup-'));
  // Inside the tree: the bundle's packages resolve from node_modules.
  const cacheDir = variant.freshCache
    ? mkdtempSync(join(process.cwd(), 'node_modules', '.cache', 'pds-startup-bench-'))
    : undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(variant.command[0]!, variant.command.slice(1), {
    cwd: variant.cwd,
    env: {
      ...process.env,
      PORT: String(port),
      PDS_DATA_DIR: dataDir,
      PDS_STARTUP_PHASES: '1',
      NODE_NO_WARNINGS: '1',
      ...(cacheDir ? { PDS_START_CACHE_DIR: cacheDir } : {}),
      ...variant.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let readyMs = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!readyMs && /^ready /m.test(output)) readyMs = performance.now() - started;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  try {
    // The client polls /health as a user's first request would (every 10 ms, bounded).
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let healthMs = 0;
    for (let i = 0; i < 6000 && Date.now() < deadline && !healthMs; i++) {
      if (child.exitCode !== null) throw new Error(`${variant.name} exited with ${child.exitCode}:\n${output}`);
      if ((await health(url)) === 200) healthMs = performance.now() - started;
      else await new Promise((r) => setTimeout(r, 10));
    }
    if (!healthMs) throw new Error(`${variant.name}: no /health 200 within ${READY_TIMEOUT_MS} ms:\n${output}`);
    // The ready line is printed right after the server listens; give stdout a moment to arrive.
    for (let i = 0; i < 200 && !readyMs; i++) await new Promise((r) => setTimeout(r, 10));
    const phases = /^startup phases (\{.*\})$/m.exec(output)?.[1];
    return { readyMs: readyMs || healthMs, healthMs, phases: phases ? JSON.parse(phases) : {} };
  } finally {
    await stopProcessGroup(child);
    rmSync(dataDir, { recursive: true, force: true });
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** The tree at `base` (sources, state machines, manifests) in a temp dir, sharing this node_modules. */
function checkoutBase(base: string): string | undefined {
  try {
    const dir = mkdtempSync(join(tmpdir(), 'pds-startup-base-'));
    const archive = execFileSync(
      'git',
      ['archive', '--format=tar', base, 'bin', 'lambdas', 'statemachines', 'package.json', 'tsconfig.json'],
      {
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    symlinkSync(join(process.cwd(), 'node_modules'), join(dir, 'node_modules'), 'dir');
    return dir;
  } catch (error) {
    console.log(`(no "before" row: cannot extract ${base} with git: ${(error as Error).message.split('\n')[0]})`);
    return undefined;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export default async function main(): Promise<void> {
  const root = process.cwd();
  const baseDir = checkoutBase(BASE);
  const tsx = join(root, 'node_modules', '.bin', 'tsx');
  const variants: Variant[] = [
    ...(baseDir ? [{ name: `before (${BASE})`, command: [tsx, 'bin/local.ts'], cwd: baseDir, env: {} }] : []),
    { name: 'tsx, nothing cached', command: [tsx, 'bin/local.ts'], cwd: root, env: {}, freshCache: true },
    { name: 'npm start, first start', command: ['npm', 'start', '--silent'], cwd: root, env: {}, freshCache: true },
    { name: 'npm start', command: ['npm', 'start', '--silent'], cwd: root, env: {} },
  ];
  const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
  const loadBefore = loadavg();
  try {
    // Warm-up: the cached bundle exists and the definitions are remembered for "npm start".
    await startOnce(variants.at(-1)!);
    for (let round = 0; round < RUNS; round++) {
      for (const variant of variants) samples.get(variant.name)!.push(await startOnce(variant));
    }
  } finally {
    if (baseDir) rmSync(baseDir, { recursive: true, force: true });
  }
  const loadAfter = loadavg();

  console.log(
    `startup: ${RUNS} rounds, variants alternating, a fresh data dir per start; Node ${process.version}; ` +
      `load average ${loadBefore.map((l) => l.toFixed(2)).join('/')} before, ${loadAfter.map((l) => l.toFixed(2)).join('/')} after (2 cores shared)`,
  );
  console.log('ms from spawn, medians; phases: median of each phase (ms) as the service prints them\n');
  console.log(`${'variant'.padEnd(26)} ${'ready'.padStart(7)} ${'/health'.padStart(8)}  goal ${GOAL_MS} ms   phases`);
  const byName = new Map<string, number>();
  for (const variant of variants) {
    const list = samples.get(variant.name)!;
    const ready = median(list.map((s) => s.readyMs));
    const first = median(list.map((s) => s.healthMs));
    byName.set(variant.name, first);
    const keys = [...new Set(list.flatMap((s) => Object.keys(s.phases)))];
    const phases = keys.map((k) => `${k} ${median(list.map((s) => s.phases[k] ?? 0))}`).join(', ');
    console.log(
      `${variant.name.padEnd(26)} ${ready.toFixed(0).padStart(7)} ${first.toFixed(0).padStart(8)}  ${first < GOAL_MS ? 'ok  ' : 'OVER'}           ${phases}`,
    );
  }
  const after = byName.get('npm start')!;
  const before = baseDir ? byName.get(`before (${BASE})`) : byName.get('tsx, nothing cached');
  console.log(
    `\nnpm start to first /health: ${after.toFixed(0)} ms vs ${before!.toFixed(0)} ms ${baseDir ? 'before' : 'through tsx'} ` +
      `(${(before! / after).toFixed(2)}x faster); goal < ${GOAL_MS} ms: ${after < GOAL_MS ? 'met' : 'NOT met'}`,
  );
}
