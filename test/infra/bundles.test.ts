// Every Lambda of the topology bundled with the stack's options (lib/bundle.ts), in one esbuild
// build with two probes (so chunks are shared between functions here, where each deployed asset
// has its own; the code each function reaches is the same): each asset is an ESM entry and its
// chunks, under 5 MB without a source map, holds what its imports reach (no page reading where no
// page is read) and loads in a fresh Node process (its module init runs and it exports a handler);
// the extraction probe extracts the corpus pages in its bundle exactly as tsx does; the tracing
// probe sends the same X-Ray subsegments bundled as unbundled. Sizes and init times, each
// function built on its own: `npm run bench -- cold-start`.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetBytes, assetOutputs, bundleFunctions } from '../../lib/bundle';
import { lambdaEntries } from '../../lib/lambda-entries';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { projectLayout } from '../../lib/source-layout';
import type { UrlResult } from '../../lambdas/domain/extraction/types';
import { ENV } from '../../lambdas/topology/env';
import { QUEUES } from '../../lambdas/topology/queues';
import { WORKFLOWS } from '../../lambdas/topology/workflows';
import { CORPORA } from '../corpora';

const run = promisify(execFile);
const ASSET_LIMIT = 5 * 1024 * 1024;
const entries = lambdaEntries(projectLayout(process.cwd()));
const FIXTURES = path.join(__dirname, 'fixtures');
const PROBES = { extract: path.join(FIXTURES, 'extract-probe.ts'), tracing: path.join(FIXTURES, 'tracing-entry.ts') };
const work = mkdtempSync(path.join(tmpdir(), 'pds-bundles-'));
const fileOf = (name: string) => path.join(work, name, 'index.mjs');
let metafile: Metafile;
/** A function's entry as the metafile names it. */
const outputOf = (name: string) => Object.keys(metafile.outputs).find((file) => file.endsWith(`/${name}/index.mjs`))!;
/** The source modules a function ships: in its entry and in every chunk the entry imports, at once or later. */
const inputsOf = (name: string) =>
  assetOutputs(metafile, outputOf(name)).flatMap((file) => Object.keys(metafile.outputs[file]!.inputs));

