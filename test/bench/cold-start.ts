// `npm run bench -- cold-start`: every Lambda of the topology bundled the way the stack deploys it
// (lib/bundle.ts: esbuild, an ESM entry and its chunks, the AWS SDK inside), beside the same
// function built against the Lambda runtime's SDK (`@aws-sdk/*` and `@smithy/*` external, loaded
// from node_modules as the runtime loads its own copy); each function built on its own, as
// deployed. Per function: the asset's bytes (entry and chunks) and module init time (wall and CPU)
// and RSS, each the median of COLD_START_RUNS imports in fresh Node processes, the two builds
// taking turns. Budget: every asset under 5 MB, init under 250 ms (p50); rows over are flagged.
// COLD_START_ONLY=<substring> limits the functions.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { assetBytes, bundleFunctions } from '../../lib/bundle';
import { type LambdaEntry, lambdaEntries } from '../../lib/lambda-entries';
import { projectLayout } from '../../lib/source-layout';
import { startEngines } from '../../lambdas/local/engines';
import { CORPORA } from '../corpora';

const RUNS = Math.max(1, Math.min(9, Number(process.env.COLD_START_RUNS ?? 3)));
const ONLY = process.env.COLD_START_ONLY ?? '';
const ASSET_GOAL = 5 * 1024 * 1024;
const INIT_GOAL_MS = 250;
const RUNTIME_SDK = ['@aws-sdk/*', '@smithy/*'];
const EXTRACT_PROBE = path.join(process.cwd(), 'test/infra/fixtures/extract-probe.ts');

// A fresh process per run: import the handler module and report how long it took (wall and CPU) and the RSS.
const PROBE = `
const started = performance.now();
const cpu = process.cpuUsage();
const module = await import(process.argv[1]);
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
if (typeof module.handler !== 'function') throw new Error('no handler export');
console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, rss: process.memoryUsage().rss }));
`;

interface Init {
  ms: number;
  cpuMs: number;
  rssMb: number;
}

