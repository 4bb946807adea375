// The extraction workflow's steps (statemachines/extract.asl.json): Prepare batches, process a
// batch (the SQS worker), record a lost batch (DLQ or task timeout), Finalize. Every step is safe
// to run twice: entries move pending -> done once, and a batch's counts are added once (the claim
// protocol, claim-protocol.ts). Injected crashes and duplicate deliveries for the benchmarks are
// wired around these steps and their ports by the composition root; nothing here knows of them.
import type { ExtractOptions, ProductRecord, UrlResult } from '../extraction/types';
import { withoutProvenance } from '../extraction/provenance';
import { failureResult, groupDuplicates, resultFor, unexpectedFailure } from '../extraction/results';
import { TERMINAL, type Execution } from '../executions/model';
import type { Executions } from '../executions/service';
import type { BatchClaim, ClaimingResultStore, UrlEntry } from '../../ports/extract-results';
import type { ProductCatalog, StoredBatch } from '../products/catalog';
import type { SerializedProduct } from '../../ports/products';
import { batchingFor, batchSizeFor, countEntries, creditsPerSuccess, optionsOf } from './model';
import { eachLimited, type Limiter } from './concurrency';
import { createClaimProtocol, encodeResult, type Batch, type ExtractedGroup } from './claim-protocol';

export type { Batch } from './claim-protocol';

/** What the state machine passes to a worker through SQS (plus TaskToken). */
export interface BatchMessage {
  executionId: string;
  batch: Batch;
}

/**
 * A URL's result, or null: this worker leaves the URL to another (the render worker, for a page
 * that needs a browser where this process has none), which records its one result later.
 */
export type BatchExtractUrl = (url: string, options: ExtractOptions) => Promise<UrlResult | null>;

/** URL groups a batch hands on per message: the render worker renders them one after another. */
export const HAND_OFF_URLS = 5;

