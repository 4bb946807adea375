// The render worker's function: the one Lambda that ships a browser (docs/rendering.md). Its
// asset is the worker's bundle (lib/bundle.ts, the browser packages external as everywhere) with
// @sparticuz/chromium and playwright-core beside it as packages in node_modules/: Chromium is
// read from the package's own bin/ folder, so it cannot be inlined, and a layer would not do
// (/opt/nodejs is on NODE_PATH, which an ES module's import() does not read). x86_64 because the
// npm package carries x64 binaries only; memory from the measured RSS of Chromium and Node; its
// concurrency capped (reserved, and the same maximum on its event source: topology/queues.ts).
// The same asset holds a second entry, render-direct: a function of its own that the synchronous
// functions (which ship no browser) invoke for one page, with its own reserved instances so that
// they never take the queue's (a throttled queue invocation would count as a receive).
import { cpSync, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, Size, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Code, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { ENV } from '../lambdas/topology/env';
import { BROWSER, bundleFunctions } from './bundle';
import { type NodeFunctionProps, sharedLogGroup } from './node-function';
import { MEMORY } from './sizing';

/** The worker that renders (topology/queues.ts render-work). */
export const RENDER_WORKER = 'render-worker';

/** The direct entry's module beside the worker's (lambdas/workers/render-direct.ts), and its file in the asset. */
export const RENDER_DIRECT = 'render-direct';
const DIRECT_FILE = 'direct';

/**
 * Who renders through the direct entry: the synchronous operations' functions (routes by
 * operation id, workers by name). Each gets lambda:InvokeFunction on it and its name.
 */
export const RENDERS_DIRECTLY = {
  routes: ['legacyProduct', 'legacyProducts', 'v1AgenticSearch'],
  workers: ['agentic-verify'],
} as const;

/** The direct entry's instances at once: enough for a synchronous request's 8 URLs at a time. */
export const RENDER_DIRECT_CONCURRENCY = 10;

/** The direct entry's timeout: a page's budget (20 s by default) after a cold start's unpack and launch. */
const RENDER_DIRECT_TIMEOUT_SECONDS = 40;

/** Its memory (lib/sizing.ts, from the measured RSS of Chromium and Node). */
export const RENDER_MEMORY_MB = MEMORY.render;

/** /tmp holds Chromium unpacked at its first launch (about 200 MB) and each browser's profile and 32 MB disk cache. */
const EPHEMERAL_MB = 1024;

/** Where a package is installed for `from` (a package folder): its own node_modules, then each parent's. */
function installedDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The browser packages and every package they need at run time (dependencies, and optional ones
 * that are installed), by name: where each is installed under `root`. A package nested in
 * another's node_modules travels inside that package's folder.
 */
export function browserPackages(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (name: string, from: string, required: boolean) => {
    const dir = installedDir(name, from);
    if (!dir) {
      if (required) throw new Error(`${name} is not installed (npm install): the render worker ships it`);
      return;
    }
    if (seen.has(dir)) return;
    seen.add(dir);
    if (dir === path.join(root, 'node_modules', name)) found.set(name, dir);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency, dir, true);
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) visit(dependency, dir, false);
  };
  for (const name of BROWSER) visit(name, root, true);
  return found;
}

/** Writes the render worker's asset into `outDir`: index.mjs, direct.mjs and node_modules/ with the browser packages. */
export function stageRenderWorker(entry: string, outDir: string, root = process.cwd()): void {
  bundleFunctions({ index: entry, [DIRECT_FILE]: path.join(path.dirname(entry), `${RENDER_DIRECT}.ts`) }, outDir);
  for (const [name, dir] of browserPackages(root))
    cpSync(dir, path.join(outDir, 'node_modules', name), { recursive: true, dereference: true });
}

export interface RenderWorkerProps extends NodeFunctionProps {
  /** Instances at once (reserved concurrency). */
  maxConcurrency: number;
}

/** One asset per stack for both entries (built once, uploaded once). */
const assets = new WeakMap<Stack, Code>();

function renderCode(scope: Construct, entry: string): Code {
  const stack = Stack.of(scope);
  const known = assets.get(stack);
  if (known) return known;
  const code = Code.fromAsset(path.dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      command: ['esbuild', path.basename(entry), '--with-browser'],
      local: {
        tryBundle(outputDir: string): boolean {
          stageRenderWorker(entry, outputDir);
          return true;
        },
      },
    },
  });
  assets.set(stack, code);
  return code;
}

/** The render worker's function, otherwise like every other (lib/node-function.ts): Node.js 22, JSON logs, X-Ray. */
export function renderWorkerFunction(
  scope: Construct,
  id: string,
  props: RenderWorkerProps & { handler?: string },
): NodejsFunction {
  return new NodejsFunction(scope, id, {
    code: renderCode(scope, props.entry),
    handler: props.handler ?? 'index.handler',
    description: props.description,
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.X86_64,
    memorySize: props.memorySize,
    ephemeralStorageSize: Size.mebibytes(EPHEMERAL_MB),
    timeout: Duration.seconds(props.timeoutSeconds),
    reservedConcurrentExecutions: props.maxConcurrency,
    loggingFormat: LoggingFormat.JSON,
    logGroup: sharedLogGroup(scope, props.logs ?? 'workers'),
    tracing: Tracing.ACTIVE,
    environment: props.environment,
  });
}

/**
 * The direct entry's function (the render worker's asset, handler direct.handler; the table for
 * the fetcher's host gate), and its callers (RENDERS_DIRECTLY, those the stack has):
 * lambda:InvokeFunction on it alone, its name in PDS_RENDER_FUNCTION.
 */
export function renderDirectFunction(
  scope: Construct,
  id: string,
  props: {
    entry: string;
    environment: Record<string, string>;
    table: ITable;
    routes: ReadonlyMap<string, NodejsFunction>;
    workers: ReadonlyMap<string, NodejsFunction>;
  },
): NodejsFunction {
  const fn = renderWorkerFunction(scope, id, {
    entry: props.entry,
    handler: `${DIRECT_FILE}.handler`,
    description: 'Renders one page for a synchronous operation (the render worker asset, direct entry)',
    memorySize: RENDER_MEMORY_MB,
    timeoutSeconds: RENDER_DIRECT_TIMEOUT_SECONDS,
    maxConcurrency: RENDER_DIRECT_CONCURRENCY,
    environment: props.environment,
  });
  props.table.grantReadWriteData(fn);
  const callers = [
    ...RENDERS_DIRECTLY.routes.map((name) => props.routes.get(name)),
    ...RENDERS_DIRECTLY.workers.map((name) => props.workers.get(name)),
  ].filter((caller) => caller !== undefined);
  for (const caller of callers) {
    fn.grantInvoke(caller);
    caller.addEnvironment(ENV.renderFunction, fn.functionName);
  }
  return fn;
}
