// What a route loads at cold start, from the real bundles (lib/bundle.ts, as the stack deploys
// them): the vendors handler's entry and static chunks hold no extraction engine, enrichment,
// fetcher, search index or crawler; those sit in chunks loaded on first call, and the extract
// worker's asset still carries the engine for when it is called. Sizes: `npm run bench -- cold-start`.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFunction, loadedAtInit, reachableOutputs } from '../../lib/bundle';
import { projectLayout } from '../../lib/source-layout';

const layout = projectLayout(process.cwd());
const work = mkdtempSync(path.join(tmpdir(), 'pds-bundles-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HEAVY = [
  'lambdas/domain/extraction/engine.ts',
  'lambdas/domain/enrichment/',
  // The got-based fetcher (its address guard, ssrf.ts, is light and shared with webhook delivery).
  'lambdas/adapters/http-fetch/index.ts',
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
  };
}

describe('lean bundles', () => {
  it('the vendors handler loads no engine, enrichment, fetcher, search index or crawler at init, and under 1 MB', () => {
    const { initInputs, allInputs, initBytes } = inputsOf(layout.httpHandler('v2/vendors'), 'v2-vendors');
    for (const heavy of HEAVY) {
      expect(
        initInputs.some((input) => input.includes(heavy)),
        `${heavy} at init`,
      ).toBe(false);
    }
    // The container can still reach them: they are in the asset, as chunks of their own.
    expect(allInputs.some((input) => input.includes('lambdas/domain/extraction/engine.ts'))).toBe(true);
    expect(initInputs.some((input) => input.includes('lambdas/domain/vendors/'))).toBe(true);
    expect(initBytes).toBeLessThan(1024 * 1024);
  }, 120_000);

  it('keeps zod English-only (its locale index holds en alone)', () => {
    const { allInputs } = inputsOf(layout.httpHandler('v2/vendors'), 'v2-vendors-zod');
    expect(allInputs.some((input) => input.includes('zod/v4/locales/en.js'))).toBe(true);
    expect(allInputs.some((input) => input.includes('zod/v4/locales/fr.js'))).toBe(false);
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
    const { metafile, pruned } = bundleFunction(layout.httpHandler('public/health'), outdir);
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
    });
    const pruned = bundleFunction(layout.httpHandler('v2/vendors'), path.join(work, 'vendors-pruned'));
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

  it('bundles cheerio without its URL and buffer loaders (no undici, no iconv-lite code-page tables)', () => {
    const outdir = path.join(work, 'extract-worker');
    const { metafile } = bundleFunction(layout.worker('extract-worker'), outdir);
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((input) => input.includes('node_modules/cheerio/'))).toBe(true);
    expect(inputs.some((input) => input.includes('node_modules/parse5/'))).toBe(true);
    expect(inputs.some((input) => input.includes('node_modules/iconv-lite/'))).toBe(false);
    expect(inputs.some((input) => input.includes('node_modules/undici/'))).toBe(false);
  }, 120_000);

  it('parses with that cheerio as before (parse5: the implied tbody)', async () => {
    const outdir = path.join(work, 'cheerio-entry');
    bundleFunction(path.join(process.cwd(), 'test/infra/fixtures/cheerio-entry.ts'), outdir);
    const { handler } = await import(pathToFileURL(path.join(outdir, 'index.mjs')).href);
    expect(await handler()).toBe('cell');
  }, 120_000);
});
