// `npm start`: runs bin/local.ts from an esbuild bundle cached under node_modules/.cache/pds-local,
// with plain Node, instead of transpiling every TypeScript module through tsx on every start.
// The bundle is rebuilt when the sources change: its directory is named by a hash of every file
// under lambdas/ and bin/ (contents) and of package-lock.json (size and time), so an edit, a new
// worker or an `npm install` gives a new bundle on the next start (~0.3 s), never a stale one.
// Only the service's own code is bundled; packages load from node_modules as they do under tsx.
//
// Worker and route modules are found by file name at run time (lambdas/local/workers.ts,
// http-server.ts); inside a bundle they are chunks instead, so the bundle's entry registers a
// loader for each file of lambdas/workers/ and lambdas/http/ (lambdas/local/modules.ts) before
// importing bin/local.ts. `import.meta.url` keeps meaning the source file's own URL (paths to
// statemachines/, the workers' directory, the console's files resolve as under tsx).
//
// Plain JavaScript on purpose: it runs before any TypeScript loader. PDS_NO_BUNDLE=1 runs
// bin/local.ts through tsx instead (as `npm start` did before).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const began = performance.now();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Also in bin/local.ts. PDS_START_CACHE_DIR: another one (the start-up bench measures a first start
 * with an empty one); it must be inside the project, since the bundle's packages resolve from node_modules.
 */
const CACHE_DIR = process.env.PDS_START_CACHE_DIR
  ? resolve(process.env.PDS_START_CACHE_DIR)
  : join(ROOT, 'node_modules', '.cache', 'pds-local');
/** Changes whenever the build below changes, so bundles of an older launcher are not reused. */
const BUILD_VERSION = '1';
/** Bundles of other source versions kept (another checkout state may still be running one). */
const KEEP_BUNDLES = 4;
const PRUNE_AFTER_MS = 10_000;
const SOURCE_DIRS = ['lambdas', 'bin'];
/** Directories whose files the bundle's entry registers as loadable modules. */
const MODULE_DIRS = ['lambdas/workers', 'lambdas/http'];
/** The generated entry's name in esbuild's messages and metafile. */
const ENTRY_NAME = 'npm-start-entry.mjs';

function filesUnder(dir) {
  const out = [];
  const walk = (current, depth) => {
    if (depth > 12) return;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path, depth + 1);
      else if (entry.isFile()) out.push(path);
    }
  };
  if (existsSync(dir)) walk(dir, 0);
  return out.sort();
}

function fingerprint() {
  const hash = createHash('sha256').update(`${BUILD_VERSION}\0${process.version}\0`);
  for (const dir of SOURCE_DIRS) {
    for (const file of filesUnder(join(ROOT, dir))) {
      hash.update(`${relative(ROOT, file)}\0`);
      hash.update(readFileSync(file));
    }
  }
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(lock)) {
    const stat = statSync(lock);
    hash.update(`lock\0${stat.size}\0${stat.mtimeMs}`);
  }
  return hash.digest('hex').slice(0, 20);
}

const isModuleSource = (file) => /\.(m?ts|m?js)$/.test(file) && !/\.d\.ts$|\.test\.ts$/.test(file);

/** The bundle's entry: one loader per worker and route module, then bin/local.ts. */
function entrySource() {
  const lines = [`import { registerModules } from ${JSON.stringify(join(ROOT, 'lambdas/local/modules.ts'))};`];
  lines.push('registerModules({');
  for (const dir of MODULE_DIRS) {
    for (const file of filesUnder(join(ROOT, dir)).filter(isModuleSource)) {
      const key = file.replace(/\.(m?ts|m?js)$/, '');
      lines.push(`  ${JSON.stringify(key)}: () => import(${JSON.stringify(file)}),`);
    }
  }
  lines.push('});');
  lines.push(`await import(${JSON.stringify(join(ROOT, 'bin/local.ts'))});`);
  return lines.join('\n');
}

