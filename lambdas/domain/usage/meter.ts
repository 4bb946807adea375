// Usage metering with group commit: calls recorded while a write is in flight are summed per
// (org, route template, hour) and written together as one ADD of their count when it returns.
// Each caller's promise settles when the write carrying its call is done, so a handler that
// awaits it before answering (a Lambda may freeze right after) still never loses a count. One
// call at a time (a Lambda) writes exactly as before: one ADD of 1 per call.
import { hourBucket } from './periods';

/** Adds `calls` to the counter of (org, route template, hour bucket). */
export type AddCalls = (org: string, path: string, hourBucket: string, calls: number) => Promise<void>;

export interface UsageMeter {
  /** Counts one call; settles once it is stored (rejects when that write failed). */
  record(org: string, routeTemplate: string, at: Date): Promise<void>;
}

/** Distinct counters per write round; beyond that, the rest wait for the next round. */
const MAX_COUNTERS_PER_ROUND = 500;

interface Round {
  counters: Map<string, { org: string; path: string; bucket: string; calls: number }>;
  done: { promise: Promise<void>; resolve(): void; reject(reason: unknown): void };
}

export function createUsageMeter(add: AddCalls): UsageMeter {
  const waiting: Round[] = [];
  let writing = false;

  const newRound = (): Round => {
    let resolve!: () => void;
    let reject!: (reason: unknown) => void;
    const promise = new Promise<void>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    const done = { promise, resolve, reject };
    promise.catch(() => undefined); // callers handle it; an unobserved round is not an error
    return { counters: new Map(), done };
  };

  const writeRounds = async () => {
    writing = true;
    // Bounded: each pass writes one round; new rounds only appear while callers record.
    while (waiting.length) {
      const round = waiting.shift()!;
      const writes = [...round.counters.values()].map((c) => add(c.org, c.path, c.bucket, c.calls));
      const results = await Promise.allSettled(writes);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) round.done.reject(failed.reason);
      else round.done.resolve();
    }
    writing = false;
  };

  return {
    record(org, routeTemplate, at) {
      const bucket = hourBucket(at);
      const id = `${org}\n${routeTemplate}\n${bucket}`;
      let round = waiting.at(-1);
      if (!round || (round.counters.size >= MAX_COUNTERS_PER_ROUND && !round.counters.has(id))) {
        round = newRound();
        waiting.push(round);
      }
      const counter = round.counters.get(id);
      if (counter) counter.calls++;
      else round.counters.set(id, { org, path: routeTemplate, bucket, calls: 1 });
      // Started after the current tick, so calls recorded in the same tick share the round.
      if (!writing) {
        writing = true;
        queueMicrotask(() => void writeRounds());
      }
      return round.done.promise;
    },
  };
}
