// Where the stack finds the code and definitions named by the topology tables. The real layout
// is the repository; tests point the same stack at fixtures.
import { existsSync } from 'node:fs';
import * as path from 'node:path';

export interface SourceLayout {
  /** Absolute path of the module for a route handler name (`v1/crawl-start`). */
  httpHandler(handler: string): string;
  /** Absolute path of a worker module (`extract-worker`). */
  worker(name: string): string;
  /** Absolute path of an ASL file (`crawl.asl.json`). */
  stateMachine(aslFile: string): string;
  /** Handler of the API's `$default` route (unknown paths and methods). */
  fallbackHandler: string;
  /** Root used to print paths in error messages. */
  rootDir: string;
}

export function projectLayout(rootDir: string): SourceLayout {
  const http = path.join(rootDir, 'lambdas', 'http');
  const workers = path.join(rootDir, 'lambdas', 'workers');
  return {
    rootDir,
    httpHandler: (handler) => path.join(http, `${handler}.ts`),
    worker: (name) => path.join(workers, `${name}.ts`),
    stateMachine: (aslFile) => path.join(rootDir, 'statemachines', aslFile),
    fallbackHandler: path.join(http, 'public', 'fallback.ts'),
  };
}

/** Throws one error naming every file the topology refers to that is not on disk. */
export function assertSourcesExist(
  layout: SourceLayout,
  needed: ReadonlyArray<{ file: string; usedBy: string }>,
): void {
  const missing = needed.filter(({ file }) => !existsSync(file));
  if (missing.length === 0) return;
  const lines = missing.map(({ file, usedBy }) => `  - ${path.relative(layout.rootDir, file)} (${usedBy})`);
  throw new Error(
    `ProductDataStack: ${missing.length} file(s) named by the topology tables do not exist:\n${lines.join('\n')}`,
  );
}
