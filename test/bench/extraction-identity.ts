// Identity check for performance work on extraction: every corpus page read by the engine of
// this tree and by the same tree without the performance change, compared field by field
// (merged product, classification, facts, platform, every reader's candidate, the DOM's price
// candidates). Not a timing: it prints the differences and exits 1 when there is one.
//
// `npm run bench -- extraction-identity [baseline-ref]`
//
// The baseline is this working tree with the performance change taken out, so rule changes made
// by others at the same time are in both sides: the files of the performance change
// (PERF_FILES) come from `baseline-ref` (default HEAD; absent there = absent), and commits after
// it whose subject starts with "perf(extraction)" are reverse-applied to every other file they
// touched (small hot-spot edits in reader files). The copy lives under node_modules/.cache so
// that it resolves the same packages.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpusPages } from '../corpus-pages';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The performance change's own files (repository paths). */
export const PERF_FILES = [
  'lambdas/domain/extraction/analyse.ts',
  'lambdas/domain/extraction/page.ts',
  'lambdas/domain/extraction/engine.ts',
  'lambdas/domain/extraction/platform.ts',
  'lambdas/domain/extraction/tolerant-json.ts',
  'lambdas/domain/extraction/sitemap.ts',
  'lambdas/domain/extraction/product-url.ts',
  'lambdas/domain/extraction/url.ts',
  'lambdas/domain/extraction/document.ts',
  'lambdas/domain/extraction/literals.ts',
];
const PERF_SUBJECT = 'perf(extraction)';

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });

export function buildBaseline(ref: string, name = 'baseline'): string {
  const dir = path.join(repo, 'node_modules', '.cache', 'extraction-identity', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(repo, 'lambdas'), path.join(dir, 'lambdas'), { recursive: true });
  for (const file of PERF_FILES) {
    const target = path.join(dir, file);
    let content: string | null = null;
    try {
      content = git('show', `${ref}:${file}`);
    } catch {
      content = null;
    }
    if (content == null) rmSync(target, { force: true });
    else writeFileSync(target, content);
  }
  // Hot-spot edits of other files made by the performance commits: taken out, newest first.
  const commits = git('log', '--format=%H %s', `${ref}..HEAD`)
    .split('\n')
    .filter((line) => line.slice(41).startsWith(PERF_SUBJECT))
    .map((line) => line.slice(0, 40));
  for (const commit of commits) {
    const files = git('show', '--format=', '--name-only', commit)
      .split('\n')
      .filter((f) => f.startsWith('lambdas/') && !PERF_FILES.includes(f));
    if (!files.length) continue;
    const patch = git('show', '--format=', commit, '--', ...files);
    // Outside any repository for git's purposes: the copy sits inside this one's ignored folders.
    execFileSync('git', ['apply', '-R', '-'], {
      cwd: dir,
      input: patch,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(dir) },
    });
    console.log(`baseline: took ${commit.slice(0, 8)} out of ${files.join(', ')}`);
  }
  return dir;
}

type Reader = typeof import('../../lambdas/domain/extraction/page')['readProductPage'];

/** A reading as plain data: DOM nodes and the parsed document left out, Sets and Maps listed. */
function snapshot(reading: ReturnType<Reader>): Record<string, unknown> {
  const { $: _document, ...analysis } = reading.analysis;
  return JSON.parse(
    JSON.stringify({ ...reading, analysis }, (key, value) => {
      if (key === 'el') return undefined;
      if (value instanceof Set) return [...value];
      if (value instanceof Map) return [...value.entries()];
      return value;
    }),
  );
}

function differences(a: unknown, b: unknown, at: string, out: string[]): void {
  if (out.length > 40) return;
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys)
      differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`, out);
    return;
  }
  out.push(`${at}: ${JSON.stringify(a)?.slice(0, 120)} -> ${JSON.stringify(b)?.slice(0, 120)}`);
}

export default async function main(): Promise<void> {
  const ref = process.argv[3] ?? process.env.EXTRACTION_BASELINE ?? 'HEAD';
  const dir = buildBaseline(ref);
  const before = (await import(pathToFileURL(path.join(dir, 'lambdas/domain/extraction/page.ts')).href)) as {
    readProductPage: Reader;
  };
  const after = (await import('../../lambdas/domain/extraction/page')) as { readProductPage: Reader };
  const { countryOf } = await import('./extraction-accuracy');
  const pages = corpusPages();
  let same = 0;
  const fieldCounts = new Map<string, number>();
  for (const page of pages) {
    const options = { countryCode: countryOf(page.url) };
    const a = snapshot(before.readProductPage(page.html, page.url, options));
    const b = snapshot(after.readProductPage(page.html, page.url, options));
    const diffs: string[] = [];
    differences(a, b, 'reading', diffs);
    if (!diffs.length) {
      same++;
      continue;
    }
    console.log(`DIFF ${page.name} (${page.url})`);
    for (const d of diffs) {
      console.log(`  ${d}`);
      const field = d.split(':')[0].split('.').slice(0, 3).join('.');
      fieldCounts.set(field, (fieldCounts.get(field) ?? 0) + 1);
    }
  }
  console.log(
    `baseline ${ref} (performance change taken out) vs this tree: ${same}/${pages.length} corpus pages identical`,
  );
  for (const [field, n] of fieldCounts) console.log(`  ${field}: ${n} page(s) differ`);
  rmSync(dir, { recursive: true, force: true });
  if (same !== pages.length) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
