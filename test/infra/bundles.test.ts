// What a route loads at cold start, from the real bundles (lib/bundle.ts, as the stack deploys
// them): the vendors handler's entry and static chunks hold no extraction engine, enrichment,
// fetcher, search index or crawler; those sit in chunks loaded on first call, and the extract
// worker's asset still carries the engine for when it is called. Sizes: `npm run bench -- cold-start`.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bundleFunction,
  capabilitiesOf,
  functionKey,
  JSON_SCHEMA_FUNCTIONS,
  loadedAtInit,
  operationsOf,
  reachableOutputs,
  REQUIRE_BANNER,
} from '../../lib/bundle';
import { capabilitiesUsed, withoutComments } from '../../lib/capability-scan';
import { lambdaEntries } from '../../lib/lambda-entries';
import { projectLayout } from '../../lib/source-layout';
import { FUNCTION_CAPABILITIES } from '../../lambdas/topology/capabilities';
import { CORPORA } from '../corpora';

const layout = projectLayout(process.cwd());
const work = mkdtempSync(path.join(tmpdir(), 'pds-bundles-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HEAVY = [
  'lambdas/domain/extraction/engine.ts',
  'lambdas/domain/enrichment/',
  // The fetcher (its address guard, ssrf.ts, is light and shared with webhook delivery).
  'lambdas/adapters/http-fetch/index.ts',
  'lambdas/adapters/http-fetch/request.ts',
  'lambdas/composition/search.ts',
  'lambdas/domain/crawl/discovery.ts',
  'node_modules/cheerio/',
  'node_modules/got/',
];

function inputsOf(entry: string, name: string) {
  const outdir = path.join(work, name);
  const { metafile } = bundleFunction(entry, outdir, { sourcemap: false });
  const atInit = new Set(loadedAtInit(metafile, outdir));
  const inputs = (files: (file: string) => boolean) =>
    Object.entries(metafile.outputs)
      .filter(([file]) => files(file))
      .flatMap(([, output]) => Object.keys(output.inputs));
  return {
    initInputs: inputs((file) => atInit.has(file)),
    allInputs: inputs(() => true),
    initBytes: [...atInit].reduce((sum, file) => sum + metafile.outputs[file].bytes, 0),
    assetBytes: Object.keys(metafile.outputs).reduce((sum, file) => sum + statSync(path.resolve(file)).size, 0),
  };
}

describe('lean bundles', () => {
  it('the vendors handler loads no engine, enrichment, fetcher, search index or crawler at init, and under 1 MB', () => {
    const { initInputs, allInputs, initBytes, assetBytes } = inputsOf(layout.httpHandler('v2/vendors'), 'v2-vendors');
    for (const heavy of HEAVY) {
      expect(
        initInputs.some((input) => input.includes(heavy)),
        `${heavy} at init`,
      ).toBe(false);
    }
    // Nor are they in its asset: the vendors route calls none of them (lambdas/topology/capabilities.ts).
    for (const heavy of HEAVY)
      expect(
        allInputs.some((input) => input.includes(heavy)),
        `${heavy} in the asset`,
      ).toBe(false);
    expect(initInputs.some((input) => input.includes('lambdas/domain/vendors/'))).toBe(true);
    expect(initBytes).toBeLessThan(1024 * 1024);
    // The whole asset too (issue 12's goal), with only its listed capabilities and the environment's credentials.
    expect(assetBytes).toBeLessThan(1024 * 1024);
  }, 120_000);

  it("the extraction workflow's planning workers (prepare, lost batch, finalize, fail, DLQ, reaper) hold no engine, enrichment or fetcher, and are under 1 MB", () => {
    for (const worker of ['extract-prepare', 'extract-finalize', 'extract-dlq', 'execution-reaper']) {
      const { allInputs, assetBytes } = inputsOf(layout.worker(worker), `planning-${worker}`);
      for (const heavy of HEAVY)
        expect(
          allInputs.some((input) => input.includes(heavy)),
          `${heavy} in ${worker}`,
        ).toBe(false);
      expect(assetBytes, worker).toBeLessThan(1024 * 1024);
    }
    // The batch worker still carries the engine: it is the one that extracts.
    const { allInputs } = inputsOf(layout.worker('extract-worker'), 'batch-extract-worker');
    expect(allInputs.some((input) => input.includes('lambdas/domain/extraction/engine.ts'))).toBe(true);
  }, 240_000);

  it("agentic search's v2 start and status routes and its Rank, failure and dead-letter workers hold no engine, enrichment, fetcher or search index, and are under 1 MB", () => {
    const functions = [
      ['v2 start', layout.httpHandler('v2/agentic-search-start')],
      ['v2 status', layout.httpHandler('v2/agentic-search-status')],
      ['rank', layout.worker('agentic-rank')],
      ['fail', layout.worker('agentic-fail')],
      ['verify dlq', layout.worker('agentic-verify-dlq')],
    ] as const;
    for (const [name, entry] of functions) {
      const { allInputs, assetBytes } = inputsOf(entry, `agentic-light-${name.replace(/ /g, '-')}`);
      for (const heavy of HEAVY)
        expect(
          allInputs.some((input) => input.includes(heavy)),
          `${heavy} in ${name}`,
        ).toBe(false);
      expect(allInputs.some((input) => input.includes('lambdas/domain/agentic/jobs.ts'))).toBe(true);
      expect(assetBytes, name).toBeLessThan(1024 * 1024);
    }
    // Understand reads the index, not pages; verify extracts pages, without the index.
    const understand = inputsOf(layout.worker('agentic-understand'), 'agentic-understand').allInputs;
    expect(understand.some((input) => input.includes('lambdas/composition/search.ts'))).toBe(true);
    expect(understand.some((input) => input.includes('lambdas/domain/extraction/engine.ts'))).toBe(false);
    const verify = inputsOf(layout.worker('agentic-verify'), 'agentic-verify').allInputs;
    expect(verify.some((input) => input.includes('lambdas/domain/extraction/engine.ts'))).toBe(true);
    expect(verify.some((input) => input.includes('lambdas/composition/search.ts'))).toBe(false);
  }, 300_000);

  it("the crawl's planning workers (analyze, plan, lost batch, finalize, fail, DLQ) hold no fetcher, cheerio or parse5, and are under 1 MB", () => {
    const pageReading = [...HEAVY, 'node_modules/parse5/', 'lambdas/domain/crawl/parse.ts'];
    for (const worker of [
      'crawl-analyze',
      'crawl-plan',
      'crawl-lost-batch',
      'crawl-finalize',
      'crawl-fail',
      'crawl-dlq',
    ]) {
      const { allInputs, assetBytes } = inputsOf(layout.worker(worker), `crawl-planning-${worker}`);
      for (const heavy of pageReading)
        expect(
          allInputs.some((input) => input.includes(heavy)),
          `${heavy} in ${worker}`,
        ).toBe(false);
      expect(allInputs.some((input) => input.includes('lambdas/domain/crawl/planning.ts'))).toBe(true);
      expect(assetBytes, worker).toBeLessThan(1024 * 1024);
    }
    // The page worker still reads pages.
    const { allInputs } = inputsOf(layout.worker('crawl-worker'), 'crawl-page-worker');
    expect(allInputs.some((input) => input.includes('lambdas/adapters/http-fetch/request.ts'))).toBe(true);
    expect(allInputs.some((input) => input.includes('node_modules/cheerio/'))).toBe(true);
  }, 300_000);

  it('keeps zod English-only (its locale index holds en alone)', () => {
    const { allInputs } = inputsOf(layout.httpHandler('v2/vendors'), 'v2-vendors-zod');
    expect(allInputs.some((input) => input.includes('zod/v4/locales/en.js'))).toBe(true);
    expect(allInputs.some((input) => input.includes('zod/v4/locales/fr.js'))).toBe(false);
  }, 120_000);

  it('writes the createRequire banner in the entry and the chunks that name require, not in the others, and the asset loads', async () => {
    const outdir = path.join(work, 'banner');
    const { metafile } = bundleFunction(layout.httpHandler('public/health'), outdir);
    const files = Object.keys(metafile.outputs).filter((file) => file.endsWith('.mjs'));
    const withBanner = files.filter((file) => readFileSync(path.resolve(file), 'utf8').startsWith(REQUIRE_BANNER));
    expect(withBanner.some((file) => file.endsWith('/index.mjs'))).toBe(true);
    for (const file of files) {
      const code = readFileSync(path.resolve(file), 'utf8');
      expect(statSync(path.resolve(file)).size, file).toBe(metafile.outputs[file]!.bytes);
      if (!code.startsWith(REQUIRE_BANNER)) expect(code, file).not.toMatch(/\brequire\b/);
    }
    expect(withBanner.length).toBeLessThan(files.length);
    const { handler } = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    expect(typeof handler).toBe('function');
  }, 120_000);

  it("holds one copy of Powertools' commons (the logger's, metrics' and tracer's identical copies are one)", () => {
    const { allInputs } = inputsOf(layout.httpHandler('public/health'), 'health-commons');
    const copies = new Set(
      allInputs
        .map((input) => /^(.*node_modules\/@aws-lambda-powertools\/commons)\//.exec(input)?.[1])
        .filter((dir) => dir !== undefined),
    );
    expect([...copies]).toHaveLength(1);
    for (const user of ['logger', 'metrics', 'tracer'])
      expect(allInputs.some((input) => input.includes(`@aws-lambda-powertools/${user}/lib/`))).toBe(true);
  }, 120_000);

  it('holds only the zod schema kinds the contracts build: zod is imported as a module namespace (import * as z), whose unused members esbuild leaves out (the `z` export is an object it keeps whole: ~46 KB more per asset)', () => {
    const outdir = path.join(work, 'zod-shaken');
    const { metafile } = bundleFunction(layout.httpHandler('public/health'), outdir);
    const code = Object.keys(metafile.outputs)
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => readFileSync(path.resolve(file), 'utf8'))
      .join('\n');
    // zod names each schema class with a string ($constructor("ZodObject", ...)).
    expect(code.includes('"ZodObject"')).toBe(true);
    for (const unused of ['ZodTemplateLiteral', 'ZodFile', 'ZodPromise'])
      expect(code.includes(`"${unused}"`), unused).toBe(false);
    for (const file of readdirSync(path.join(process.cwd(), 'lambdas/contracts')))
      expect(readFileSync(path.join(process.cwd(), 'lambdas/contracts', file), 'utf8'), file).not.toMatch(
        /import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*'zod'/,
      );
  }, 120_000);
});

/** Every file under dir, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe('assets hold what their entry can load', () => {
  it('keeps exactly the reachable outputs (static and dynamic imports), no source maps, and removes the rest', () => {
    const outdir = path.join(work, 'health-pruned');
    const { metafile, pruned } = bundleFunction(layout.httpHandler('public/health'), outdir, { capabilities: 'all' });
    const kept = Object.keys(metafile.outputs).map((file) => path.relative(outdir, path.resolve(file)));
    expect(filesUnder(outdir)).toEqual([...kept].sort());
    expect(kept.some((file) => file.endsWith('.map'))).toBe(false);
    expect(reachableOutputs(metafile).length).toBe(kept.length);
    // Lazily loaded chunks stay (the container reaches the engine through import()).
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((input) => input.includes('lambdas/domain/extraction/engine.ts'))).toBe(true);
    expect(pruned.every((file) => !kept.includes(path.relative(outdir, path.resolve(file))))).toBe(true);
  }, 120_000);

  it('prunes what esbuild emits but no import reaches (a chunk whose import() was tree-shaken away)', () => {
    const full = bundleFunction(layout.httpHandler('v2/vendors'), path.join(work, 'vendors-full'), {
      keepUnreachable: true,
      capabilities: 'all',
    });
    const pruned = bundleFunction(layout.httpHandler('v2/vendors'), path.join(work, 'vendors-pruned'), {
      capabilities: 'all',
    });
    const names = (files: string[]) => files.map((file) => path.basename(file)).sort();
    const reachable = reachableOutputs(full.metafile);
    const unreachable = Object.keys(full.metafile.outputs).filter((file) => !reachable.includes(file));
    expect(names(filesUnder(path.join(work, 'vendors-pruned')))).toEqual(names(reachable));
    expect(names(pruned.pruned)).toEqual(names(unreachable));
    // An output with no import edge to it is never kept.
    const orphan = 'chunks/orphan.mjs';
    const withOrphan = {
      ...full.metafile,
      outputs: { ...full.metafile.outputs, [orphan]: { bytes: 1, inputs: {}, imports: [], exports: [] } },
    } as typeof full.metafile;
    expect(reachableOutputs(withOrphan)).not.toContain(orphan);
  }, 120_000);

  it('bundles cheerio without its URL and buffer loaders (no undici, no iconv-lite code-page tables), and the engine without parse5', () => {
    const outdir = path.join(work, 'extract-worker');
    const { metafile } = bundleFunction(layout.worker('extract-worker'), outdir);
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((input) => input.includes('node_modules/cheerio/'))).toBe(true);
    // The engine parses with htmlparser2 (document.ts's xml options): its cheerio has no parse5.
    expect(inputs.some((input) => input.includes('node_modules/parse5/'))).toBe(false);
    expect(inputs.some((input) => input.includes('node_modules/htmlparser2/'))).toBe(true);
    expect(inputs.some((input) => input.includes('node_modules/iconv-lite/'))).toBe(false);
    expect(inputs.some((input) => input.includes('node_modules/undici/'))).toBe(false);
    // One build of htmlparser2 and its DOM packages: sanitize-html's require gets the ESM build the
    // engine imports, not the CommonJS copies beside it (~55 KB twice).
    for (const pkg of ['htmlparser2', 'domhandler', 'domutils'])
      expect(
        inputs.filter((input) => new RegExp(`node_modules/${pkg}/.*commonjs`).test(input)),
        pkg,
      ).toEqual([]);
  }, 120_000);

  it('parses with that cheerio as before (parse5: the implied tbody)', async () => {
    const outdir = path.join(work, 'cheerio-entry');
    bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/cheerio-entry.ts'), outdir);
    const { handler } = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    expect(await handler()).toBe('cell');
  }, 120_000);
});

describe('each asset holds the lazy capabilities its code can call (lambdas/topology/capabilities.ts)', () => {
  const entries = lambdaEntries(layout);

  it('lists every Lambda of the topology, and nothing else', () => {
    expect(Object.keys(FUNCTION_CAPABILITIES).sort()).toEqual(entries.map((e) => functionKey(e.entry)).sort());
  });

  // Each function bundled with its list: the handlers, workers, composition and observability
  // modules in its bundle (everything that holds the container) use exactly the getters whose
  // capabilities are listed. A getter used but not listed would call a stub on AWS.
  it.each(entries.map((e) => [functionKey(e.entry), e.entry, e.operations] as const))(
    '%s uses exactly its listed capabilities and its asset is under 1 MB',
    (key, entry, operations) => {
      const listed = capabilitiesOf(entry);
      expect(listed).not.toBe('all');
      const { metafile } = bundleFunction(entry, path.join(work, `caps-${key.replace(/\//g, '-')}`));
      const { capabilities, getters } = capabilitiesUsed(metafile, operations);
      // Only JSON_SCHEMA_FUNCTIONS keep zod's JSON Schema rendering: no other can render the OpenAPI document.
      if (!JSON_SCHEMA_FUNCTIONS.includes(key))
        expect(
          Object.values(metafile.outputs).some((output) =>
            Object.keys(output.inputs).some((input) => input.endsWith('lambdas/contracts/openapi.ts')),
          ),
        ).toBe(false);
      expect(capabilities, JSON.stringify(getters)).toEqual(listed);
      // Issue 12's goal: every asset under 1 MB (npm run bench -- cold-start prints the sizes).
      const assetBytes = Object.keys(metafile.outputs).reduce(
        (sum, file) => sum + statSync(path.resolve(file)).size,
        0,
      );
      expect(assetBytes, `${key}'s asset`).toBeLessThan(1024 * 1024);
    },
    120_000,
  );

  it('a stubbed capability fails on call with an error naming it and the table, and is not in the asset', async () => {
    const outdir = path.join(work, 'stubbed');
    const { metafile } = bundleFunction(
      path.join(process.cwd(), 'test/infra/fixtures/stubbed-capability-entry.ts'),
      outdir,
      {
        capabilities: [],
      },
    );
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((input) => input.includes('lambdas/composition/crawl.ts'))).toBe(false);
    expect(inputs.some((input) => input.includes('lambdas/adapters/http-fetch/request.ts'))).toBe(false);
    const { handler } = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    const messages = (await handler()) as string[];
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(
      /lazy capability "crawl" is not in this function's bundle.*lambdas\/topology\/capabilities\.ts/,
    );
    expect(messages[1]).toMatch(/lazy capability "fetcher" is not in this function's bundle/);
  }, 120_000);

  it("light members run in a light function's asset: they load their capability and reach the table, a heavy member meets the stub", async () => {
    const run = async (name: string, capabilities: ReturnType<typeof capabilitiesOf>) => {
      const outdir = path.join(work, `light-members-${name}`);
      bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/light-members-entry.ts'), outdir, { capabilities });
      const { handler } = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
      return (await handler(name)) as Record<string, string>;
    };
    // As the v2 start/status routes and the rank, fail and verify-dlq workers: 'agentic' alone.
    const agentic = await run('agentic', capabilitiesOf(layout.worker('agentic-rank')));
    for (const member of ['start', 'status', 'rank', 'fail', 'abandon'])
      expect(agentic[member], member).toBe('table reached');
    // The mini search needs the search index: not in that asset.
    expect(agentic.mini).toMatch(/lazy capability "search" is not in this function's bundle/);
    // As the crawl's planning workers.
    const crawl = await run('crawl', capabilitiesOf(layout.worker('crawl-finalize')));
    for (const member of ['analyze', 'plan', 'abandonBatch', 'finalize', 'fail'])
      expect(crawl[member], member).toBe('table reached');
    expect(crawl.processBatch).toMatch(/lazy capability "crawlSteps" is not in this function's bundle/);
  }, 240_000);

  it('the scan finds destructured getters', () => {
    // A scanned module is one under lambdas/{http,workers,composition,observability}/, wherever that is.
    const dir = path.join(work, 'scan', 'lambdas', 'workers');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'destructured.ts');
    writeFileSync(
      file,
      'export const f = (deps) => { const { crawl, search: index } = deps; return [crawl, index]; };',
    );
    const metafile = {
      inputs: {},
      outputs: { 'index.mjs': { bytes: 1, imports: [], exports: [], inputs: { [file]: { bytesInOutput: 1 } } } },
    };
    const { capabilities } = capabilitiesUsed(metafile as never);
    expect(capabilities).toEqual(['search', 'crawl', 'stepFunctions']);
  });

  it("the scan counts a listed member path's own capabilities (its longest listed prefix), and the whole getter otherwise", () => {
    const dir = path.join(work, 'scan-members', 'lambdas', 'workers');
    mkdirSync(dir, { recursive: true });
    const scan = (name: string, code: string) => {
      const file = path.join(dir, `${name}.ts`);
      writeFileSync(file, code);
      const metafile = {
        inputs: {},
        outputs: { 'index.mjs': { bytes: 1, imports: [], exports: [], inputs: { [file]: { bytesInOutput: 1 } } } },
      };
      return capabilitiesUsed(metafile as never).capabilities;
    };
    expect(scan('rank', 'export const f = (deps) => deps.agentic.jobs.steps.rank({ executionId: "a" });')).toEqual([
      'agentic',
      'stepFunctions',
    ]);
    expect(scan('understand', 'export const f = (deps) => deps.agentic ?. jobs.steps.understand(e);')).toEqual([
      'search',
      'agentic',
      'stepFunctions',
    ]);
    expect(scan('finalize', 'export const f = (deps) => deps.crawlSteps.finalize(e);')).toEqual([
      'crawl',
      'crawlPlanning',
      'stepFunctions',
    ]);
    expect(scan('worker', 'export const f = (deps) => deps.crawlSteps.processBatch(m);')).toEqual([
      'fetcher',
      'crawl',
      'crawlSteps',
      'stepFunctions',
    ]);
    // v1's run and the mini searches start no execution: no Step Functions client.
    expect(scan('run', 'export const f = (deps) => deps.agentic.run(r);')).toEqual([
      'fetcher',
      'engine',
      'extractNow',
      'search',
      'agentic',
    ]);
    expect(scan('mini', 'export const f = (deps) => deps.agentic.mini(r);')).toEqual(['search', 'agentic', 'enricher']);
    expect(scan('workflows', 'export const f = (deps) => deps.workflows.start(w, id, {});')).toEqual(['stepFunctions']);
    expect(scan('callbacks', 'export const f = (deps) => deps.taskCallbacks.succeed(t, {});')).toEqual([
      'stepFunctions',
    ]);
    expect(scan('reaper', 'export const f = (deps) => deps.executions.reapOverdue(n);')).toEqual(['stepFunctions']);
    expect(scan('giveUp', 'export const f = (deps) => deps.webhooks.giveUp(m);')).toEqual(['stepFunctions']);
    // The value passed on, or a member not listed: everything the getter reaches.
    expect(scan('jobs', 'export const f = (deps) => use(deps.agentic.jobs);')).toEqual([
      'fetcher',
      'engine',
      'extractNow',
      'search',
      'agentic',
      'enricher',
      'stepFunctions',
    ]);
    expect(scan('prepare', 'export const f = (deps) => deps.extractSteps.prepare(e);')).toEqual(['stepFunctions']);
  });

  it("the agentic composition module's getter uses count through the agentic getter's lists, and one outside them fails the scan (COUNTED_BY_GETTER)", () => {
    const dir = path.join(work, 'scan-counted', 'lambdas', 'composition');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'agentic.ts');
    const metafile = {
      inputs: {},
      outputs: { 'index.mjs': { bytes: 1, imports: [], exports: [], inputs: { [file]: { bytesInOutput: 1 } } } },
    };
    // As the real module: the executions and the workflow engine, handed to v2's jobs.
    writeFileSync(file, 'export const f = (container) => jobs({ e: container.executions, w: container.workflows });');
    expect(capabilitiesUsed(metafile as never).capabilities).toEqual([]);
    // The crawl is not among what the agentic getter can load: the scan refuses.
    writeFileSync(file, 'export const f = (container) => container.crawl.jobs.start(r);');
    expect(() => capabilitiesUsed(metafile as never)).toThrow(
      /uses crawl, which loads crawl: not in LAZY_OF_GETTER\.agentic/,
    );
    // The same use in another composition module counts as usual.
    const other = path.join(dir, 'other.ts');
    writeFileSync(other, 'export const f = (container) => container.workflows.start(w, id, {});');
    const otherMeta = {
      inputs: {},
      outputs: { 'index.mjs': { bytes: 1, imports: [], exports: [], inputs: { [other]: { bytesInOutput: 1 } } } },
    };
    expect(capabilitiesUsed(otherMeta as never).capabilities).toEqual(['stepFunctions']);
  });

  it("the scan counts the pipeline's idempotency only for a route serving an Idempotency-Key operation", () => {
    const dir = path.join(work, 'scan-pipeline', 'lambdas', 'http');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'pipeline.ts');
    writeFileSync(file, 'export const run = (deps, key) => (key ? deps.idempotency.run(key) : deps.search.find());');
    const metafile = {
      inputs: {},
      outputs: { 'index.mjs': { bytes: 1, imports: [], exports: [], inputs: { [file]: { bytesInOutput: 1 } } } },
    };
    expect(capabilitiesUsed(metafile as never, ['v2Vendors']).capabilities).toEqual(['search']);
    expect(capabilitiesUsed(metafile as never, ['v2Vendors', 'v2CrawlStart']).capabilities).toEqual([
      'search',
      'idempotency',
    ]);
    // Operations unknown: it counts.
    expect(capabilitiesUsed(metafile as never).capabilities).toEqual(['search', 'idempotency']);
    // Elsewhere than the pipeline, a use always counts.
    const other = path.join(dir, 'other.ts');
    writeFileSync(other, 'export const run = (deps, key) => deps.idempotency.run(key);');
    const otherMetafile = {
      inputs: {},
      outputs: { 'index.mjs': { bytes: 1, imports: [], exports: [], inputs: { [other]: { bytesInOutput: 1 } } } },
    };
    expect(capabilitiesUsed(otherMetafile as never, ['v2Vendors']).capabilities).toEqual(['idempotency']);
  });

  it("the pipeline's one use of deps.idempotency is behind an Idempotency-Key, which only IDEMPOTENT_OPERATIONS read (PIPELINE_GETTERS_FOR's premise)", () => {
    const source = withoutComments(readFileSync(path.join(process.cwd(), 'lambdas/http/pipeline.ts'), 'utf8'));
    expect(source.match(/\bdeps\s*\.\s*idempotency\b/g)).toHaveLength(1);
    expect(source).toMatch(
      /if \(state\.idempotencyKey !== undefined[^)]*\) \{[\s\S]{0,200}?await deps\.idempotency\.run\(/,
    );
    expect(source.match(/state\.idempotencyKey = /g)).toHaveLength(1);
    expect(source).toMatch(
      /if \(IDEMPOTENT_OPERATIONS\.has\(state\.route\.operationId\)\) \{[\s\S]{0,400}state\.idempotencyKey = key;/,
    );
  });

  it('the scan ignores getters named in comments and finds them in code', () => {
    const code = withoutComments(
      "// deps.crawl here\n/* container.search */ const a = 'http://x'; deps.agentic.run();",
    );
    expect(code).not.toMatch(/deps\.crawl|container\.search/);
    expect(code).toMatch(/deps\.agentic/);
    expect(code).toMatch(/'http:\/\/x'/);
  });
});

