// The extraction workflow's steps (statemachines/extract.asl.json): Prepare batches, process a
// batch (the SQS worker), record a lost batch (DLQ or task timeout), Finalize. Every step is safe
// to run twice: entries move pending -> done once, and a batch's counts are added once.
import type { ExtractUrl, UrlResult } from '../extraction/types';
import { TERMINAL } from '../executions/model';
import type { Executions } from '../executions/service';
import type { BatchClaim, ClaimingResultStore, UrlEntry } from '../../ports/extract-results';
import type { ProductCatalog } from '../products/catalog';
import { BATCH_URLS, countEntries, creditsPerSuccess, optionsOf } from './model';

export interface Batch {
  /** Stable for the same pending set: "b" + first index, so a retried Prepare yields the same ids. */
  id: string;
  indices: number[];
}

/** What the state machine passes to a worker through SQS (plus TaskToken). */
export interface BatchMessage {
  executionId: string;
  batch: Batch;
}

export interface ExtractStepsDeps {
  executions: Executions;
  results: ClaimingResultStore;
  /** Needed by processBatch only. */
  extractUrl?: ExtractUrl;
  /** Successful records are stored here (and counted for their vendor). */
  catalog?: ProductCatalog;
  /** URLs fetched at once within one batch (without extractSlots). */
  urlConcurrency?: number;
  /**
   * Extraction slots shared by every batch handled in this process. With it a batch queues all
   * its URLs on the slots, so when one batch runs out of work another's URLs take the free slots.
   */
  extractSlots?: Limiter;
  batchUrls?: number;
}

export const LOST_BATCH_MESSAGE = 'Extraction did not complete after repeated attempts; the URL may be resubmitted';
export const NOT_PROCESSED_MESSAGE = 'The URL was not processed; it may be resubmitted';
const UNEXPECTED_MESSAGE = 'Extraction failed unexpectedly; the URL may be resubmitted';

/** Thrown by processBatch when fault injection says so (tests and benchmarks only). */
export class InjectedFault extends Error {
  constructor() {
    super('Injected worker fault');
    this.name = 'InjectedFault';
  }
}

const failedResult = (url: string, message: string): UrlResult => ({ url, product: null, success: false, outcome: 'other', retry: true, message });

/** Groups pending entries so duplicates travel with their first occurrence, BATCH_URLS fetches per batch. */
export function planBatches(entries: readonly UrlEntry[], batchUrls = BATCH_URLS): Batch[] {
  const groups = new Map<number, number[]>();
  for (const entry of entries) {
    if (entry.state !== 'pending') continue;
    const key = entry.dup_of ?? entry.index;
    const group = groups.get(key);
    if (group) group.push(entry.index);
    else groups.set(key, [entry.index]);
  }
  const batches: Batch[] = [];
  let current: number[][] = [];
  const flush = () => {
    if (!current.length) return;
    const indices = current.flat().sort((a, b) => a - b);
    batches.push({ id: `b${indices[0]}`, indices });
    current = [];
  };
  for (const key of [...groups.keys()].sort((a, b) => a - b)) {
    current.push(groups.get(key)!);
    if (current.length >= batchUrls) flush();
  }
  flush();
  return batches;
}

