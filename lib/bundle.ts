// How every Lambda is bundled (the stack's asset bundling and `npm run bench -- cold-start` use
// this one function): esbuild, ESM for Node.js 22, minified, with code splitting, so each
// `import()` of the composition root (lambdas/composition/lazy.ts) becomes a chunk that the
// function loads only when it calls that capability. One output directory per function:
// index.mjs (the handler), chunks/, and linked source maps.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';

// The build runs in a child process: esbuild plugins need its async API, CDK's local bundling is synchronous.
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bundle-worker.mjs');

// ESM bundles still meet CommonJS dependencies that call require() for Node built-ins.
export const REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

export interface BundleResult {
  metafile: Metafile;
}

export function bundleFunction(
  entry: string,
  outdir: string,
  options: {
    splitting?: boolean;
    sourcemap?: boolean /** false: every zod locale (the bench's baseline) */;
    zodEnglishOnly?: boolean;
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
    outExtension: { '.js': '.mjs' },
    sourcemap: options.sourcemap ?? true,
    sourcesContent: false,
  };
  const metafile = execFileSync(
    process.execPath,
    [WORKER, JSON.stringify(build), options.zodEnglishOnly === false ? 'all-locales' : 'en'],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return { metafile: JSON.parse(metafile) as Metafile };
}

/** Output files (no source maps) a function's entry loads before its handler can run: the entry and its static imports. */
export function loadedAtInit(metafile: Metafile, outdir: string, entryFile = 'index.mjs'): string[] {
  const outputs = metafile.outputs;
  const key = Object.keys(outputs).find((file) => file.endsWith(`/${entryFile}`) || file === entryFile);
  if (!key) throw new Error(`No ${entryFile} among the outputs of ${outdir}`);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? [])
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(key);
  return [...seen];
}
