// The supervision both embedded engines' worker threads share (dynalite-thread.ts,
// sqs-thread.ts): wait for the thread's `listening` message (or its error or early exit), report
// a later crash as loudly as an in-process one would have been, and stop it gracefully: `stop`
// is posted, and the thread is terminated on its `stopped` reply, its exit, or the timeout. Also
// what both share at start: the worker's execArgv and its kernel thread id.
import type { Worker } from 'node:worker_threads';

export interface ThreadMessage {
  type: string;
  message?: string;
  [field: string]: unknown;
}

/**
 * The kernel thread ids of the engine threads started in this process (Linux), by engine: a bench
 * reads each one's CPU from /proc/self/task/<tid>/stat.
 */
export const engineThreadIds = new Map<string, number>();

/**
 * The worker's execArgv: none of the parent's (not its --import tsx: the thread runs plain JS and
 * starts faster without it), except CPU profiling: a parent run with --cpu-prof profiles its engine
 * threads too, into the same directory.
 */
export function engineThreadExecArgv(argv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  // `--cpu-prof-dir <dir>` keeps its value (the argument after it): a Worker refuses the flag alone.
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--cpu-prof' || arg.startsWith('--cpu-prof-dir=')) kept.push(arg);
    else if (arg === '--cpu-prof-dir' && i + 1 < argv.length) kept.push(arg, argv[++i]);
  }
  return kept;
}

export interface SupervisedThread<T> {
  /** What the thread's `listening` message said, as `started` read it. */
  started: T;
  stop(): Promise<void>;
}

export async function superviseEngineThread<T>(
  worker: Worker,
  name: string,
  stopTimeoutMs: number,
  started: (listening: ThreadMessage) => T,
): Promise<SupervisedThread<T>> {
  let stopping = false;
  // Listeners removed by reference afterwards: Worker keeps internal ones of its own.
  let onMessage!: (message: ThreadMessage) => void;
  let onError!: (error: Error) => void;
  let onExit!: (code: number) => void;
  const value = await new Promise<T>((resolve, reject) => {
    onMessage = (message) => {
      if (message.type === 'listening') {
        // Each thread reports its kernel id (Linux; null elsewhere) for per-thread CPU figures.
        if (typeof message.tid === 'number') engineThreadIds.set(name, message.tid);
        resolve(started(message));
      } else if (message.type === 'error') reject(new Error(`${name}: ${message.message}`));
    };
    onError = reject;
    onExit = (code) => reject(new Error(`${name} thread exited with ${code} before listening`));
    worker.on('message', onMessage).once('error', onError).once('exit', onExit);
  })
    .catch(async (error) => {
      await worker.terminate();
      throw error;
    })
    .finally(() => worker.off('message', onMessage).off('error', onError).off('exit', onExit));
  // In process, an engine crash used to take the whole service down; say so just as loudly.
  worker.on('error', (error) =>
    process.stderr.write(
      `${JSON.stringify({ level: 'error', message: `${name} thread failed`, error: error.message })}\n`,
    ),
  );
  worker.on('exit', (code) => {
    if (!stopping)
      process.stderr.write(`${JSON.stringify({ level: 'error', message: `${name} thread exited with ${code}` })}\n`);
  });
  return {
    started: value,
    async stop() {
      if (stopping) return;
      stopping = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, stopTimeoutMs);
        worker.on('message', (message: ThreadMessage) => {
          if (message.type !== 'stopped') return;
          clearTimeout(timer);
          resolve();
        });
        worker.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage('stop');
      });
      await worker.terminate();
    },
  };
}