beforeAll(() => {
  metafile = bundleFunctions(
    Object.fromEntries([
      ...entries.map((entry) => [`${entry.name}/index`, entry.entry]),
      ...Object.entries(PROBES).map(([name, entry]) => [`probe-${name}/index`, entry]),
    ]),
    work,
  );
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `handler(argument)` of a module in a fresh Node process with `env`; its JSON answer. */
async function runHandler(file: string, argument: unknown, env: NodeJS.ProcessEnv, loader: string[] = []) {
  const script = `const m = await import(${JSON.stringify(file)}); console.log(JSON.stringify(await m.handler(JSON.parse(process.argv[1]))));`;
  const { stdout } = await run(
    process.execPath,
    [...loader, '--input-type=module', '-e', script, JSON.stringify(argument)],
    {
      timeout: 180_000,
      env: { PATH: process.env.PATH ?? '', ...env },
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as unknown;
}

describe('every Lambda bundled as deployed', () => {
  // A Lambda's environment as the stack sets it (lib/product-data-stack.ts), with stand-in values.
  const LAMBDA_ENV = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    AWS_LAMBDA_FUNCTION_NAME: 'pds-bundle-test',
    [ENV.tableName]: 'pds-table',
    [ENV.searchSnapshotBucket]: 'pds-search',
    ...Object.fromEntries(QUEUES.map((queue) => [queue.envVar, `https://sqs.eu-west-1.amazonaws.com/1/${queue.name}`])),
    ...Object.fromEntries(
      WORKFLOWS.map((workflow) => [workflow.envVar, `arn:aws:states:eu-west-1:1:stateMachine:${workflow.name}`]),
    ),
  };
  // Imports the module, as the Lambda runtime does at init, and names its exports.
  const PROBE = 'const m = await import(process.argv[1]); console.log(JSON.stringify(Object.keys(m)));';

  it('is an ESM entry and its chunks, under 5 MB in all, without a source map', () => {
    expect(entries.length).toBeGreaterThan(50);
    for (const { name } of entries) {
      expect(readdirSync(path.join(work, name)), name).toEqual(['index.mjs']);
      expect(assetBytes(metafile, outputOf(name)), name).toBeLessThan(ASSET_LIMIT);
      expect(assetBytes(metafile, outputOf(name)), name).toBeGreaterThanOrEqual(statSync(fileOf(name)).size);
    }
    const files = readdirSync(work, { recursive: true }).map(String);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('chunks/')).length).toBeGreaterThan(0);
  });

  it('holds what its imports reach: functions that read no page ship no extraction engine, cheerio or got (they would cost every cold start)', () => {
    const PAGE_READING = ['lambdas/domain/extraction/engine.ts', 'node_modules/cheerio/', 'node_modules/got/'];
    for (const name of ['health', 'v2Vendors', 'v2ExtractStatus', 'execution-reaper', 'webhook-deliver'])
      for (const heavy of PAGE_READING)
        expect(
          inputsOf(name).some((input) => input.includes(heavy)),
          `${heavy} in ${name}`,
        ).toBe(false);
    // The synchronous extraction route does read pages.
    for (const heavy of PAGE_READING)
      expect(
        inputsOf('legacyProduct').some((input) => input.includes(heavy)),
        heavy,
      ).toBe(true);
  });

  it("holds no parse5 (cheerio's main entry, with undici and iconv-lite) and, in a route, only its request schemas", () => {
    for (const { name, kind } of entries) {
      const inputs = inputsOf(name);
      expect(
        inputs.filter((input) => input.includes('node_modules/parse5/')),
        name,
      ).toEqual([]);
      // Response schemas are for the OpenAPI document (lambdas/contracts/operations.ts).
      if (kind === 'route' && name !== 'openapi')
        expect(
          inputs.some((input) => input.endsWith('lambdas/contracts/entities.ts')),
          name,
        ).toBe(false);
    }
  });

  it('loads in a fresh Node process and exports its handler', async () => {
    const failures: string[] = [];
    const queue = [...entries];
    // Two processes at a time (the machine's cores), each bounded by its timeout.
    const load = async () => {
      for (let entry = queue.shift(); entry; entry = queue.shift()) {
        try {
          const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE, fileOf(entry.name)], {
            env: LAMBDA_ENV,
            timeout: 60_000,
          });
          const exports = JSON.parse(stdout.trim().split('\n').pop()!) as string[];
          if (!exports.includes('handler')) failures.push(`${entry.name}: no handler export (${exports.join(', ')})`);
        } catch (error) {
          failures.push(`${entry.name}: ${(error as Error).message.slice(0, 2000)}`);
        }
      }
    };
    await Promise.all([load(), load()]);
    expect(failures).toEqual([]);
  }, 600_000);
});

describe('the extraction in a bundle, in a fresh Node process', () => {
  const HOST = 'corpus-shop.test';
  const CORPUS = path.join(CORPORA, 'product-extraction-benchmark', 'html');
  // Every page of the product extraction benchmark (real shops: prices, variants, categories,
  // descriptions through sanitize-html, the enrichment's taxonomy).
  const PAGES = readdirSync(CORPUS)
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .map((name) => name.slice(0, -'.html.gz'.length));
  let server: http.Server;
  let env: NodeJS.ProcessEnv;
  // The fetcher takes its turns on a host from the table's gate, as every worker does.
  let engines: Engines;
  const saved = {
    resolve: process.env[ENV.resolve],
    delay: process.env[ENV.crawlDelayMs],
    endpoint: process.env[ENV.dynamodbEndpoint],
    table: process.env[ENV.tableName],
  };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const id = (req.url ?? '').replace(/^\/p\//, '');
      if (!PAGES.includes(id)) return void res.writeHead(404).end();
      const html = gunzipSync(readFileSync(path.join(CORPUS, `${id}.html.gz`)));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    engines = await startEngines();
    env = {
      [ENV.resolve]: `${HOST}=127.0.0.1:${(server.address() as AddressInfo).port}`,
      [ENV.crawlDelayMs]: '0',
      [ENV.dynamodbEndpoint]: engines.dynamodbEndpoint,
      [ENV.tableName]: engines.tableName,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    };
    Object.assign(process.env, env);
  });
  afterAll(async () => {
    for (const [key, value] of [
      [ENV.resolve, saved.resolve],
      [ENV.crawlDelayMs, saved.delay],
      [ENV.dynamodbEndpoint, saved.endpoint],
      [ENV.tableName, saved.table],
    ] as const)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    await new Promise((done) => server.close(done));
    await engines?.stop();
  });

  /** The result as JSON, its clock readings (`*_at`, set when extracted) replaced. */
  const timeless = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value), (key, field) =>
      key.endsWith('_at') && typeof field === 'string' ? '<time>' : field,
    );

  it('extracts the corpus pages exactly as the unbundled engine does, enrichment and all', async () => {
    const urls = PAGES.map((id) => `http://${HOST}/p/${id}`);
    const inBundle = (await runHandler(fileOf('probe-extract'), urls, env)) as UrlResult[];
    const { handler } = await import('./fixtures/extract-probe');
    const inTsx = (await handler(urls)) as UrlResult[];
    expect(timeless(inBundle)).toEqual(timeless(inTsx));
    expect(inBundle.filter((result) => result.success).length).toBeGreaterThan(PAGES.length / 2);
    // The taxonomy answered at least once.
    expect(inBundle.filter((result) => result.product?.taxonomy_product_category_id).length).toBeGreaterThan(0);
  }, 300_000);
});

