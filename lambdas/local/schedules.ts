// The local stand-in for EventBridge schedule rules: calls a worker's handler at start (work
// left behind by a stopped runtime is picked up at once) and then at a fixed rate. Runs never
// overlap; a failed run is logged and the next one comes at the usual time.
import { createLambdaContext, loadWorkerHandler } from './workers';

export interface ScheduleOptions {
  /** Worker module under lambdas/workers/ (or an absolute path). */
  worker: string;
  everyMs: number;
  workersDir?: string;
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface RunningSchedule {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function startSchedule(options: ScheduleOptions): RunningSchedule {
  const log = options.log ?? (() => undefined);
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    running = (async () => {
      try {
        const handler = await loadWorkerHandler(options.worker, options.workersDir);
        const event = {
          source: 'aws.events',
          'detail-type': 'Scheduled Event',
          time: new Date().toISOString(),
          detail: {},
        };
        await handler(
          event,
          createLambdaContext({ functionName: options.worker, timeoutMs: options.timeoutMs ?? 60_000 }),
        );
      } catch (error) {
        log(`schedule ${options.worker}: ${(error as Error).message}`);
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(run, options.everyMs);
  timer.unref();
  setImmediate(run);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
