// How every Lambda is bundled: esbuild's own options, no plugins. The stack's assets
// (lib/node-function.ts, one entry each), the bundle test and the cold-start bench (every function
// in one build) use this one function, so what the tests load is what deploys.
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
  minify: true,
  treeShaking: true,
  // No source maps in the asset (as large as the code, read at every cold start); function names
  // are kept instead, so a stack trace in the logs still names its functions.
  sourcemap: false,
  keepNames: true,
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

/**
 * Bundles each entry into `<outdir>/<name>.mjs` (a name may hold slashes: `vendors/index`). The
 * AWS SDK is bundled unless `external` says otherwise: the pinned versions the tests ran against,
 * and about half the init of loading the runtime's own copy (`npm run bench -- cold-start` builds
 * both: median init CPU 224 vs 419 ms for routes, 156 vs 371 ms for workers, for ~0.4 MB more per
 * asset). One build for many entries parses each shared module once.
 */
export function bundleFunctions(
  entries: Record<string, string>,
  outdir: string,
  { external = [] }: { external?: string[] } = {},
): Metafile {
  return buildSync({ ...OPTIONS, entryPoints: entries, outdir, external: [...BROWSER, ...external], metafile: true })
    .metafile!;
}