describe('the Step Functions client only in assets that start, stop or answer executions', () => {
  const sfnIn = (entry: string, name: string) => {
    const { allInputs, assetBytes } = inputsOf(entry, name);
    return { sfn: allInputs.some((input) => input.includes('node_modules/@aws-sdk/client-sfn/')), assetBytes };
  };

  it('the synchronous extraction routes (legacy /api/product, /api/products, v1 agentic search) hold no @aws-sdk/client-sfn, with headroom under 1 MiB', () => {
    for (const [entry, name] of [
      [layout.httpHandler('legacy/product'), 'sfn-legacy-product'],
      [layout.httpHandler('legacy/products'), 'sfn-legacy-products'],
      [layout.httpHandler('v1/agentic-search'), 'sfn-v1-agentic'],
    ] as const) {
      expect(capabilitiesOf(entry), name).not.toContain('stepFunctions');
      const { sfn, assetBytes } = sfnIn(entry, name);
      expect(sfn, name).toBe(false);
      expect(assetBytes, name).toBeLessThan(1024 * 1024 - 20 * 1024);
    }
  }, 240_000);

  it('a route that starts executions and a task-token worker hold it, loaded with the entry (STATIC_WHEN_HELD: no chunk of its own)', () => {
    for (const [entry, name] of [
      [layout.httpHandler('v2/extract-start'), 'sfn-v2-extract-start'],
      [layout.worker('extract-worker'), 'sfn-extract-worker'],
    ] as const) {
      expect(capabilitiesOf(entry), name).toContain('stepFunctions');
      const { initInputs, allInputs } = inputsOf(entry, name);
      const sfn = (input: string) => input.includes('node_modules/@aws-sdk/client-sfn/');
      expect(allInputs.some(sfn), name).toBe(true);
      expect(initInputs.some(sfn), name).toBe(true);
      expect(
        initInputs.some((input) => input.endsWith('lambdas/composition/step-functions.ts')),
        name,
      ).toBe(true);
    }
  }, 240_000);
});