/** Runs `work` over items with at most `limit` at once; after a failure no new item starts. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
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

export type ExtractSteps = ReturnType<typeof createExtractSteps>;

export function createExtractSteps(deps: ExtractStepsDeps) {
  const { executions, results } = deps;

  /**
   * Adds a batch's counts once, from what is stored, so a crash between recording and counting
   * loses nothing. Unless `partial`, only when every entry is done: a concurrent delivery of the
   * same message still recording will find them all done and count then. `known` are the batch's
   * entries as this caller last saw or wrote them; without them they are read back.
   */
  async function countBatch(executionId: string, batch: Batch, perSuccess: number, partial = false, known?: UrlEntry[]): Promise<boolean> {
    const entries = known ?? (await results.get(executionId, batch.indices));
    if (!partial && entries.some((entry) => entry.state === 'pending')) return false;
    return executions.addProgress(executionId, batch.id, countEntries(entries, perSuccess));
  }

  /** `result` as the entry's own: its input URL, and the final URL when that differs. */
  function ownResult(entry: UrlEntry, result: UrlResult): UrlResult {
    const { final_url, ...rest } = result;
    return { ...rest, url: entry.input, ...(final_url && final_url !== entry.input ? { final_url } : {}) };
  }

  /**
   * Records `result` for every pending index of a URL group one entry at a time (conditional
   * writes; used when a batch's results were too large for its claim). Returns the entries as
   * now stored, or null when another writer got there first.
   */
  async function recordGroup(executionId: string, group: UrlEntry[], result: UrlResult): Promise<UrlEntry[] | null> {
    const written: UrlEntry[] = [];
    let lost = false;
    for (const entry of group) {
      if (entry.state !== 'pending') {
        written.push(entry);
        continue;
      }
      const own = ownResult(entry, result);
      if (await results.record(executionId, entry.index, own)) written.push({ ...entry, state: 'done', result: own });
      else lost = true;
    }
    return lost ? null : written;
  }

  /**
   * Copies a claim's results to the batch's entries that are still pending (anyone may do this,
   * any number of times: the content is the claim's) and returns the entries as now stored.
   */
  async function applyClaim(executionId: string, entries: UrlEntry[], claim: BatchClaim & { results: Map<number, UrlResult> }): Promise<UrlEntry[]> {
    const copied: UrlEntry[] = [];
    const merged = entries.map((entry) => {
      const result = entry.state === 'pending' ? claim.results.get(entry.index) : undefined;
      if (!result) return entry;
      const done: UrlEntry = { ...entry, state: 'done', result };
      copied.push(done);
      return done;
    });
    if (copied.length) await results.putEntries(executionId, copied);
    return merged;
  }

  /** Claims `outcomes` for the batch, copies what holds to the entries, and counts it once. */
  async function settle(executionId: string, batch: Batch, entries: UrlEntry[], claim: BatchClaim, perSuccess: number): Promise<boolean> {
    if (!claim.results) return countBatch(executionId, batch, perSuccess, true);
    const stored = await applyClaim(executionId, entries, { ...claim, results: claim.results });
    // A claim is the batch's final word (a cancelled batch's claim holds what finished).
    return countBatch(executionId, batch, perSuccess, true, stored);
  }

  /** Per-entry results of extracted URL groups (every pending index of each group). */
  const outcomesOf = (extracted: ReadonlyArray<{ group: UrlEntry[]; result: UrlResult }>) =>
    extracted.flatMap(({ group, result }) => group.filter((e) => e.state === 'pending').map((entry) => ({ index: entry.index, result: ownResult(entry, result) })));

  /** The results too large for a claim: entry by entry (conditional writes), then counted. */
  async function recordOneByOne(
    executionId: string,
    batch: Batch,
    entries: UrlEntry[],
    extracted: ReadonlyArray<{ group: UrlEntry[]; result: UrlResult }>,
    perSuccess: number,
    partial: boolean,
  ): Promise<boolean> {
    const stored = new Map<number, UrlEntry>(entries.map((entry) => [entry.index, entry]));
    let lostRace = false;
    await eachLimited(extracted, deps.urlConcurrency ?? 4, async ({ group, result }) => {
      const written = await recordGroup(executionId, group, result);
      if (written) for (const entry of written) stored.set(entry.index, entry);
      else lostRace = true;
    });
    // A concurrent delivery recorded some entries first: count from what is stored.
    return countBatch(executionId, batch, perSuccess, partial, lostRace ? undefined : [...stored.values()]);
  }

  return {
    planBatches,

    /** Moves pending -> running and splits the pending entries into batches; nothing to do if cancelled. */
    async prepare(input: { executionId: string }) {
      const { executionId } = input;
      let execution = await executions.markRunning(executionId);
      // A retried Prepare finds it running already; a cancelled or reaped one is terminal.
      execution ??= await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status) || execution.waiting_for) {
        return { executionId, proceed: false, batchCount: 0, batches: [] as Batch[], options: {} };
      }
      const batches = planBatches(await results.all(executionId), deps.batchUrls);
      return { executionId, proceed: batches.length > 0, batchCount: batches.length, batches, options: optionsOf(execution) };
    },

    /**
     * The worker's job for one message: extract the batch's pending URLs, store the products,
     * claim the batch with the results (one conditional write; a duplicate delivery that loses
     * uses the winner's), copy them to the entries and count once. Skips a finished or cancelled
     * execution. Fault injection: `crashAt` in [0, 1) makes it die while work remains, before
     * storing its results (< 0.5) or after; nothing is written after the crash.
     */
    async processBatch(message: BatchMessage, fault: { crashAt?: number } = {}): Promise<{ state: 'done' | 'skipped' | 'stopped'; counted: boolean }> {
      const { executionId, batch } = message;
      if (!deps.extractUrl) throw new Error('processBatch needs extractUrl');
      const extractUrl = deps.extractUrl;
      const execution = await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status)) return { state: 'skipped', counted: false };
      const options = optionsOf(execution);
      const perSuccess = creditsPerSuccess(options);

      const { entries, claim: existing } = await results.readBatch(executionId, batch);
      // Fault injection: a dead process writes nothing more. Below one half it dies before its
      // results are stored, else right after (stored, but neither copied to the entries nor
      // counted); finding the batch stored already, it dies before copying.
      const crash = fault.crashAt === undefined ? undefined : fault.crashAt < 0.5 ? 'before' : 'after';
      if (crash && existing?.results) throw new InjectedFault();
      // Another delivery stored this batch already: finish its work (copy, count), fetch nothing.
      if (existing?.results) return { state: 'done', counted: await settle(executionId, batch, entries, existing, perSuccess) };
      const groups = new Map<number, UrlEntry[]>();
      for (const entry of entries) {
        const key = entry.dup_of ?? entry.index;
        const group = groups.get(key);
        if (group) group.push(entry);
        else groups.set(key, [entry]);
      }
      const todo = [...groups.values()].filter((group) => group.some((e) => e.state === 'pending') && group[0].url);

      let stopped = false;
      let checkedAt = Date.now();
      const stillWanted = async () => {
        // Re-read the execution at most once a second: a cancel stops the rest of the batch.
        if (Date.now() - checkedAt < 1000) return !stopped;
        checkedAt = Date.now();
        const current = await executions.get(executionId);
        stopped = !current || TERMINAL.has(current.status);
        return !stopped;
      };

      // 1. Extract every URL (bounded concurrency).
      const extracted: Array<{ group: UrlEntry[]; url: string; result: UrlResult }> = [];
      const extractGroup = async (group: UrlEntry[]) => {
        if (!(await stillWanted())) return;
        const url = group.find((e) => e.url)!.url!;
        let result: UrlResult;
        try {
          result = await extractUrl(url, options);
        } catch {
          result = failedResult(url, UNEXPECTED_MESSAGE);
        }
        extracted.push({ group, url, result });
      };
      const slots = deps.extractSlots;
      if (slots) await eachLimited(todo, todo.length, (group) => slots.run(() => extractGroup(group)));
      else await eachLimited(todo, deps.urlConcurrency ?? 4, extractGroup);

      // 2. Store the products in one batch write, before any result says success, so a crash
      //    after recording never leaves a success without its stored product.
      if (deps.catalog) {
        const products = extracted.flatMap(({ url, result }) => (result.success && result.product ? [{ url, product: result.product }] : []));
        await deps.catalog.rememberAll(products, options);
      }
      if (crash === 'before' && extracted.length) throw new InjectedFault();

      // 3. Claim the batch with these results (the first writer wins), copy the claim that
      //    holds to the entries, count it once.
      const outcome: 'done' | 'stopped' = stopped ? 'stopped' : 'done';
      if (existing || !extracted.length) return { state: outcome, counted: await recordOneByOne(executionId, batch, entries, extracted, perSuccess, stopped) };
      const { claim } = await results.claimBatch(executionId, batch.id, outcomesOf(extracted));
      if (crash === 'after') throw new InjectedFault();
      if (!claim.results) return { state: outcome, counted: await recordOneByOne(executionId, batch, entries, extracted, perSuccess, stopped) };
      return { state: outcome, counted: await settle(executionId, batch, entries, claim, perSuccess) };
    },

    /**
     * A batch that never completed (dead-lettered, or its task timed out): its still-pending URLs
     * become `other` with retry true, then the batch is counted once.
     */
    async abandonBatch(message: BatchMessage, reason = LOST_BATCH_MESSAGE): Promise<{ abandoned: number }> {
      const { executionId, batch } = message;
      const execution = await executions.get(executionId);
      if (!execution) return { abandoned: 0 };
      const perSuccess = creditsPerSuccess(optionsOf(execution));
      const { entries, claim: existing } = await results.readBatch(executionId, batch);
      const lost = entries.filter((entry) => entry.state === 'pending').map((entry) => ({ index: entry.index, result: failedResult(entry.input, reason) }));
      if (!existing) {
        const { won, claim } = await results.claimBatch(executionId, batch.id, lost);
        if (claim.results) {
          await settle(executionId, batch, entries, claim, perSuccess);
          return { abandoned: won ? lost.length : 0 };
        }
      } else if (existing.results) {
        await settle(executionId, batch, entries, existing, perSuccess);
        return { abandoned: 0 };
      }
      // Results recorded entry by entry for this batch: the still-pending ones become `other`.
      let abandoned = 0;
      for (const { index, result } of lost) if (await results.record(executionId, index, result)) abandoned++;
      await countBatch(executionId, batch, perSuccess, true);
      return { abandoned };
    },

    /**
     * Counts every entry from the store (the authoritative recount), gives any entry still pending
     * the `other` outcome, and completes the execution unless it was cancelled or failed meanwhile.
     * Every batch then has a claim, so a late delivery of any of its messages changes nothing.
     */
    async finalize(input: { executionId: string }) {
      const { executionId } = input;
      const execution = await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status)) return { executionId, status: execution?.status ?? 'missing' };
      const perSuccess = creditsPerSuccess(optionsOf(execution));
      let entries = await results.all(executionId);
      if (entries.some((e) => e.state === 'pending')) {
        // The batches as Prepare planned them (entries with a URL were all pending then).
        const batches = planBatches(entries.map((e) => (e.url ? { ...e, state: 'pending' as const } : e)), deps.batchUrls);
        const claims = await results.claims(executionId);
        const byIndex = new Map(entries.map((e) => [e.index, e]));
        for (const batch of batches) {
          const batchEntries = batch.indices.map((i) => byIndex.get(i)!).filter(Boolean);
          if (!batchEntries.some((e) => e.state === 'pending')) continue;
          let claim = claims.get(batch.id);
          if (!claim) {
            const leftovers = batchEntries.filter((e) => e.state === 'pending').map((e) => ({ index: e.index, result: failedResult(e.input, NOT_PROCESSED_MESSAGE) }));
            claim = (await results.claimBatch(executionId, batch.id, leftovers)).claim;
          }
          if (claim.results) await applyClaim(executionId, batchEntries, { ...claim, results: claim.results });
          // Recorded entry by entry: what is still pending now becomes `other`.
          for (const entry of batchEntries) {
            if (entry.state === 'pending' && !claim.results?.has(entry.index)) await results.record(executionId, entry.index, failedResult(entry.input, NOT_PROCESSED_MESSAGE));
          }
        }
        entries = await results.all(executionId);
      }
      const counters = countEntries(entries, perSuccess);
      const completed = await executions.complete(executionId, { counters });
      return { executionId, status: completed ? 'completed' : ((await executions.get(executionId))?.status ?? 'missing') };
    },

    /** The workflow itself failed (a step gave up): fail the execution without internals. */
    async fail(input: { executionId: string }) {
      const failed = await executions.fail(input.executionId, 'The extraction failed because of an internal error; resubmit the URLs');
      return { executionId: input.executionId, status: failed?.status ?? 'unchanged' };
    },
  };
}
