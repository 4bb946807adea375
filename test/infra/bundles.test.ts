// What a route loads at cold start, from the real bundles (lib/bundle.ts, as the stack deploys
// them): the vendors handler's entry and static chunks hold no extraction engine, enrichment,
// fetcher, search index or crawler; those sit in chunks loaded on first call, and the extract
// worker's asset still carries the engine for when it is called. Sizes: `npm run bench -- cold-start`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFunction, loadedAtInit } from '../../lib/bundle';
import { projectLayout } from '../../lib/source-layout';

const layout = projectLayout(process.cwd());
const work = mkdtempSync(path.join(tmpdir(), 'pds-bundles-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HEAVY = [
  'lambdas/domain/extraction/engine.ts',
  'lambdas/domain/enrichment/',
  'lambdas/adapters/http-fetch/',
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
