// `npm run bench -- cold-start`: every Lambda of the topology bundled the way the stack deploys
// it (lib/bundle.ts: esbuild, ESM, code splitting) beside the single-file bundle that
// NodejsFunction deployed before (the baseline), in the same run. Per function: the bytes its
// handler loads at init (entry + static chunks), the whole asset, and module init time and RSS,
// each measured by importing the bundle in a fresh Node process (median of COLD_START_RUNS).
// Goals (issue 15): every route handler under 1 MB at init; workers with the engine or index
// under 4 MB. COLD_START_ONLY=<substring> limits the functions measured.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { bundleFunction, loadedAtInit } from '../../lib/bundle';
import { projectLayout } from '../../lib/source-layout';
import { QUEUES } from '../../lambdas/topology/queues';
import { ROUTES } from '../../lambdas/topology/routes';
import { SCHEDULES } from '../../lambdas/topology/schedules';
import { WORKFLOWS } from '../../lambdas/topology/workflows';

const RUNS = Math.max(1, Math.min(9, Number(process.env.COLD_START_RUNS ?? 3)));
const ONLY = process.env.COLD_START_ONLY ?? '';
const ROUTE_GOAL = 1024 * 1024;
const WORKER_GOAL = 4 * 1024 * 1024;

interface Target {
  name: string;
  kind: 'route' | 'worker';
  entry: string;
}

function targets(): Target[] {
  const layout = projectLayout(process.cwd());
  const list: Target[] = [{ name: 'fallback', kind: 'route', entry: layout.fallbackHandler }];
  for (const route of ROUTES)
    list.push({ name: route.operationId, kind: 'route', entry: layout.httpHandler(route.handler) });
  const workers = new Set<string>([
    ...QUEUES.flatMap((q) => [q.worker, ...(q.dlqWorker ? [q.dlqWorker] : [])]),
    ...WORKFLOWS.flatMap((w) => Object.values(w.tasks)),
    ...SCHEDULES.map((s) => s.worker),
    'search-indexer',
  ]);
  for (const worker of workers) list.push({ name: worker, kind: 'worker', entry: layout.worker(worker) });
  return list.filter((t) => !ONLY || t.name.includes(ONLY));
}

const sizeOf = (files: string[]): number => files.reduce((sum, file) => sum + statSync(file).size, 0);

// A fresh process per run: import the handler module and report how long it took and the RSS.
const PROBE = `
const started = performance.now();
const module = await import(process.argv[1]);
const ms = performance.now() - started;
if (typeof module.handler !== 'function') throw new Error('no handler export');
console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss }));
`;

function measureInit(file: string): { ms: number; rssMb: number } {
  const samples: Array<{ ms: number; rss: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, file], {
      encoding: 'utf8',
      timeout: 60_000,
      // No Lambda variables: the handler modules only define themselves at import.
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    });
    samples.push(JSON.parse(out.trim().split('\n').pop()!));
  }
  samples.sort((a, b) => a.ms - b.ms);
  const median = samples[Math.floor(samples.length / 2)];
  return { ms: median.ms, rssMb: median.rss / 1024 / 1024 };
}

interface Row {
  target: Target;
  baselineBytes: number;
  baselineInit: { ms: number; rssMb: number };
  initBytes: number;
  assetBytes: number;
  chunksLoaded: number;
  init: { ms: number; rssMb: number };
}

function measure(target: Target, workDir: string): Row {
  const splitDir = path.join(workDir, `${target.name}-split`);
  const singleDir = path.join(workDir, `${target.name}-single`);
  const split = bundleFunction(target.entry, splitDir, { sourcemap: false });
  bundleFunction(target.entry, singleDir, { splitting: false, sourcemap: false, zodEnglishOnly: false });
  const loaded = loadedAtInit(split.metafile, splitDir).map((file) => path.resolve(file));
  const all = Object.keys(split.metafile.outputs).map((file) => path.resolve(file));
  const single = path.join(singleDir, 'index.mjs');
  return {
    target,
    baselineBytes: statSync(single).size,
    baselineInit: measureInit(single),
    initBytes: sizeOf(loaded),
    assetBytes: sizeOf(all),
    chunksLoaded: loaded.length,
    init: measureInit(path.join(splitDir, 'index.mjs')),
  };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export default async function main(): Promise<void> {
  const list = targets();
  const workDir = mkdtempSync(path.join(tmpdir(), 'pds-cold-start-'));
  console.log(
    `cold-start: ${list.length} functions, ${RUNS} fresh-process imports each (median), Node ${process.version}`,
  );
  console.log(
    'baseline = one file per function, every zod locale (NodejsFunction before); split = what the stack deploys now\n',
  );
  const header = [
    'function',
    'kind',
    'baseline MB',
    'base init ms',
    'base RSS MB',
    'split init MB',
    'asset MB',
    'init ms',
    'RSS MB',
    'goal',
  ];
  console.log(header.join('\t'));
  const rows: Row[] = [];
  try {
    for (const target of list) {
      const row = measure(target, workDir);
      rows.push(row);
      const goal = target.kind === 'route' ? ROUTE_GOAL : WORKER_GOAL;
      console.log(
        [
          target.name,
          target.kind,
          mb(row.baselineBytes),
          row.baselineInit.ms.toFixed(0),
          row.baselineInit.rssMb.toFixed(0),
          mb(row.initBytes),
          mb(row.assetBytes),
          row.init.ms.toFixed(0),
          row.init.rssMb.toFixed(0),
          row.initBytes <= goal ? 'ok' : `OVER ${mb(goal)}`,
        ].join('\t'),
      );
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  for (const kind of ['route', 'worker'] as const) {
    const of = rows.filter((r) => r.target.kind === kind);
    if (of.length === 0) continue;
    const goal = kind === 'route' ? ROUTE_GOAL : WORKER_GOAL;
    console.log(
      `\n${kind}s (${of.length}): loaded at init median ${mb(median(of.map((r) => r.initBytes)))} MB, max ${mb(Math.max(...of.map((r) => r.initBytes)))} MB ` +
        `(baseline median ${mb(median(of.map((r) => r.baselineBytes)))} MB, max ${mb(Math.max(...of.map((r) => r.baselineBytes)))} MB); ` +
        `init median ${median(of.map((r) => r.init.ms)).toFixed(0)} ms vs baseline ${median(of.map((r) => r.baselineInit.ms)).toFixed(0)} ms; ` +
        `RSS median ${median(of.map((r) => r.init.rssMb)).toFixed(0)} MB vs ${median(of.map((r) => r.baselineInit.rssMb)).toFixed(0)} MB; ` +
        `${of.filter((r) => r.initBytes > goal).length} over the ${mb(goal)} MB goal`,
    );
  }
}