describe('packed tables and unreached dependency code (lib/bundle-worker.mjs)', () => {
  it('decodes and encodes entities as unbundled, from packed data files (one file for identical tables)', async () => {
    const entry = path.join(process.cwd(), 'test/infra/fixtures/packed-tables-entry.ts');
    const outdir = path.join(work, 'packed-tables');
    const { metafile } = bundleFunction(entry, outdir);
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((input) => /generated[\\/]decode-data-html\.js$/.test(input))).toBe(true);
    // entities 4.5's and 6's decoding tries are the same numbers: 4.5, 6 and 7's tries and 4.5's encoding map are three files.
    const packed = Object.keys(metafile.outputs).filter((file) => file.endsWith('.br'));
    expect(packed).toHaveLength(3);
    const bundled = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    const plain = await import('./fixtures/packed-tables-entry');
    const expected = await plain.handler();
    expect(expected.encodedHtml).toContain('&NotNestedGreaterGreater;');
    expect(expected.parse5Text).toContain('Café & crème ∉');
    expect(await bundled.handler()).toEqual(expected);
  }, 120_000);

  it("reads pages and sitemaps in a crawl asset as unbundled: cheerio over parse5 alone, is-unsafe's markup contexts only", async () => {
    const worker = bundleFunction(layout.worker('crawl-worker'), path.join(work, 'crawl-worker-parse'));
    const workerInputs = Object.values(worker.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(workerInputs.some((input) => input.includes('node_modules/parse5/'))).toBe(true);
    // No htmlparser2 parser (a few of its tokenizer's constants remain, imported by dom-serializer).
    expect(workerInputs.some((input) => input.includes('node_modules/htmlparser2/dist/esm/Parser.js'))).toBe(false);
    expect(workerInputs.some((input) => input.includes('is-unsafe/src/contexts/html.js'))).toBe(true);
    expect(workerInputs.some((input) => input.includes('is-unsafe/src/contexts/sql.js'))).toBe(false);
    const outdir = path.join(work, 'crawl-parse');
    bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/crawl-parse-entry.ts'), outdir);
    const pagesDir = path.join(CORPORA, 'product-extraction-benchmark', 'html');
    const pages = readdirSync(pagesDir)
      .filter((name) => name.endsWith('.html.gz'))
      .sort()
      .slice(0, 30)
      .map((name) => ({
        html: gunzipSync(readFileSync(path.join(pagesDir, name))).toString('utf8'),
        url: `https://shop.example/p/${name}`,
      }));
    const sitemapsDir = path.join(CORPORA, 'sitemaps', 'xml');
    const sitemaps = readdirSync(sitemapsDir)
      .sort()
      .map((name) => readFileSync(path.join(sitemapsDir, name), 'utf8'));
    const input = { pages, sitemaps };
    const plain = await import('./fixtures/crawl-parse-entry');
    const expected = await plain.handler(input);
    // is-unsafe ran: the safe entity expanded, the script and javascript: ones blocked.
    expect(expected.entities).toEqual({ '?xml': '', r: { a: 'plain simple', b: '&bad;', c: '&js;' } });
    expect(expected.pages.filter((page) => page.categories.length > 0).length).toBeGreaterThan(0);
    const bundled = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    expect(await bundled.handler(input)).toEqual(expected);
  }, 240_000);

  it("keeps the SDK clients' versions in their user agent, from package.json reduced to name and version", async () => {
    const outdir = path.join(work, 'user-agent');
    const { metafile } = bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/user-agent-entry.ts'), outdir);
    const packageJsons = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs).filter(([input]) => input.endsWith('/package.json')),
    );
    expect(packageJsons.length).toBeGreaterThan(0);
    for (const [input, { bytesInOutput }] of packageJsons) expect(bytesInOutput, input).toBeLessThan(200);
    const bundled = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    // As bundled from the whole package.json (the ESM builds read it; the CommonJS ones inline a version of their own).
    const untrimmed = path.join(work, 'user-agent-untrimmed');
    bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/user-agent-entry.ts'), untrimmed, { trimmed: false });
    const expected = await (await import(pathToFileURL(path.join(untrimmed, 'index.mjs')).href)).handler();
    expect(expected).toEqual([
      expect.stringMatching(/^api\/DynamoDB#3\.\d+\.\d+$/),
      expect.stringMatching(/^api\/SQS#3\.\d+\.\d+$/),
      expect.stringMatching(/^api\/SFN#3\.\d+\.\d+$/),
    ]);
    expect(await bundled.handler()).toEqual(expected);
  }, 120_000);

  it("reads the X-Ray SDK's packed list of recorded AWS call parameters as unbundled", async () => {
    const outdir = path.join(work, 'packed-json');
    const { metafile } = bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/packed-json-entry.ts'), outdir);
    expect(Object.keys(metafile.outputs).filter((file) => file.endsWith('.br'))).toHaveLength(1);
    const bundled = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    const plain = await import('./fixtures/packed-json-entry');
    const expected = await plain.handler();
    expect(expected.getItem).toMatchObject({ request_parameters: expect.arrayContaining(['TableName']) });
    expect(await bundled.handler()).toEqual(expected);
  }, 120_000);

  it("routes hold no zod compiler, no JSON Schema rendering but the OpenAPI route's, and no event-stream codec", async () => {
    const has = (name: string, part: string) => {
      const { metafile } = bundleFunction(layout.httpHandler(name), path.join(work, `zod-${name.replace(/\//g, '-')}`));
      return Object.values(metafile.outputs).some((output) =>
        // The real module (a throwing twin is an input of a plugin's namespace: `zod-unreached:/...`).
        Object.entries(output.inputs).some(
          ([input, { bytesInOutput }]) => !/^[\w-]+:/.test(input) && input.endsWith(part) && bytesInOutput > 0,
        ),
      );
    };
    expect(has('v2/vendors', 'zod/v4/core/compile.js')).toBe(false);
    expect(has('v2/vendors', 'zod/v4/core/json-schema-processors.js')).toBe(false);
    expect(has('v2/vendors', 'event-streams/EventStreamSerde.js')).toBe(false);
    expect(has('public/openapi', 'zod/v4/core/json-schema-processors.js')).toBe(true);
    // The OpenAPI route renders the same document bundled.
    const outdir = path.join(work, 'openapi-route');
    bundleFunction(layout.httpHandler('public/openapi'), outdir);
    const { openApiDocument } = await import('../../lambdas/contracts/openapi');
    const { handler } = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    const response = await handler(
      { rawPath: '/openapi.json', requestContext: { http: { method: 'GET', path: '/openapi.json' } }, headers: {} },
      { awsRequestId: 'r-1', getRemainingTimeInMillis: () => 10_000 },
    );
    expect(JSON.parse(response.body)).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  }, 600_000);
});

describe("a route's contracts (lib/bundle-worker.mjs: operation-contracts)", () => {
  const SAMPLES: unknown[] = [
    undefined,
    null,
    7,
    'text',
    [],
    {},
    { url: 'https://shop.example/p/1', enable_enrichment: 'yes' },
    { url: 'ftp://shop.example/p/1' },
    { url: 'https://shop.example/p/1', country_code: 'zz', force_extraction: true },
    { urls: [] },
    { urls: ['https://shop.example/p/1', 'not a url'], webhook: { url: 'http://127.0.0.1/hook' } },
    { query: '', filters: { min_price: 5, max_price: 1 } },
    { query: 'red shoes', page: '2', limit: 500, filters: { brand: ['a'], attributes: { color: 3 } } },
    { execution_id: '' },
    { status: 'running', page: '0', page_size: '1000' },
  ];
  const OPERATIONS = ['legacyProduct', 'legacySearch', 'v2ExtractStart', 'v2ExtractStatus'];

  it("hold the route's own operations alone, which validate every request as the unbundled contracts do", async () => {
    const outdir = path.join(work, 'contracts-probe');
    const entry = path.join(process.cwd(), 'test/infra/fixtures/contracts-probe.ts');
    const { metafile } = bundleFunction(entry, outdir, { operations: OPERATIONS });
    const bundled = (await import(pathToFileURL(path.join(outdir, 'index.mjs')).href)).handler(SAMPLES);
    const unbundled = (await import('./fixtures/contracts-probe')).handler(SAMPLES);
    expect(bundled.operations).toEqual(OPERATIONS);
    const own = Object.fromEntries(
      Object.entries(unbundled.results).filter(([key]) => OPERATIONS.includes(key.split(' ')[0]!)),
    );
    expect(Object.keys(own).length).toBeGreaterThan(OPERATIONS.length);
    expect(bundled.results).toEqual(own);
    // Another operation's schemas are not in the asset: the crawl start body's message is one of them.
    const code = Object.keys(metafile.outputs)
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => readFileSync(path.resolve(file), 'utf8'))
      .join('\n');
    expect(code).not.toContain('domain is required (a hostname or any URL of the store)');
    expect(code).toContain('request body must be a JSON object');
  }, 120_000);

  it('every route names operations the contracts have (the build fails on an unknown one)', () => {
    expect(() =>
      bundleFunction(
        path.join(process.cwd(), 'test/infra/fixtures/contracts-probe.ts'),
        path.join(work, 'contracts-unknown'),
        { operations: ['noSuchOperation'] },
      ),
    ).toThrow();
    for (const entry of lambdaEntries(layout)) {
      const operations = operationsOf(entry.entry);
      if (
        entry.kind === 'worker' ||
        entry.operations!.length === 0 ||
        JSON_SCHEMA_FUNCTIONS.includes(functionKey(entry.entry))
      )
        expect(operations, entry.name).toBe('all');
      else expect([...operations].sort(), entry.name).toEqual([...entry.operations!].sort());
    }
  });
});

