// What a rule change does to the benchmark, without opening the held-out half: every benchmark
// page read by the engine of a git ref (default HEAD, i.e. the uncommitted change) and by this
// working tree. Half A (the domains looked at while changing rules) prints each changed field
// with its values and verdicts; half B prints counts only (fixed, broken, changed between two
// wrong values, value added or dropped where the truth has none), so it stays held out.
//
// `npm run bench -- extraction-changes [ref]`   (EXTRACTION_BASELINE=<ref> works too)
//
// The ref's whole `lambdas/` tree is copied under node_modules/.cache (so it resolves the same
// packages): unlike extraction-identity, which takes only a performance change out, this shows
// the sum of every rule change since the ref.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  loadBenchmarkPages,
  predictWithEngine,
  SPLIT_FIELDS,
  verdict,
  type BenchPage,
  type Prediction,
} from './extraction-accuracy';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The ref's `lambdas/` tree, unpacked beside the packages; returns its directory. */
function checkout(ref: string): string {
  const dir = path.join(repo, 'node_modules', '.cache', 'extraction-changes', 'baseline');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', ref, 'lambdas'], {
    cwd: repo,
    maxBuffer: 256 << 20,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

type Verdict = ReturnType<typeof verdict>;

/** How a field's verdict moved between the two engines. */
function movement(before: Verdict, after: Verdict): string {
  if (before === after) return before === 'wrong' ? 'changed' : 'same';
  if (after === 'right') return 'fixed';
  if (before === 'right') return 'broken';
  if (after === 'extra' || (before === 'missing' && after === 'wrong')) return 'added';
  return 'dropped';
}

const MOVES = ['fixed', 'broken', 'changed', 'added', 'dropped'] as const;

export function compare(
  pages: BenchPage[],
  before: Record<string, Prediction>,
  after: Record<string, Prediction>,
  log: (line: string) => void = console.log,
): Record<'A' | 'B', Record<string, Record<string, number>>> {
  const counts = {
    A: Object.fromEntries(SPLIT_FIELDS.map((f) => [f, Object.fromEntries(MOVES.map((m) => [m, 0]))])),
    B: Object.fromEntries(SPLIT_FIELDS.map((f) => [f, Object.fromEntries(MOVES.map((m) => [m, 0]))])),
  } as Record<'A' | 'B', Record<string, Record<string, number>>>;
  for (const page of pages) {
    for (const field of SPLIT_FIELDS) {
      const was = before[page.id]?.[field] ?? null;
      const now = after[page.id]?.[field] ?? null;
      if (String(was) === String(now)) continue;
      const move = movement(verdict(page, field, was), verdict(page, field, now));
      if (move === 'same') continue;
      counts[page.half][field]![move]!++;
      // Only half A's values are printed: half B is the held-out figure.
      if (page.half === 'A')
        log(`  A ${page.id} ${field}: ${JSON.stringify(was)} -> ${JSON.stringify(now)} (${move}) ${page.url}`);
    }
  }
  return counts;
}

export default async function main(): Promise<void> {
  const ref = process.argv[3] ?? process.env.EXTRACTION_BASELINE ?? 'HEAD';
  const dir = checkout(ref);
  try {
    const pages = loadBenchmarkPages();
    const old = (await import(pathToFileURL(path.join(dir, 'lambdas/domain/extraction/page.ts')).href)) as {
      readProductPage: Parameters<typeof predictWithEngine>[1];
    };
    console.log(`benchmark pages read by the engine at ${ref} and by this tree (${pages.length} pages)`);
    const counts = compare(pages, predictWithEngine(pages, old.readProductPage), predictWithEngine(pages));
    for (const half of ['A', 'B'] as const) {
      const label = half === 'A' ? 'half A' : 'half B (counts only)';
      const parts = SPLIT_FIELDS.map((f) => `${f} ${MOVES.map((m) => `${m} ${counts[half][f]![m]}`).join(', ')}`);
      console.log(`${label}:\n  ${parts.join('\n  ')}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