export interface ExtractStepsDeps {
  executions: Executions;
  results: ClaimingResultStore;
  /** Needed by processBatch only. */
  extractUrl?: BatchExtractUrl;
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

/**
 * Groups pending entries so duplicates travel with their first occurrence, `batchUrls` fetches per
 * batch (by default sized from the number of pending entries: batchSizeFor, at most `maxBatchUrls`
 * in about `batches` batches).
 */
export function planBatches(
  entries: ReadonlyArray<Pick<UrlEntry, 'index' | 'dup_of' | 'state'>>,
  maxBatchUrls?: number,
  batches?: number,
): Batch[] {
  const pendingCount = entries.filter((entry) => entry.state === 'pending').length;
  const batchUrls = batchSizeFor(pendingCount, maxBatchUrls, batches);
  const planned: Batch[] = [];
  let current: number[][] = [];
  const flush = () => {
    if (!current.length) return;
    const indices = current.flat().sort((a, b) => a - b);
    planned.push({ id: `b${indices[0]}`, indices });
    current = [];
  };
  for (const group of groupDuplicates(entries.filter((entry) => entry.state === 'pending'))) {
    current.push(group.map((entry) => entry.index));
    if (current.length >= batchUrls) flush();
  }
  flush();
  return planned;
}

/**
 * What the shared product store gets of an extracted product: the claim's serialization, or, for
 * a product with provenance (this execution's result only, never the record other organizations
 * read), the product without it.
 */
function sharedRecord(url: string, product: ProductRecord, serialized?: SerializedProduct) {
  return product.provenance ? { url, product: withoutProvenance(product) } : { url, product, serialized };
}

export type ExtractSteps = ReturnType<typeof createExtractSteps>;

export function createExtractSteps(deps: ExtractStepsDeps) {
  const { executions, results } = deps;
  const protocol = createClaimProtocol({ executions, results, writeConcurrency: deps.urlConcurrency ?? 4 });

  /**
   * An extracted URL group as the batch keeps it until its claim: each pending index's result
   * under its own input URL, serialized at once (the claim stores that JSON), so the result's
   * object graph dies young. `product`: the product serialized once for the claim and the
   * product's record.
   */
  const extractedGroup = (group: UrlEntry[], result: UrlResult, product?: SerializedProduct): ExtractedGroup => ({
    group,
    results: group
      .filter((e) => e.state === 'pending')
      .map((entry) => encodeResult(entry.index, resultFor(entry.input, result), product)),
  });

  // Whether an execution is still wanted (not cancelled, failed or done), read at most once a
  // second per execution and shared by every batch this process handles: a cancel stops the
  // rest of each batch within about a second.
  const wanted = new Map<string, { at: number; alive: Promise<boolean> }>();
  const stillWanted = (executionId: string): Promise<boolean> => {
    const known = wanted.get(executionId);
    if (known && Date.now() - known.at < 1000) return known.alive;
    if (!known && wanted.size >= 1000) wanted.clear();
    const alive = executions.get(executionId).then(
      (current) => !!current && !TERMINAL.has(current.status),
      () => true,
    );
    wanted.set(executionId, { at: Date.now(), alive });
    return alive;
  };

  /** The batches as first planned: every entry with a URL, split as the execution's options say (batchingFor). */
  const planOf = (
    execution: Execution,
    entries: ReadonlyArray<Pick<UrlEntry, 'index' | 'dup_of' | 'state' | 'url'>>,
  ) => {
    const batching = batchingFor(optionsOf(execution));
    return planBatches(
      entries.map((e) => (e.url ? { ...e, state: 'pending' as const } : e)),
      deps.batchUrls ?? batching.max,
      batching.batches,
    );
  };

  /** A delivery that claimed a batch may have stopped before marking its new products: mark them now. */
  const finishClaimed = async (claim: BatchClaim | null) => {
    if (claim && deps.catalog) await deps.catalog.finishClaimed(claim.products);
  };

  /**
   * Extracts every pending URL group of a batch (bounded concurrency, or the process's shared
   * slots) until the execution is no longer wanted. Each successful product's record is written
   * while the rest still extracts (25 a batch write), so the batch's end waits for its last few
   * records only; `seen`: which of the products were known already, read while the pages load.
   */
  async function extract(executionId: string, entries: UrlEntry[], options: ExtractOptions) {
    if (!deps.extractUrl) throw new Error('processBatch needs extractUrl');
    const extractUrl = deps.extractUrl;
    const catalog = deps.catalog;
    const todo = groupDuplicates(entries).filter((group) => group.some((e) => e.state === 'pending') && group[0].url);
    const urlOf = (group: UrlEntry[]) => group.find((e) => e.url)!.url!;
    const seen = catalog && todo.length ? catalog.seenBefore(todo.map(urlOf)) : Promise.resolve(new Set<string>());
    seen.catch(() => undefined);
    const recorder = catalog && todo.length ? catalog.openBatch(todo.length, options) : undefined;
    const extracted: ExtractedGroup[] = [];
    const deferred: UrlEntry[][] = [];
    let stopped = false;
    const extractGroup = async (group: UrlEntry[]) => {
      if (stopped || !(await stillWanted(executionId))) {
        stopped = true;
        return;
      }
      const url = urlOf(group);
      let result: UrlResult | null;
      try {
        result = await extractUrl(url, options);
      } catch {
        result = unexpectedFailure(url);
      }
      if (!result) {
        deferred.push(group);
        return;
      }
      const serialized = result.product ? { json: JSON.stringify(result.product) } : undefined;
      extracted.push(extractedGroup(group, result, serialized));
      if (recorder && result.success && result.product) recorder.add(sharedRecord(url, result.product, serialized));
    };
    const slots = deps.extractSlots;
    try {
      if (slots) await eachLimited(todo, todo.length, (group) => slots.run(() => extractGroup(group)));
      else await eachLimited(todo, deps.urlConcurrency ?? 4, extractGroup);
    } catch (error) {
      recorder?.release();
      throw error;
    }
    return { extracted, deferred, stopped, recorder, seen };
  }

  /**
   * The URL groups handed on, HAND_OFF_URLS a part, each part a batch of its own (its id from the
   * batch's and its first index, so every delivery cuts the same parts and their claims line up).
   */
  const handOffParts = (batch: Batch, groups: UrlEntry[][]): Batch[] => {
    // In index order, not the order the pages finished in.
    const ordered = [...groups].sort((a, b) => a[0].index - b[0].index);
    const parts: Batch[] = [];
    for (let i = 0; i < ordered.length; i += HAND_OFF_URLS) {
      const indices = ordered
        .slice(i, i + HAND_OFF_URLS)
        .flatMap((group) => group.filter((e) => e.state === 'pending').map((e) => e.index))
        .sort((a, b) => a - b);
      if (indices.length) parts.push({ id: `${batch.id}.${indices[0]}`, indices });
    }
    return parts;
  };

  return {
    planBatches,

    /** Moves pending -> running and splits the pending entries into batches; nothing to do if cancelled. */
    async prepare(input: { executionId: string }) {
      const { executionId } = input;
      // The entries are read while the execution moves to running (one round trip, not two).
      const outlines = results.outlines(executionId);
      outlines.catch(() => undefined);
      let execution = await executions.markRunning(executionId);
      // A retried Prepare finds it running already; a cancelled or reaped one is terminal.
      execution ??= await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status) || execution.waiting_for) {
        return { executionId, proceed: false, batchCount: 0, batches: [] as Batch[], options: {} };
      }
      // The batches as first planned (every entry with a URL), less those already finished: a
      // retried Prepare, or a run restarted after a crash (lambdas/domain/executions/resume.ts),
      // sends the same batch ids over the same indices, so stored claims and counts line up.
      const entries = await outlines;
      const pending = new Set(entries.filter((e) => e.state === 'pending').map((e) => e.index));
      const batches = planOf(execution, entries).filter((batch) => batch.indices.some((index) => pending.has(index)));
      return {
        executionId,
        proceed: batches.length > 0,
        batchCount: batches.length,
        batches,
        options: optionsOf(execution),
      };
    },