describe('credentials in a Lambda bundle', () => {
  it("are the environment's, without the SDK's other providers and their STS/SSO clients", async () => {
    const outdir = path.join(work, 'credentials');
    const entry = path.join(process.cwd(), 'test/infra/fixtures/credentials-entry.ts');
    const { metafile } = bundleFunction(entry, outdir);
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((input) => input.includes('node_modules/@aws-sdk/credential-provider-env/'))).toBe(true);
    for (const gone of [
      'credential-provider-ini',
      'credential-provider-sso',
      'nested-clients',
      'credential-provider-node/',
    ])
      expect(
        inputs.some((input) => input.includes(gone)),
        gone,
      ).toBe(false);
    const saved = { ...process.env };
    process.env.AWS_ACCESS_KEY_ID = 'AKIDBUNDLETEST';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
    process.env.AWS_SESSION_TOKEN = 'token-1';
    delete process.env.AWS_PROFILE;
    try {
      const { handler } = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
      expect(await handler()).toEqual({ accessKeyId: 'AKIDBUNDLETEST', sessionToken: 'token-1' });
    } finally {
      process.env = saved;
    }
    // The full chain is still there when asked for (the bench's "before").
    const full = bundleFunction(entry, path.join(work, 'credentials-full'), { lambdaCredentials: false });
    const fullInputs = Object.values(full.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(fullInputs.some((input) => input.includes('credential-provider-node/'))).toBe(true);
  }, 120_000);
});
