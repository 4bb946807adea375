// How every Lambda is bundled: esbuild's own options, no plugins. The stack's assets
// (lib/node-function.ts, one entry each), the bundle test and the cold-start bench use this one
// function, so what the tests load is what deploys. An asset is its entry (index.mjs) and the
// chunks it imports (chunks/): what a function reaches only through a dynamic import() (the
// OpenSearch client in snapshot mode, the browser, the tracer, the enrichment's taxonomy, the
// remote renderer's Lambda client, Powertools' idempotency, the SDK's unused credential
// providers) is a chunk of its own, read when first imported, not at every cold start.
import { fileURLToPath } from 'node:url';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';

/** The Lambda runtime the assets are built for (lib/node-function.ts deploys nodejs22.x). */
const BUNDLE_TARGET = 'node22';

// ESM bundles still meet CommonJS dependencies that call require() for Node built-ins.
const REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

// sanitize-html (CommonJS) require()s htmlparser2, which would bring htmlparser2's CommonJS build
// (with its own entities, domhandler, domutils and dom-serializer) beside the ESM build that
// cheerio and the extraction import: both get the ESM one (~160 KB and ~40 ms of init less in
// every function that extracts a page).
const HTMLPARSER2_ESM = fileURLToPath(new URL('../node_modules/htmlparser2/dist/esm/index.js', import.meta.url));

const OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: BUNDLE_TARGET,
  // ESM builds of dependencies first: esbuild can drop their unused exports.
  mainFields: ['module', 'main'],
  alias: { htmlparser2: HTMLPARSER2_ESM },
  banner: { js: REQUIRE_BANNER },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Whitespace and syntax minified, identifiers not: a stack trace in the logs names its functions
  // without esbuild's keepNames, whose __name() call per function and class runs at every cold
  // start (init CPU ~10 % less for the page-reading functions, for ~30 % more bytes).
  minifyWhitespace: true,
  minifySyntax: true,
  treeShaking: true,
  // No source maps in the asset (as large as the code, read at every cold start).
  sourcemap: false,
  legalComments: 'none',
  // Non-ASCII text as UTF-8, not \uXXXX escapes of six bytes each.
  charset: 'utf8',
  outExtension: { '.js': '.mjs' },
  logLevel: 'error',
};

/**
 * The browser (lambdas/adapters/browser imports them at its first launch): Chromium's files are
 * read from the package's own folder, so the packages stay packages, installed beside a function
 * that renders, never inlined into an asset.
 */
export const BROWSER = ['@sparticuz/chromium', 'playwright-core'];

/** An entry's output and every chunk it imports, at once or later (dynamic import()): its asset's code files. */
export function assetOutputs(metafile: Metafile, entryOutput: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !metafile.outputs[file]) return;
    seen.add(file);
    for (const imported of metafile.outputs[file].imports) visit(imported.path);
  };
  visit(entryOutput);
  return [...seen];
}

/** The bytes of an asset's code (assetOutputs). */
export const assetBytes = (metafile: Metafile, entryOutput: string): number =>
  assetOutputs(metafile, entryOutput).reduce((sum, file) => sum + metafile.outputs[file]!.bytes, 0);

/**
 * Bundles each entry into `<outdir>/<name>.mjs` (a name may hold slashes: `vendors/index`). The
 * AWS SDK is bundled unless `external` says otherwise: the pinned versions the tests ran against,
 * and about half the init of loading the runtime's own copy for ~0.5 MB more per asset
 * (`npm run bench -- cold-start` builds both; figures in docs/benchmarks.md).
 */
export function bundleFunctions(
  entries: Record<string, string>,
  outdir: string,
  { external = [] }: { external?: string[] } = {},
): Metafile {
  return buildSync({ ...OPTIONS, entryPoints: entries, outdir, external: [...BROWSER, ...external], metafile: true })
    .metafile!;
}
