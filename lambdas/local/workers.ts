// Loads worker modules the way Lambda does (the module's exported `handler`) and builds the
// Lambda context they receive, so the embedded runtime calls exactly the code AWS runs.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { registeredModule } from './modules';

export type LambdaHandler = (event: unknown, context: Context) => unknown;

/** lambdas/workers/ of this checkout. */
export const WORKERS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../workers');

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '/index.ts', '/index.js'];
const loaded = new Map<string, Promise<LambdaHandler>>();

/** `module` is a name under `workersDir` (as in the topology tables) or an absolute path. */
export function loadWorkerHandler(module: string, workersDir: string = WORKERS_DIR): Promise<LambdaHandler> {
  const base = module.startsWith('/') ? module : join(workersDir, module);
  let pending = loaded.get(base);
  if (!pending) {
    pending = importHandler(base);
    loaded.set(base, pending);
    // A failed import (file not written yet) must not stick: the next call tries again.
    pending.catch(() => loaded.delete(base));
  }
  return pending;
}

async function importHandler(base: string): Promise<LambdaHandler> {
  const bundled = registeredModule(base);
  if (bundled) return handlerOf(await bundled(), base);
  const file = [base, ...EXTENSIONS.map((ext) => base + ext)].find((f) => existsSync(f) && !f.endsWith('/'));
  if (!file || !/\.(m?[jt]s)$/.test(file)) throw new Error(`Worker module not found: ${base}(.ts|.js)`);
  return handlerOf(await import(pathToFileURL(file).href), file);
}

function handlerOf(mod: { handler?: unknown }, file: string): LambdaHandler {
  if (typeof mod.handler !== 'function') throw new Error(`Worker module ${file} does not export a handler function`);
  return mod.handler as LambdaHandler;
}

export interface LambdaContextOptions {
  functionName: string;
  /** Milliseconds the invocation may run (the function's timeout). */
  timeoutMs: number;
  region?: string;
}

export function createLambdaContext(options: LambdaContextOptions): Context {
  const deadline = Date.now() + options.timeoutMs;
  const region = options.region ?? 'us-east-1';
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: localLambdaArn(options.functionName, region),
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export const LOCAL_ACCOUNT = '000000000000';

export function localLambdaArn(functionName: string, region = 'us-east-1'): string {
  return `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:${functionName}`;
}

/** Lambda passes events and results as JSON: the handler never shares objects with the caller. */
export function jsonRoundTrip<T>(value: T): T {
  return value === undefined ? (null as T) : JSON.parse(JSON.stringify(value));
}
