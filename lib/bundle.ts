// How every Lambda is bundled (the stack's asset bundling and `npm run bench -- cold-start` use
// this one function): esbuild, ESM for Node.js 22, minified, with code splitting, so each
// `import()` of the composition root (lambdas/composition/lazy.ts) becomes a chunk that the
// function loads only when it calls that capability. One output directory per function:
// index.mjs (the handler) and chunks/, holding only the chunks its entry can reach (static and
// dynamic imports, from esbuild's metafile); no source maps in the asset (they were as large as
// the code; see SOURCE_MAPS below). The container's lazy capabilities a function never calls are
// stubbed out of its asset (lambdas/topology/capabilities.ts).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';
import { FUNCTION_CAPABILITIES, LAZY_IMPORTS, type LazyCapability } from '../lambdas/topology/capabilities';
import { ROUTES } from '../lambdas/topology/routes';

// The build runs in a child process: esbuild plugins need its async API, CDK's local bundling is synchronous.
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bundle-worker.mjs');
const LAMBDAS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lambdas');
const CONTAINER = path.join(LAMBDAS, 'composition', 'container.ts');

/** A function's key in lambdas/topology/capabilities.ts: its entry under lambdas/, without extension. */
export function functionKey(entry: string): string {
  return path.relative(LAMBDAS, path.resolve(entry)).replace(/\.ts$/, '').split(path.sep).join('/');
}

/** The lazy capabilities an entry's asset holds: its list, or every one when it has none. */
export function capabilitiesOf(entry: string): readonly LazyCapability[] | 'all' {
  return FUNCTION_CAPABILITIES[functionKey(entry)] ?? 'all';
}

/**
 * Lazy capabilities imported statically by the functions that hold them (lib/bundle-worker.mjs:
 * capability-stubs): the Step Functions client is lazy only so that functions that never move an
 * execution leave it out; as a chunk of its own it would make the others' assets larger (~1 KB
 * of import and export lists between it and the SDK chunks), so where held it loads with the
 * entry, as it did before it was lazy.
 */
const STATIC_WHEN_HELD: readonly LazyCapability[] = ['stepFunctions'];

function stubOptions(capabilities: readonly LazyCapability[] | 'all') {
  if (capabilities === 'all') return undefined;
  const specifiers: Record<string, string> = {};
  for (const [capability, imports] of Object.entries(LAZY_IMPORTS))
    for (const specifier of imports) specifiers[specifier] = capability;
  const inline = STATIC_WHEN_HELD.filter((capability) => capabilities.includes(capability)).flatMap(
    (capability) => LAZY_IMPORTS[capability],
  );
  return { containerFile: CONTAINER, specifiers, allowed: [...capabilities], inline };
}

/**
 * Functions that render JSON Schema at run time (zod's toJSONSchema): the OpenAPI document's
 * route. Every other asset holds a throwing twin of zod's JSON Schema code (lib/bundle-worker.mjs);
 * test/infra/bundles.test.ts checks that no other function's bundle holds lambdas/contracts/openapi.ts.
 */
export const JSON_SCHEMA_FUNCTIONS: readonly string[] = ['http/public/openapi'];

/**
 * The operations whose contracts an entry's asset holds (lib/bundle-worker.mjs: operation-contracts):
 * a route handler's own operations; 'all' for JSON_SCHEMA_FUNCTIONS (the OpenAPI document renders
 * every one) and for any entry that serves no route (it reads no contract).
 */
export function operationsOf(entry: string): readonly string[] | 'all' {
  const key = functionKey(entry);
  if (JSON_SCHEMA_FUNCTIONS.includes(key)) return 'all';
  const own = ROUTES.filter((route) => `http/${route.handler}` === key).map((route) => route.operationId);
  return own.length > 0 ? own : 'all';
}

// ESM bundles still meet CommonJS dependencies that call require() for Node built-ins.
export const REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

export interface BundleResult {
  /** esbuild's metafile, its outputs narrowed to the files kept (those the entry can reach). */
  metafile: Metafile;
  /** Output files removed because the entry cannot reach them. */
  pruned: string[];
}

/**
 * Source maps are off for the deployed asset: with them every asset was twice its code (maps of
 * split chunks are as large as the chunks), and a Lambda reads the whole asset from its package
 * at cold start. Function names are kept instead (keepNames), so a stack trace in the logs still
 * names its functions.
 */
const SOURCE_MAPS = false;

