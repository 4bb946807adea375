// The extraction workflow's steps (statemachines/extract.asl.json): Prepare batches, process a
// batch (the SQS worker), record a lost batch (DLQ or task timeout), Finalize. Every step is safe
// to run twice: entries move pending -> done once, and a batch's counts are added once.
import type { ExtractUrl, UrlResult } from '../extraction/types';
import { TERMINAL } from '../executions/model';
import type { Executions } from '../executions/service';
import type { ExtractResultStore, UrlEntry } from '../../ports/extract-results';
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
  results: ExtractResultStore;
  /** Needed by processBatch only. */
  extractUrl?: ExtractUrl;
  /** Successful records are stored here (and counted for their vendor). */
  catalog?: ProductCatalog;
  /** URLs fetched at once within one batch. */
  urlConcurrency?: number;
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

  /**
   * Records `result` for every pending index of a URL group (first occurrence and its
   * duplicates). Returns the entries as now stored, or null when another writer got there first.
   */
  async function recordGroup(executionId: string, group: UrlEntry[], result: UrlResult): Promise<UrlEntry[] | null> {
    const written: UrlEntry[] = [];
    let lost = false;
    for (const entry of group) {
      if (entry.state !== 'pending') {
        written.push(entry);
        continue;
      }
      const { final_url, ...rest } = result;
      const own: UrlResult = { ...rest, url: entry.input, ...(final_url && final_url !== entry.input ? { final_url } : {}) };
      if (await results.record(executionId, entry.index, own)) written.push({ ...entry, state: 'done', result: own });
      else lost = true;
    }
    return lost ? null : written;
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
     * The worker's job for one message. Skips a finished or cancelled execution. Fault injection:
     * `crashAt` in [0, 1) makes it die after that fraction of its remaining URLs was recorded
     * (so it always dies while work remains); nothing is written after the crash.
     */
    async processBatch(message: BatchMessage, fault: { crashAt?: number } = {}): Promise<{ state: 'done' | 'skipped' | 'stopped'; counted: boolean }> {
      const { executionId, batch } = message;
      if (!deps.extractUrl) throw new Error('processBatch needs extractUrl');
      const extractUrl = deps.extractUrl;
      const execution = await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status)) return { state: 'skipped', counted: false };
      const options = optionsOf(execution);
      const perSuccess = creditsPerSuccess(options);

      const entries = await results.get(executionId, batch.indices);
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
      await eachLimited(todo, deps.urlConcurrency ?? 4, async (group) => {
        if (!(await stillWanted())) return;
        const url = group.find((e) => e.url)!.url!;
        let result: UrlResult;
        try {
          result = await extractUrl(url, options);
        } catch {
          result = failedResult(url, UNEXPECTED_MESSAGE);
        }
        extracted.push({ group, url, result });
      });

      // 2. Store the products in one batch write, before any result says success, so a crash
      //    after recording never leaves a success without its stored product.
      if (deps.catalog) {
        const products = extracted.flatMap(({ url, result }) => (result.success && result.product ? [{ url, product: result.product }] : []));
        await deps.catalog.rememberAll(products, options);
      }

      // 3. Record the results (one conditional write per entry: pending -> done once). Fault
      //    injection: a dead process writes nothing more; the check and the claim are
      //    synchronous, so at most crashAfter groups are written before the crash.
      const crashAfter = fault.crashAt === undefined ? undefined : Math.floor(Math.min(Math.max(fault.crashAt, 0), 0.999) * todo.length);
      let recorded = 0;
      let crashed = false;
      const stored = new Map<number, UrlEntry>(entries.map((entry) => [entry.index, entry]));
      let lostRace = false;
      await eachLimited(extracted, deps.urlConcurrency ?? 4, async ({ group, result }) => {
        if (crashed || (crashAfter !== undefined && recorded >= crashAfter)) {
          crashed = true;
          throw new InjectedFault();
        }
        recorded++;
        const written = await recordGroup(executionId, group, result);
        if (written) for (const entry of written) stored.set(entry.index, entry);
        else lostRace = true;
      });

      // A concurrent delivery recorded some entries first: count from what is stored.
      const known = lostRace ? undefined : [...stored.values()];
      // Cancelled mid-batch: count what finished so status and results agree.
      if (stopped) return { state: 'stopped', counted: await countBatch(executionId, batch, perSuccess, true, known) };
      return { state: 'done', counted: await countBatch(executionId, batch, perSuccess, false, known) };
    },

    /**
     * A batch that never completed (dead-lettered, or its task timed out): its still-pending URLs
     * become `other` with retry true, then the batch is counted once.
     */
    async abandonBatch(message: BatchMessage, reason = LOST_BATCH_MESSAGE): Promise<{ abandoned: number }> {
      const { executionId, batch } = message;
      const execution = await executions.get(executionId);
      if (!execution) return { abandoned: 0 };
      const entries = await results.get(executionId, batch.indices);
      let abandoned = 0;
      for (const entry of entries) {
        if (entry.state !== 'pending') continue;
        if (await results.record(executionId, entry.index, failedResult(entry.input, reason))) abandoned++;
      }
      await countBatch(executionId, batch, creditsPerSuccess(optionsOf(execution)), true);
      return { abandoned };
    },

    /**
     * Counts every entry from the store (the authoritative recount), gives any entry still pending
     * the `other` outcome, and completes the execution unless it was cancelled or failed meanwhile.
     */
    async finalize(input: { executionId: string }) {
      const { executionId } = input;
      const execution = await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status)) return { executionId, status: execution?.status ?? 'missing' };
      let entries = await results.all(executionId);
      const leftovers = entries.filter((e) => e.state === 'pending');
      for (const entry of leftovers) await results.record(executionId, entry.index, failedResult(entry.input, NOT_PROCESSED_MESSAGE));
      if (leftovers.length) entries = await results.all(executionId);
      const counters = countEntries(entries, creditsPerSuccess(optionsOf(execution)));
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
