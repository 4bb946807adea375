// `npm run bench -- cold-start`: every Lambda of the topology bundled the way the stack deploys
// it (lib/bundle.ts: esbuild, ESM, code splitting, only the chunks its entry can reach, no source
// maps) beside the same function bundled as before (every chunk and its linked source map in the
// asset, cheerio with its loaders), in the same run. Per function: the asset's bytes on disk, the
// bytes its handler loads at init (entry + static chunks), and module init time (wall and CPU)
// and RSS, each measured by importing the bundle in a fresh Node process (median of
// COLD_START_RUNS). Goals (issue 12): every asset under 1 MB, init under 150 ms; rows over are
// flagged. COLD_START_ONLY=<substring> limits the functions measured.
import { execFileSync, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { bundleFunction, loadedAtInit } from '../../lib/bundle';
import { projectLayout } from '../../lib/source-layout';
import { lambdaEntries, type LambdaEntry } from '../../lib/lambda-entries';
import { FUNCTION_CAPABILITIES } from '../../lambdas/topology/capabilities';
import { gunzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import { CORPORA } from '../corpora';

const RUNS = Math.max(1, Math.min(9, Number(process.env.COLD_START_RUNS ?? 3)));
const ONLY = process.env.COLD_START_ONLY ?? '';
const ASSET_GOAL = 1024 * 1024;
const INIT_GOAL_MS = 150;

type Target = LambdaEntry;

/** Every function the stack deploys (the same list the CDK stack and synth bundle). */
function targets(): Target[] {
  return lambdaEntries(projectLayout(process.cwd())).filter((t) => !ONLY || t.name.includes(ONLY));
}

const sizeOf = (files: string[]): number => files.reduce((sum, file) => sum + statSync(file).size, 0);

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

function measureInit(file: string): Init {
  const samples: Array<{ ms: number; cpuMs: number; rss: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, file], {
      encoding: 'utf8',
      timeout: 60_000,
      // No Lambda variables: the handler modules only define themselves at import.
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    });
    samples.push(JSON.parse(out.trim().split('\n').pop()!));
  }
  const mid = <T>(list: T[], by: (x: T) => number) =>
    [...list].sort((a, b) => by(a) - by(b))[Math.floor(list.length / 2)]!;
  return {
    ms: mid(samples, (x) => x.ms).ms,
    cpuMs: mid(samples, (x) => x.cpuMs).cpuMs,
    rssMb: mid(samples, (x) => x.rss).rss / 1024 / 1024,
  };
}

interface Side {
  assetBytes: number;
  initBytes: number;
  files: number;
  init: Init;
}

interface Row {
  target: Target;
  before: Side;
  after: Side;
}

function side(target: Target, dir: string, before: boolean): Side {
  const { metafile } = before
    ? bundleFunction(target.entry, dir, {
        sourcemap: true,
        keepUnreachable: true,
        cheerioLoadOnly: false,
        keepNames: false,
        capabilities: 'all',
        lambdaCredentials: false,
        trimmed: false,
      })
    : bundleFunction(target.entry, dir);
  const all = Object.keys(metafile.outputs).map((file) => path.resolve(file));
  const loaded = loadedAtInit(metafile, dir).map((file) => path.resolve(file));
  return {
    assetBytes: sizeOf(all),
    initBytes: sizeOf(loaded),
    files: all.length,
    init: measureInit(path.join(dir, 'index.mjs')),
  };
}

function measure(target: Target, workDir: string): Row {
  return {
    target,
    before: side(target, path.join(workDir, `${target.name}-before`), true),
    after: side(target, path.join(workDir, `${target.name}-after`), false),
  };
}

/**
 * A sync-extraction asset at work, not only loaded: the probe entry (the composition root from the
 * environment, container.extractUrl; test/infra/fixtures/extract-probe.ts) bundled with the legacy
 * /api/product route's capability list, run with plain `node` in a fresh process against one corpus
 * page served over loopback: the stubs, the compressed data and the trimmed dependencies inside the
 * asset extract it (test/infra/bundle-extract.test.ts compares the result with tsx's).
 */