function importOnce(file: string) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, file], {
    encoding: 'utf8',
    timeout: 60_000,
    // No Lambda variables: the handler modules only define themselves at import.
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
  });
  return JSON.parse(out.trim().split('\n').pop()!) as { ms: number; cpuMs: number; rss: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Median init of each file over RUNS imports, the files taking turns (so both see the same load). */
function measureInit(files: string[]): Init[] {
  const samples = files.map(() => [] as Array<{ ms: number; cpuMs: number; rss: number }>);
  for (let i = 0; i < RUNS; i++) files.forEach((file, n) => samples[n]!.push(importOnce(file)));
  return samples.map((list) => ({
    ms: median(list.map((x) => x.ms)),
    cpuMs: median(list.map((x) => x.cpuMs)),
    rssMb: median(list.map((x) => x.rss)) / 1024 / 1024,
  }));
}

interface Side {
  bytes: number;
  init: Init;
}

interface Row {
  target: LambdaEntry;
  bundled: Side;
  runtime: Side;
}

/** A build's directory (a folder per function), and each function's asset size (its entry and the chunks it imports). */
interface Build {
  dir: string;
  bytes(name: string): number;
}

/**
 * Every target (and the extraction probe) built on its own into a fresh directory under `parent`,
 * as lib/node-function.ts builds each asset: one build for many entries would share chunks between
 * functions, and a function would load a dozen files where its asset has one.
 */
function buildAll(targets: LambdaEntry[], parent: string, external: string[]): Build {
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(path.join(parent, 'build-'));
  const sizes = new Map<string, number>();
  const started = performance.now();
  for (const [name, entry] of [...targets.map((t) => [t.name, t.entry]), ['extract-probe', EXTRACT_PROBE]] as const) {
    const metafile = bundleFunctions({ index: entry }, path.join(dir, name), { external });
    const output = Object.keys(metafile.outputs).find((file) => file.endsWith(`/${name}/index.mjs`))!;
    sizes.set(name, assetBytes(metafile, output));
  }
  console.log(
    `built ${targets.length} functions ${external.length ? 'against the runtime SDK' : 'with the SDK'} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { dir, bytes: (name) => sizes.get(name)! };
}

/**
 * A sync-extraction asset at work, not only loaded: the probe entry (the base container from the
 * environment and the extraction capability; test/infra/fixtures/extract-probe.ts) run with plain
 * `node` in a fresh process against one corpus page served over loopback
 * (test/infra/bundles.test.ts compares every page with tsx's result).
 */
async function extractInBundle(file: string): Promise<string> {
  const corpus = path.join(CORPORA, 'product-extraction-benchmark', 'html');
  const page = readdirSync(corpus)
    .filter((name) => name.endsWith('.html.gz'))
    .sort()[0]!;
  const html = gunzipSync(readFileSync(path.join(corpus, page)));
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  // The fetcher takes its turns on a host from the table's gate, as on Lambda.
  const engines = await startEngines();
  try {
    const script = `const m = await import(${JSON.stringify(file)}); const r = await m.handler(process.argv[1]); console.log(JSON.stringify({ success: r.success, outcome: r.outcome, title: r.product?.title ?? null, category: r.product?.taxonomy_product_category_path ?? null }));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script, `http://corpus-shop.test/p/${page.replace('.html.gz', '')}`],
      {
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          PDS_RESOLVE: `corpus-shop.test=127.0.0.1:${(server.address() as AddressInfo).port}`,
          PDS_CRAWL_DELAY_MS: '0',
          PDS_DYNAMODB_ENDPOINT: engines.dynamodbEndpoint,
          PDS_TABLE_NAME: engines.tableName,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
        },
      },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
      success: boolean;
      outcome: string;
      title: string | null;
      category: string | null;
    };
    if (!result.success) throw new Error(`the bundled extraction probe did not extract ${page}: ${result.outcome}`);
    return `extraction in a fresh process from a ${mb(statSync(file).size)} MB bundle: ${page.slice(0, 12)}… -> "${result.title}" (${result.category ?? 'no category'})`;
  } finally {
    await new Promise((done) => server.close(done));
    await engines.stop();
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

function summary(kind: string, rows: Row[]): string {
  const m = (pick: (r: Row) => number) => median(rows.map(pick));
  const max = (pick: (r: Row) => number) => Math.max(...rows.map(pick));
  return (
    `${kind}s (${rows.length}): asset median ${mb(m((r) => r.bundled.bytes))} MB, max ${mb(max((r) => r.bundled.bytes))} MB ` +
    `(runtime SDK: ${mb(m((r) => r.runtime.bytes))} / ${mb(max((r) => r.runtime.bytes))} MB); ` +
    `init median ${m((r) => r.bundled.init.ms).toFixed(0)} ms, max ${max((r) => r.bundled.init.ms).toFixed(0)} ms (CPU ${m((r) => r.bundled.init.cpuMs).toFixed(0)} ms) ` +
    `vs runtime SDK ${m((r) => r.runtime.init.ms).toFixed(0)} ms, max ${max((r) => r.runtime.init.ms).toFixed(0)} ms (CPU ${m((r) => r.runtime.init.cpuMs).toFixed(0)} ms); ` +
    `RSS median ${m((r) => r.bundled.init.rssMb).toFixed(0)} MB vs ${m((r) => r.runtime.init.rssMb).toFixed(0)} MB; ` +
    `${rows.filter((r) => r.bundled.bytes > ASSET_GOAL).length} over ${mb(ASSET_GOAL)} MB, ` +
    `${rows.filter((r) => r.bundled.init.ms > INIT_GOAL_MS).length} over ${INIT_GOAL_MS} ms`
  );
}

export default async function main(): Promise<void> {
  const targets = lambdaEntries(projectLayout(process.cwd())).filter((t) => !ONLY || t.name.includes(ONLY));
  // Under node_modules, so that the runtime-SDK build resolves the SDK as the Lambda runtime does.
  const parent = path.join(process.cwd(), 'node_modules', '.cache', 'pds-cold-start');
  const loadStart = loadavg();
  console.log(
    `cold-start: ${targets.length} functions, ${RUNS} fresh-process imports each (median), Node ${process.version}; ` +
      `load average ${loadStart.map((l) => l.toFixed(2)).join('/')} at the start (2 cores shared)`,
  );
  const bundledBuild = buildAll(targets, parent, []);
  const runtimeBuild = buildAll(targets, parent, RUNTIME_SDK);
  const [bundledDir, runtimeDir] = [bundledBuild.dir, runtimeBuild.dir];
  console.log('init ms = wall time of the import; CPU ms = the process CPU it used (less sensitive to the load)\n');
  const header = ['function', 'kind', 'asset MB', 'runtime-SDK MB', 'init ms', 'CPU ms', 'RSS MB'];
  console.log([...header, 'runtime-SDK init ms', 'runtime-SDK CPU ms', 'goal'].join('\t'));
  const rows: Row[] = [];
  try {
    for (const target of targets) {
      const files = [bundledDir, runtimeDir].map((dir) => path.join(dir, target.name, 'index.mjs'));
      const [bundled, runtime] = measureInit(files);
      const row: Row = {
        target,
        bundled: { bytes: bundledBuild.bytes(target.name), init: bundled! },
        runtime: { bytes: runtimeBuild.bytes(target.name), init: runtime! },
      };
      rows.push(row);
      const flags = [
        ...(row.bundled.bytes > ASSET_GOAL ? [`asset OVER ${mb(ASSET_GOAL)} MB`] : []),
        ...(row.bundled.init.ms > INIT_GOAL_MS ? [`init OVER ${INIT_GOAL_MS} ms`] : []),
      ];
      console.log(
        [
          target.name,
          target.kind,
          mb(row.bundled.bytes),
          mb(row.runtime.bytes),
          row.bundled.init.ms.toFixed(0),
          row.bundled.init.cpuMs.toFixed(0),
          row.bundled.init.rssMb.toFixed(0),
          row.runtime.init.ms.toFixed(0),
          row.runtime.init.cpuMs.toFixed(0),
          flags.length ? flags.join(', ') : 'ok',
        ].join('\t'),
      );
    }
    console.log(`\n${await extractInBundle(path.join(bundledDir, 'extract-probe', 'index.mjs'))}`);
  } finally {
    rmSync(bundledDir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  }
  for (const kind of ['route', 'worker'] as const) {
    const of = rows.filter((r) => r.target.kind === kind);
    if (of.length > 0) console.log(`\n${summary(kind, of)}`);
  }
  console.log(
    `\nload average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join('/')}`,
  );
}
