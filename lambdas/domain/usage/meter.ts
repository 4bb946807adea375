// Usage metering with group commit: calls recorded while a write is in flight are summed per
// (org, route template, hour) and written together as one ADD of their count when it returns.
//
// Two modes:
// - awaited (a Lambda, or `writeBehindMs` unset): each caller's promise settles when the write
//   carrying its call is done, so a handler that awaits it before answering (a Lambda may freeze
//   right after returning) never loses a count. One call at a time writes one ADD of 1 per call.
// - write-behind (a long-lived process: `npm start`): `record` settles at once and the counts are
//   written at most `writeBehindMs` later, summed per counter (one ADD per counter per period
//   instead of one per request). Nothing is lost on a clean stop: `flush()` writes everything
//   recorded so far (the local service calls it when it stops, after the HTTP server closed); a
//   failed write keeps its counts for the next flush (up to MAX_ATTEMPTS writes). Usage read in
//   this process flushes first (withMeterFlush), so it always includes every call made here.
import type { UsageStore } from '../../ports/usage';
import { hourBucket } from './periods';

/** Adds `calls` to the counter of (org, route template, hour bucket). */
export type AddCalls = (org: string, path: string, hourBucket: string, calls: number) => Promise<void>;

export interface UsageMeter {
  /**
   * Counts one call. Awaited mode: settles once it is stored (rejects when that write failed).
   * Write-behind mode: undefined (nothing to wait for); the count is stored by the next flush.
   */
  record(org: string, routeTemplate: string, at: Date): Promise<void> | undefined;
  /** Writes every count recorded so far; settles when they are stored (rejects if a write failed). */
  flush(): Promise<void>;
}

export interface UsageMeterOptions {
  /** Write-behind: counts are written at most this many ms after they are recorded. */
  writeBehindMs?: number;
  /** Counts given up after MAX_ATTEMPTS failed writes (write-behind), for the log. */
  onLost?: (error: unknown, calls: number) => void;
}

/** Distinct counters per write round; beyond that, the rest wait for the next round. */
const MAX_COUNTERS_PER_ROUND = 500;
/** Write-behind: a counter's count is written up to this many times before it is given up. */
const MAX_ATTEMPTS = 3;

interface Counter {
  org: string;
  path: string;
  bucket: string;
  calls: number;
  attempts: number;
}

interface Round {
  counters: Map<string, Counter>;
  done: { promise: Promise<void>; resolve(): void; reject(reason: unknown): void };
}

export function createUsageMeter(add: AddCalls, options: UsageMeterOptions = {}): UsageMeter {
  const { writeBehindMs, onLost } = options;
  const writeBehind = writeBehindMs !== undefined && writeBehindMs > 0;
  const waiting: Round[] = [];
  let current: Round | undefined; // the round being written
  let writing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The last round a flush waits for: written without waiting for the timer. */
  let flushThrough: Round | undefined;

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

  /** The open round that takes counter `id` (a new one when the last is full). */
  const openRound = (id: string): Round => {
    let round = waiting.at(-1);
    if (!round || (round.counters.size >= MAX_COUNTERS_PER_ROUND && !round.counters.has(id))) {
      round = newRound();
      waiting.push(round);
    }
    return round;
  };

  const count = (id: string, counter: Omit<Counter, 'calls' | 'attempts'>, calls: number, attempts: number) => {
    const round = openRound(id);
    const existing = round.counters.get(id);
    if (existing) {
      existing.calls += calls;
      existing.attempts = Math.max(existing.attempts, attempts);
    } else round.counters.set(id, { ...counter, calls, attempts });
    return round;
  };

  const writeRounds = async () => {
    // Awaited mode: every round, the ones recorded during the writes included (group commit).
    // Write-behind: the rounds open when the pass began, and those a flush asks for; calls recorded
    // during the writes wait for the timer (armed by their record), so steady traffic makes one
    // write per counter per period, not a new write each time the last one returns.
    let due = writeBehind ? waiting.length : Number.POSITIVE_INFINITY;
    while (waiting.length && (due > 0 || flushThrough !== undefined)) {
      due--;
      const round = waiting.shift()!;
      if (round === flushThrough) flushThrough = undefined;
      current = round;
      const counters = [...round.counters.entries()];
      const results = await Promise.allSettled(counters.map(([, c]) => add(c.org, c.path, c.bucket, c.calls)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (writeBehind) {
        // Nobody waits on these counts: keep the failed ones for the next flush, a few times.
        results.forEach((result, i) => {
          if (result.status === 'fulfilled') return;
          const [id, c] = counters[i];
          if (c.attempts + 1 < MAX_ATTEMPTS) count(id, c, c.calls, c.attempts + 1);
          else onLost?.(result.reason, c.calls);
        });
      }
      current = undefined;
      if (failed) round.done.reject(failed.reason);
      else round.done.resolve();
      // Retries of failed counts wait for the next period, not this loop.
      if (writeBehind && failed) break;
    }
    writing = false;
    if (writeBehind && waiting.length) arm();
  };

  const startWriting = () => {
    if (writing) return;
    writing = true;
    // Started after the current tick, so calls recorded in the same tick share the round.
    queueMicrotask(() => void writeRounds());
  };

  function arm() {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      startWriting();
    }, writeBehindMs);
    // A pending write never keeps a process alive; stopping flushes explicitly.
    (timer as { unref?: () => void }).unref?.();
  }

  // The last counter's id, so steady traffic does not build the same string per call.
  let last = { org: '', path: '', bucket: '', id: '' };
  const idOf = (org: string, path: string, bucket: string) => {
    if (last.org !== org || last.path !== path || last.bucket !== bucket)
      last = { org, path, bucket, id: `${org}\n${path}\n${bucket}` };
    return last.id;
  };

  return {
    record(org, routeTemplate, at) {
      const bucket = hourBucket(at);
      const round = count(idOf(org, routeTemplate, bucket), { org, path: routeTemplate, bucket }, 1, 0);
      if (!writeBehind) {
        startWriting();
        return round.done.promise;
      }
      arm();
      return undefined;
    },

    flush() {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
      const last = waiting.at(-1) ?? current;
      if (!last) return Promise.resolve();
      if (last !== current) flushThrough = last;
      // Rounds are written in order: the last one settling means every earlier one has. (A
      // write loop that stopped after a failure re-arms the timer for the rest.)
      startWriting();
      return last.done.promise;
    },
  };
}

/** The usage store whose reads first store every count this process has recorded. */
export function withMeterFlush<S extends UsageStore>(store: S, meter: UsageMeter): S {
  return {
    ...store,
    async read(org, fromBucket) {
      try {
        await meter.flush();
      } catch {
        // A failed flush keeps its counts for the next one; the read shows what is stored.
      }
      return store.read(org, fromBucket);
    },
  };
}