async function extractInBundle(workDir: string): Promise<string> {
  const corpus = path.join(CORPORA, 'product-extraction-benchmark', 'html');
  const file = readdirSync(corpus)
    .filter((name) => name.endsWith('.html.gz'))
    .sort()[0]!;
  const html = gunzipSync(readFileSync(path.join(corpus, file)));
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const outdir = path.join(workDir, 'extract-probe');
    const { metafile } = bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/extract-probe.ts'), outdir, {
      capabilities: FUNCTION_CAPABILITIES['http/legacy/product'],
    });
    const bytes = sizeOf(Object.keys(metafile.outputs).map((out) => path.resolve(out)));
    const script = `const m = await import(${JSON.stringify(path.join(outdir, 'index.mjs'))}); const r = await m.handler(process.argv[1]); console.log(JSON.stringify({ success: r.success, outcome: r.outcome, title: r.product?.title ?? null, category: r.product?.taxonomy_product_category_path ?? null }));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script, `http://corpus-shop.test/p/${file.replace('.html.gz', '')}`],
      {
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          PDS_RESOLVE: `corpus-shop.test=127.0.0.1:${(server.address() as AddressInfo).port}`,
          PDS_CRAWL_DELAY_MS: '0',
          AWS_REGION: 'us-east-1',
        },
      },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
      success: boolean;
      outcome: string;
      title: string | null;
      category: string | null;
    };
    if (!result.success)
      throw new Error(`the bundled sync-extraction asset did not extract ${file}: ${result.outcome}`);
    return `sync extraction in a fresh process from a ${mb(bytes)} MB asset (legacy /api/product's capabilities): ${file.slice(0, 12)}… -> "${result.title}" (${result.category ?? 'no category'})`;
  } finally {
    await new Promise((done) => server.close(done));
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export default async function main(): Promise<void> {
  const list = targets();
  const workDir = mkdtempSync(path.join(tmpdir(), 'pds-cold-start-'));
  const loadStart = loadavg();
  console.log(
    `cold-start: ${list.length} functions, ${RUNS} fresh-process imports each (median), Node ${process.version}; ` +
      `load average ${loadStart.map((l) => l.toFixed(2)).join('/')} at the start (2 cores shared)`,
  );
  console.log(
    "before = every chunk + linked source maps in the asset, cheerio with its loaders, every lazy capability, the SDK's whole credential chain, data and dependencies untrimmed; after = what the stack deploys now",
  );
  console.log('init ms = wall time of the import; CPU ms = the process CPU it used (less sensitive to the load)\n');
  const header = [
    'function',
    'kind',
    'asset MB before',
    'asset MB',
    'init MB before',
    'init MB',
    'init ms before',
    'init ms',
    'CPU ms',
    'RSS MB',
    'goal',
  ];
  console.log(header.join('\t'));
  const rows: Row[] = [];
  try {
    for (const target of list) {
      const row = measure(target, workDir);
      rows.push(row);
      const flags = [
        ...(row.after.assetBytes > ASSET_GOAL ? [`asset OVER ${mb(ASSET_GOAL)} MB`] : []),
        ...(row.after.init.ms > INIT_GOAL_MS ? [`init OVER ${INIT_GOAL_MS} ms`] : []),
      ];
      console.log(
        [
          target.name,
          target.kind,
          mb(row.before.assetBytes),
          mb(row.after.assetBytes),
          mb(row.before.initBytes),
          mb(row.after.initBytes),
          row.before.init.ms.toFixed(0),
          row.after.init.ms.toFixed(0),
          row.after.init.cpuMs.toFixed(0),
          row.after.init.rssMb.toFixed(0),
          flags.length ? flags.join(', ') : 'ok',
        ].join('\t'),
      );
    }
    console.log(`\n${await extractInBundle(workDir)}`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  for (const kind of ['route', 'worker'] as const) {
    const of = rows.filter((r) => r.target.kind === kind);
    if (of.length === 0) continue;
    const m = (pick: (r: Row) => number) => median(of.map(pick));
    const max = (pick: (r: Row) => number) => Math.max(...of.map(pick));
    console.log(
      `\n${kind}s (${of.length}): asset median ${mb(m((r) => r.after.assetBytes))} MB, max ${mb(max((r) => r.after.assetBytes))} MB ` +
        `(before ${mb(m((r) => r.before.assetBytes))} / ${mb(max((r) => r.before.assetBytes))} MB); ` +
        `loaded at init median ${mb(m((r) => r.after.initBytes))} MB (before ${mb(m((r) => r.before.initBytes))} MB); ` +
        `init median ${m((r) => r.after.init.ms).toFixed(0)} ms (CPU ${m((r) => r.after.init.cpuMs).toFixed(0)} ms) vs ${m((r) => r.before.init.ms).toFixed(0)} ms before; ` +
        `RSS median ${m((r) => r.after.init.rssMb).toFixed(0)} MB vs ${m((r) => r.before.init.rssMb).toFixed(0)} MB; ` +
        `${of.filter((r) => r.after.assetBytes > ASSET_GOAL).length} over ${mb(ASSET_GOAL)} MB, ` +
        `${of.filter((r) => r.after.init.ms > INIT_GOAL_MS).length} over ${INIT_GOAL_MS} ms`,
    );
  }
  console.log(
    `\nload average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join('/')}`,
  );
}