/** Every source file's `import.meta.url` stays its own URL (inside a bundle it would be the chunk's). */
const ownMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    const sources = new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\\\/](lambdas|bin)[\\\\/].*\\.m?ts$`);
    build.onLoad({ filter: sources }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: 'ts',
      };
    });
  },
};

async function buildBundle(target) {
  const { build } = await import('esbuild');
  const temporary = `${target}.building-${process.pid}`;
  rmSync(temporary, { recursive: true, force: true });
  try {
    const { metafile } = await build({
      metafile: true,
      stdin: { contents: entrySource(), resolveDir: ROOT, sourcefile: ENTRY_NAME, loader: 'js' },
      outdir: temporary,
      entryNames: 'index',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      packages: 'external',
      chunkNames: 'chunks/[name]-[hash]',
      outExtension: { '.js': '.mjs' },
      sourcemap: 'linked',
      logLevel: 'error',
      plugins: [ownMetaUrl],
    });
    // The fingerprint covers SOURCE_DIRS: a bundled file outside them could go stale unnoticed.
    const outside = Object.keys(metafile.inputs).filter(
      (input) =>
        !input.includes('node_modules/') &&
        input !== ENTRY_NAME &&
        !SOURCE_DIRS.some((dir) => relative(ROOT, resolve(ROOT, input)).startsWith(`${dir}/`)),
    );
    if (outside.length > 0)
      throw new Error(
        `bundled files outside ${SOURCE_DIRS.join(', ')} (add their directory to SOURCE_DIRS): ${outside.join(', ')}`,
      );
    mkdirSync(dirname(target), { recursive: true });
    try {
      renameSync(temporary, target);
    } catch (error) {
      // Another start built the same sources at the same time: use theirs.
      if (!existsSync(join(target, 'index.mjs'))) throw error;
      rmSync(temporary, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
}

function pruneOldBundles(current) {
  let entries;
  try {
    entries = readdirSync(CACHE_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name.startsWith('bundle-') && e.name !== current)
      .map((e) => ({ path: join(CACHE_DIR, e.name), at: statSync(join(CACHE_DIR, e.name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
  } catch {
    return;
  }
  for (const old of entries.slice(KEEP_BUNDLES)) rmSync(old.path, { recursive: true, force: true });
}

async function runThroughTsx() {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(ROOT, 'bin', 'local.ts')).href);
}

async function main() {
  if (process.env.PDS_NO_BUNDLE === '1') return runThroughTsx();
  const hashed = performance.now();
  const name = `bundle-${fingerprint()}`;
  const target = join(CACHE_DIR, name);
  const built = performance.now();
  let buildMs = 0;
  if (!existsSync(join(target, 'index.mjs'))) {
    try {
      await buildBundle(target);
    } catch (error) {
      // A cache directory that cannot be written (read-only checkout): start as before, through tsx.
      if (['EACCES', 'EPERM', 'EROFS'].includes(error.code)) {
        console.error(`npm start: cannot write ${CACHE_DIR} (${error.code}); starting through tsx`);
        return runThroughTsx();
      }
      // esbuild has printed the errors (file, line, column) already.
      console.error(`npm start: could not build the service (${error.message.split('\n')[0]})`);
      process.exitCode = 1;
      return;
    }
    buildMs = performance.now() - built;
    // Deleting old bundles takes a while (many small files): later, not before ready.
    setTimeout(() => pruneOldBundles(name), PRUNE_AFTER_MS).unref();
  } else {
    // Most recently used first when pruning.
    const now = new Date();
    try {
      utimesSync(target, now, now);
    } catch {
      // read-only cache: fine
    }
  }
  globalThis[Symbol.for('pds.launch')] = {
    began,
    fingerprint: built - hashed,
    build: buildMs,
    cacheDir: CACHE_DIR,
    end: performance.now(),
  };
  await import(pathToFileURL(join(target, 'index.mjs')).href);
}

await main();
