// Bounded concurrency for extraction: a fixed number of lanes over a list (one batch's URLs, the
// synchronous path), and a limiter whose slots several batches of one process share.

/** Runs `work` over items with at most `limit` at once; after a failure no new item starts. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (!failed && next < items.length) {
      try {
        await work(items[next++]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  });
  await Promise.all(lanes);
}

/** At most `size` tasks run at once; waiting tasks start in arrival order. */
export interface Limiter {
  readonly size: number;
  /** Most tasks that ever ran at once (benchmarks print it to show the bound held). */
  readonly peak: number;
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createLimiter(size: number): Limiter {
  const limit = Math.max(1, Math.floor(size));
  let running = 0;
  let peak = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return {
    size: limit,
    get peak() {
      return peak;
    },
    async run(task) {
      // A released slot passes straight to the next waiter, so `running` never overshoots.
      if (running < limit) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      peak = Math.max(peak, running);
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
