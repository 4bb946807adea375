// Which of the container's lazy capabilities a function's code can call, read from its bundle:
// the handlers, workers, composition and observability modules esbuild put in it (the only code
// that holds the container; the domain gets its dependencies from the composition) are scanned
// for container getters (`deps.search`, `container.fetcher`, ...), and each getter counts what it
// can load (LAZY_OF_GETTER), except a use of a member listed in MEMBER_CAPABILITIES
// (`deps.extractSteps.prepare`, `deps.agentic.jobs.steps.rank`), which counts that member's list. test/infra/bundles.test.ts checks lambdas/topology/capabilities.ts
// with it; scripts/lazy-capabilities.ts regenerates that table.
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Metafile } from 'esbuild';
import {
  COUNTED_BY_GETTER,
  LAZY_IMPORTS,
  LAZY_OF_GETTER,
  MEMBER_CAPABILITIES,
  PIPELINE_GETTERS_FOR,
  type LazyCapability,
} from '../lambdas/topology/capabilities';
import { bundleFunction } from './bundle';

const SCANNED = /(?:^|[\\/])lambdas[\\/](?:http|workers|composition|observability)[\\/]/;
const CONTAINER = /(?:^|[\\/])lambdas[\\/]composition[\\/]container\.ts$/;
const PIPELINE = /(?:^|[\\/])lambdas[\\/]http[\\/]pipeline\.ts$/;
// `deps.agentic.jobs.steps.rank`: the getter, and the member path read off it when there is one.
const GETTER = new RegExp(
  `\\b(?:deps|container)\\s*\\.\\s*(${Object.keys(LAZY_OF_GETTER).join('|')})\\b((?:\\s*\\??\\.\\s*\\w+)*)`,
  'g',
);

/** The member's own list (MEMBER_CAPABILITIES: the path or its longest listed prefix), or undefined. */
export function memberCapabilities(getter: string, path: string): readonly LazyCapability[] | undefined {
  const members = MEMBER_CAPABILITIES[getter];
  if (!members) return undefined;
  const parts = path.split('.').filter(Boolean);
  for (let n = parts.length; n > 0; n--) {
    const listed = members[parts.slice(0, n).join('.')];
    if (listed) return listed;
  }
  return undefined;
}

/** The getter whose lists count a scanned file's getter uses (COUNTED_BY_GETTER), if any. */
function countedBy(input: string): string | undefined {
  const key = input
    .replace(/\\/g, '/')
    .replace(/^.*?lambdas\//, '')
    .replace(/\.ts$/, '');
  return COUNTED_BY_GETTER[key];
}

// `const { crawl, search: index } = deps` (or `= ctx.deps`, `= container`): the names destructured.
const DESTRUCTURED = /\{([^{}]*)\}\s*=\s*(?:\w+\.)?(?:deps|container)\b/g;
const ORDER = Object.keys(LAZY_IMPORTS) as LazyCapability[];

/** The code without its comments (a getter named in prose is no use of it). */
export function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Source files of the service in the bundle that can hold the container. */
export function scannedInputs(metafile: Metafile): string[] {
  const inputs = new Set<string>();
  for (const output of Object.values(metafile.outputs))
    for (const input of Object.keys(output.inputs))
      if (!input.includes(':') && SCANNED.test(input) && !CONTAINER.test(input) && !input.includes('node_modules'))
        inputs.add(input);
  return [...inputs].sort();
}

/**
 * The getters each scanned file uses, and the lazy capabilities they can load (in LAZY_IMPORTS
 * order). `operations`: the operations a route function serves; the pipeline's use of a getter in
 * PIPELINE_GETTERS_FOR counts only when one of them is its getter's (unknown: it counts).
 */
export function capabilitiesUsed(
  metafile: Metafile,
  operations?: readonly string[],
): {
  capabilities: LazyCapability[];
  getters: Record<string, string[]>;
} {
  const found = new Set<LazyCapability>();
  const getters: Record<string, string[]> = {};
  for (const input of scannedInputs(metafile)) {
    const source = withoutComments(readFileSync(path.resolve(input), 'utf8'));
    const names = new Set<string>();
    const members = new Map<string, readonly LazyCapability[]>();
    for (const match of source.matchAll(GETTER)) {
      const [, getter, chain] = match as unknown as [string, string, string];
      const path = chain.replace(/[\s?]/g, '').replace(/^\./, '');
      const listed = memberCapabilities(getter, path);
      if (listed) members.set(`${getter}.${path}`, listed);
      else names.add(getter);
    }
    for (const match of source.matchAll(DESTRUCTURED))
      for (const part of match[1]!.split(',')) {
        const name = part.split(':')[0]!.trim();
        if (name in LAZY_OF_GETTER) names.add(name);
      }
    const owner = countedBy(input);
    if (owner) {
      // Counted by its getter's lists: each use must load nothing outside them.
      const own = new Set(LAZY_OF_GETTER[owner] ?? []);
      for (const name of [...names, ...members.keys()]) {
        const reached = members.get(name) ?? LAZY_OF_GETTER[name] ?? [];
        const outside = reached.filter((capability) => !own.has(capability));
        if (outside.length > 0)
          throw new Error(`${input} uses ${name}, which loads ${outside.join(', ')}: not in LAZY_OF_GETTER.${owner}`);
      }
      continue;
    }
    if (operations && PIPELINE.test(input))
      for (const [getter, only] of Object.entries(PIPELINE_GETTERS_FOR))
        if (!operations.some((operation) => only.has(operation))) names.delete(getter);
    if (names.size === 0 && members.size === 0) continue;
    getters[input] = [...names, ...members.keys()].sort();
    for (const name of names) for (const capability of LAZY_OF_GETTER[name] ?? []) found.add(capability);
    for (const listed of members.values()) for (const capability of listed) found.add(capability);
  }
  return { capabilities: ORDER.filter((c) => found.has(c)), getters };
}

/**
 * The least list a function needs: bundle with nothing lazy, scan, allow what was found, and again
 * (an allowed capability brings its composition module, which may use more getters), until it
 * holds still (at most one round per capability).
 */
export function deriveCapabilities(entry: string, workDir: string, operations?: readonly string[]): LazyCapability[] {
  let allowed: LazyCapability[] = [];
  for (let round = 0; round <= ORDER.length; round++) {
    const outdir = path.join(workDir, `derive-${round}`);
    const { metafile } = bundleFunction(entry, outdir, { capabilities: allowed });
    rmSync(outdir, { recursive: true, force: true });
    const { capabilities } = capabilitiesUsed(metafile, operations);
    const next = ORDER.filter((c) => allowed.includes(c) || capabilities.includes(c));
    if (next.length === allowed.length) return allowed;
    allowed = next;
  }
  throw new Error(`The capabilities of ${entry} did not settle`);
}