describe('tracing in a bundle, as on Lambda', () => {
  const TRACE_ROOT = '1-5759e988-bd862e3fe1be46a994272793';
  const LAMBDA_PARENT = '53995c3f42cd8ad8';
  let daemon: dgram.Socket;
  let server: http.Server;
  const datagrams: string[] = [];

  beforeAll(async () => {
    daemon = dgram.createSocket('udp4');
    daemon.on('message', (message) => datagrams.push(message.toString('utf8')));
    await new Promise<void>((done) => daemon.bind(0, '127.0.0.1', done));
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  });
  afterAll(async () => {
    daemon.close();
    await new Promise((done) => server.close(done));
  });

  interface Subsegment {
    id: string;
    name: string;
    parent_id: string;
    trace_id: string;
    annotations?: Record<string, unknown>;
    http?: unknown;
    fault?: boolean;
    cause?: { exceptions: Array<{ message: string; type: string }> };
  }

  /** Runs the probe as on Lambda; the subsegments it sent, ids and clock readings replaced by what they point at. */
  async function traceOf(module: string, loader: string[]): Promise<unknown[]> {
    datagrams.length = 0;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
    const answer = await runHandler(
      module,
      url,
      {
        LAMBDA_TASK_ROOT: '/var/task',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        AWS_REGION: 'us-east-1',
        _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=${LAMBDA_PARENT};Sampled=1`,
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
        AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      },
      loader,
    );
    expect(answer).toBe('step failed');
    // UDP on loopback: the datagrams are in once the process has sent them; wait for the three (bounded).
    for (let i = 0; i < 50 && datagrams.length < 3; i++) await new Promise((done) => setTimeout(done, 20));
    const subsegments = datagrams.map((datagram) => {
      const [header, body] = datagram.split('\n');
      expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
      return JSON.parse(body!) as Subsegment;
    });
    const names = new Map(subsegments.map((s) => [s.id, s.name]));
    return subsegments
      .map((s) => ({
        name: s.name,
        parent: s.parent_id === LAMBDA_PARENT ? 'the Lambda segment' : names.get(s.parent_id),
        trace_id: s.trace_id,
        annotations: s.annotations,
        http: s.http,
        fault: s.fault,
        exceptions: s.cause?.exceptions.map((e) => ({ message: e.message, type: e.type })),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  it('sends the same subsegments to the X-Ray daemon bundled as unbundled (the HTTP patch included)', async () => {
    const bundled = await traceOf(fileOf('probe-tracing'), []);
    const unbundled = await traceOf(PROBES.tracing, ['--import', 'tsx']);
    expect(bundled).toEqual(unbundled);
    expect(bundled.map((s) => (s as { name: string }).name)).toEqual(['## failing', '## probe', '127.0.0.1']);
    expect(bundled).toContainEqual(
      expect.objectContaining({
        name: '## probe',
        parent: 'the Lambda segment',
        trace_id: TRACE_ROOT,
        annotations: expect.objectContaining({
          operation: 'probe',
          execution_id: 'extract-urls-1',
          organization: 'org-a',
        }),
      }),
    );
    expect(bundled).toContainEqual(expect.objectContaining({ name: '127.0.0.1', parent: '## probe' }));
    expect(bundled).toContainEqual(
      expect.objectContaining({
        name: '## failing',
        fault: true,
        exceptions: [{ message: 'step failed', type: 'Error' }],
      }),
    );
  }, 300_000);
});