export function bundleFunction(
  entry: string,
  outdir: string,
  options: {
    splitting?: boolean;
    sourcemap?: boolean /** false: every zod locale (the bench's baseline) */;
    zodEnglishOnly?: boolean;
    /** Keep every output, reachable or not (default false: the asset holds what the entry can load). */
    keepUnreachable?: boolean;
    /** false: cheerio with its loaders and their encodings tables, as before (the bench's "before"). */
    cheerioLoadOnly?: boolean;
    /** false: minified names, as before (the bench's "before"). */
    keepNames?: boolean;
    /**
     * The container's lazy capabilities the asset holds (the others' `import()` become a stub
     * that throws); default: the entry's list in lambdas/topology/capabilities.ts, or 'all'.
     */
    capabilities?: readonly LazyCapability[] | 'all';
    /** false: the SDK's whole default credential chain, as before (default: the environment's, what a Lambda has). */
    lambdaCredentials?: boolean;
    /**
     * false: as before issue 12's trimming (default true: enrichment data brotli-compressed, the
     * extraction engine's cheerio without parse5, one copy of entities, dependencies only called
     * under options the service never sets stubbed; lib/bundle-worker.mjs).
     */
    trimmed?: boolean;
    /** Keep zod's JSON Schema rendering (default: only for JSON_SCHEMA_FUNCTIONS). */
    jsonSchema?: boolean;
    /** The operations whose contracts the asset holds (default: operationsOf(entry); 'all': every one, as before). */
    operations?: readonly string[] | 'all';
  } = {},
): BundleResult {
  const build: BuildOptions = {
    entryPoints: { index: entry },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // Bundle the SDK too: the pinned 3.x in package-lock is what the tests ran against.
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_BANNER },
    minify: true,
    splitting: options.splitting ?? true,
    chunkNames: 'chunks/[name]-[hash]',
    // Packed data files (lib/bundle-worker.mjs) sit beside the chunks.
    assetNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    sourcemap: options.sourcemap ?? SOURCE_MAPS,
    sourcesContent: false,
    keepNames: options.keepNames ?? true,
    // Non-ASCII text as UTF-8 (Node reads modules as UTF-8), not \uXXXX escapes of six bytes each.
    charset: 'utf8',
  };
  const metafile = execFileSync(
    process.execPath,
    [
      WORKER,
      JSON.stringify(build),
      JSON.stringify({
        zodEnglishOnly: options.zodEnglishOnly ?? true,
        cheerioLoadOnly: options.cheerioLoadOnly ?? true,
        stub: stubOptions(options.capabilities ?? capabilitiesOf(entry)),
        lambdaCredentials: options.lambdaCredentials ?? true,
        trimmed: options.trimmed ?? true,
        jsonSchema: options.jsonSchema ?? JSON_SCHEMA_FUNCTIONS.includes(functionKey(entry)),
        operations: contractOperations(options.operations ?? operationsOf(entry), options.trimmed ?? true),
      }),
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const full = JSON.parse(metafile) as Metafile;
  if (options.keepUnreachable) return { metafile: full, pruned: [] };
  return pruneUnreachable(full);
}

/** What the worker's operation-contracts plugin gets: the list, or nothing (every contract, untouched). */
function contractOperations(operations: readonly string[] | 'all', trimmed: boolean): readonly string[] | undefined {
  return operations === 'all' || !trimmed ? undefined : operations;
}

/**
 * Output files (no source maps) the entry can load: static imports and `import()`, transitively,
 * and the data files those chunks read (esbuild's file loader: the packed data of
 * lib/bundle-worker.mjs).
 */
export function reachableOutputs(metafile: Metafile, entryFile = 'index.mjs'): string[] {
  const outputs = metafile.outputs;
  const key = Object.keys(outputs).find((file) => file.endsWith(`/${entryFile}`) || file === entryFile);
  if (!key) throw new Error(`No ${entryFile} among the outputs`);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? [])
      if (
        !imported.external &&
        (imported.kind === 'import-statement' || imported.kind === 'dynamic-import' || imported.kind === 'file-loader')
      )
        visit(imported.path);
  };
  visit(key);
  return [...seen];
}

/** Deletes the outputs (and their maps) the entry cannot reach; returns the metafile of what is left. */
function pruneUnreachable(metafile: Metafile): BundleResult {
  const keep = new Set(reachableOutputs(metafile));
  const outputs: Metafile['outputs'] = {};
  const pruned: string[] = [];
  for (const [file, output] of Object.entries(metafile.outputs)) {
    const code = file.endsWith('.map') ? file.slice(0, -'.map'.length) : file;
    if (keep.has(code)) outputs[file] = output;
    else {
      rmSync(file, { force: true });
      pruned.push(file);
    }
  }
  return { metafile: { ...metafile, outputs }, pruned };
}

/**
 * Output files (no source maps) a function's entry loads before its handler can run: the entry,
 * its static imports and the data files they read when evaluated.
 */
export function loadedAtInit(metafile: Metafile, outdir: string, entryFile = 'index.mjs'): string[] {
  const outputs = metafile.outputs;
  const key = Object.keys(outputs).find((file) => file.endsWith(`/${entryFile}`) || file === entryFile);
  if (!key) throw new Error(`No ${entryFile} among the outputs of ${outdir}`);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? [])
      if ((imported.kind === 'import-statement' || imported.kind === 'file-loader') && !imported.external)
        visit(imported.path);
  };
  visit(key);
  return [...seen];
}