    /**
     * The worker's job for one message, in named steps: read the batch, extract its pending URLs
     * (each product's record written meanwhile), claim the batch with the results, commit (count
     * once; a duplicate delivery that lost the claim commits the winner's), one path for every
     * delivery. Skips a finished or cancelled execution.
     */
    async processBatch(message: BatchMessage): Promise<{
      state: 'done' | 'skipped' | 'stopped';
      counted: boolean;
      /** URL groups left pending for another worker, as batches of their own: the caller sends them on. */
      handOff: Batch[];
    }> {
      const { executionId, batch } = message;
      // The execution, the batch's claim and its entries: one read.
      const readAt = Date.now();
      const read = await results.readBatch(executionId, batch, { withExecution: true });
      const execution = read.execution !== undefined ? read.execution : await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status)) return { state: 'skipped', counted: false, handOff: [] };
      // The read found it running: unless a check began since, the batches' checks count from it.
      if ((wanted.get(executionId)?.at ?? 0) < readAt)
        wanted.set(executionId, { at: readAt, alive: Promise.resolve(true) });
      const options = optionsOf(execution);
      const perSuccess = creditsPerSuccess(options);
      const { entries, claim: existing } = read;
      await finishClaimed(existing);
      // Another delivery claimed this batch with its results already: fetch nothing, commit those.
      const todo = existing?.results ? [] : entries;
      const { extracted, deferred, stopped, recorder, seen } = await extract(executionId, todo, options);
      let claimed: { won: boolean; claim: BatchClaim | null } = { won: false, claim: existing };
      let stored: StoredBatch | undefined;
      try {
        // Every record written (the rest of them now), before any result says success, so a
        // crash after recording never leaves a success without its stored product.
        stored = recorder ? await recorder.close(await seen) : undefined;
        // The first writer's claim holds: the winner marks its new products and counts them for their vendors.
        if (!existing && extracted.length)
          claimed = await protocol.claim(
            executionId,
            batch,
            extracted.flatMap((e) => e.results),
            stored?.products,
          );
      } catch (error) {
        recorder?.release();
        throw error;
      }
      const published = stored ? stored.publish(claimed.won) : Promise.resolve();
      // A stopped batch's entries are its final word; otherwise it counts once every entry is done.
      const commit = { entries, claim: claimed.claim, extracted, perSuccess, final: stopped };
      const [{ counted }] = await Promise.all([protocol.commit(executionId, batch, commit), published]);
      // What an earlier delivery's claim left pending (it handed those on, and may have died before
      // sending them) is handed on again: the parts' own claims keep each URL to one result.
      const left = existing?.results ? groupDuplicates(entries.filter((e) => e.state === 'pending')) : deferred;
      const handOff = stopped ? [] : handOffParts(batch, left);
      return { state: stopped ? 'stopped' : 'done', counted, handOff };
    },

    /** Whether every URL of the batch has its result (a handed-on part reports the batch's task once none is left). */
    async settled(executionId: string, batch: Batch): Promise<boolean> {
      const entries = await results.get(executionId, batch.indices);
      return !entries.some((entry) => entry.state === 'pending');
    },

    /**
     * A batch that never completed (dead-lettered, or its task timed out): its still-pending URLs
     * become `other` with retry true, committed as the batch's final word (the same claim and
     * commit as a delivery's).
     */
    async abandonBatch(message: BatchMessage, reason = LOST_BATCH_MESSAGE): Promise<{ abandoned: number }> {
      const { executionId, batch } = message;
      const execution = await executions.get(executionId);
      if (!execution) return { abandoned: 0 };
      const perSuccess = creditsPerSuccess(optionsOf(execution));
      const { entries, claim: existing } = await results.readBatch(executionId, batch);
      await finishClaimed(existing);
      const lost: ExtractedGroup[] = entries
        .filter((entry) => entry.state === 'pending')
        .map((entry) => ({
          group: [entry],
          results: [encodeResult(entry.index, failureResult(entry.input, 'other', reason))],
        }));
      const claimed = existing
        ? { won: false, claim: existing }
        : await protocol.claim(
            executionId,
            batch,
            lost.flatMap((e) => e.results),
          );
      const commit = { entries, claim: claimed.claim, extracted: lost, perSuccess, final: true };
      const { recorded } = await protocol.commit(executionId, batch, commit);
      return { abandoned: claimed.claim.results ? (claimed.won ? lost.length : 0) : recorded };
    },

    /**
     * Counts every entry from the store (the authoritative recount), gives any entry still pending
     * the `other` outcome, and completes the execution unless it was cancelled or failed meanwhile.
     * Every batch then has a claim, so a late delivery of any of its messages changes nothing.
     */
    async finalize(input: { executionId: string }) {
      const { executionId } = input;
      // Outlines: states and outcomes without the results (the recount needs no more), read
      // while the execution is (one round trip before the recount, not two).
      const outlines = results.outlines(executionId);
      outlines.catch(() => undefined);
      const execution = await executions.get(executionId);
      if (!execution || TERMINAL.has(execution.status)) return { executionId, status: execution?.status ?? 'missing' };
      const perSuccess = creditsPerSuccess(optionsOf(execution));
      let entries = await outlines;
      if (entries.some((e) => e.state === 'pending')) {
        // The batches as Prepare planned them (entries with a URL were all pending then).
        const batches = planOf(execution, entries);
        const claims = await results.claims(executionId);
        const byIndex = new Map(entries.map((e) => [e.index, e]));
        const notProcessed = (entry: Pick<UrlEntry, 'input'>) =>
          failureResult(entry.input, 'other', NOT_PROCESSED_MESSAGE);
        for (const batch of batches) {
          const batchEntries = batch.indices.map((i) => byIndex.get(i)!).filter(Boolean);
          const pendingEntries: UrlEntry[] = batchEntries
            .filter((e) => e.state === 'pending')
            .map((e) => ({ ...e, result: null }));
          if (!pendingEntries.length) continue;
          let claim = claims.get(batch.id);
          // A claim beside pending entries (a stopped batch, or results too large for a claim): its
          // writer may have died before marking its new products too.
          await finishClaimed(claim ?? null);
          if (!claim) {
            const leftovers = pendingEntries.map((e) => encodeResult(e.index, notProcessed(e)));
            claim = (await protocol.claim(executionId, batch, leftovers)).claim;
          }
          // The claim makes the entries it holds results for done; the rest, recorded entry by
          // entry, becomes `other`.
          for (const entry of pendingEntries) {
            if (!claim.results?.has(entry.index)) await results.record(executionId, entry.index, notProcessed(entry));
          }
        }
        entries = await results.outlines(executionId);
      }
      const counters = countEntries(entries, perSuccess);
      const completed = await executions.complete(executionId, { counters });
      return {
        executionId,
        status: completed ? 'completed' : ((await executions.get(executionId))?.status ?? 'missing'),
      };
    },

    /** The workflow itself failed (a step gave up): fail the execution without internals. */
    async fail(input: { executionId: string }) {
      const failed = await executions.fail(
        input.executionId,
        'The extraction failed because of an internal error; resubmit the URLs',
      );
      return { executionId: input.executionId, status: failed?.status ?? 'unchanged' };
    },
  };
}
