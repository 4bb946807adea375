// The batch claim protocol, as named steps. A batch's results are stored once by a claim (one
// conditional write: the first writer wins, later deliveries use the winner's results), which
// makes the batch's entries done (readers take their results from it), and counted on the
// execution once (the batch id joins a set in the same update that adds the counts). Results too
// large for a claim are recorded entry by entry with conditional writes instead.
import type { UrlResult } from '../extraction/types';
import type { Executions } from '../executions/service';
import type {
  BatchClaim,
  ClaimingResultStore,
  EncodedResult,
  UrlEntry,
  UrlEntryOutline,
} from '../../ports/extract-results';
import type { ClaimedProduct, SerializedProduct } from '../../ports/products';
import { countEntries } from './model';
import { eachLimited } from './concurrency';

export interface Batch {
  /** Stable for the same pending set: "b" + first index, so a retried Prepare yields the same ids. */
  id: string;
  indices: number[];
}

/** One extracted URL group: every input index of one normalised URL, and the result of each pending one. */
export interface ExtractedGroup {
  group: UrlEntry[];
  results: readonly EncodedResult[];
}

/**
 * A result as a claim takes it (EncodedResult): serialized once. `product`: its product serialized
 * already (the product's record is written from the same), kept apart from the result's JSON.
 */
export const encodeResult = (index: number, result: UrlResult, product?: SerializedProduct): EncodedResult =>
  product && result.product
    ? { index, outcome: result.outcome, json: JSON.stringify({ ...result, product: null }), product }
    : { index, outcome: result.outcome, json: JSON.stringify(result) };

/** The result an EncodedResult holds, its product put back. */
export function decodeResult(encoded: EncodedResult): UrlResult {
  const result: UrlResult = JSON.parse(encoded.json);
  if (encoded.product) result.product = JSON.parse(encoded.product.json);
  return result;
}

export interface ClaimProtocolDeps {
  executions: Executions;
  results: ClaimingResultStore;
  /** Entry-by-entry writes at once. */
  writeConcurrency: number;
}

export function createClaimProtocol({ executions, results, writeConcurrency }: ClaimProtocolDeps) {
  /** Adds the counts of `entries` (read back when not given) for the batch, once per batch id. */
  async function count(
    executionId: string,
    batch: Batch,
    perSuccess: number,
    entries?: UrlEntryOutline[],
  ): Promise<boolean> {
    return executions.addProgress(
      executionId,
      batch.id,
      countEntries(entries ?? (await results.get(executionId, batch.indices)), perSuccess),
    );
  }

  /**
   * Counts the batch only when every entry is done: a concurrent delivery still recording will
   * find them all done and count then. `known`: the entries as this caller last saw or wrote them.
   */
  async function countWhenComplete(
    executionId: string,
    batch: Batch,
    perSuccess: number,
    known?: UrlEntryOutline[],
  ): Promise<boolean> {
    const entries = known ?? (await results.get(executionId, batch.indices));
    if (entries.some((entry) => entry.state === 'pending')) return false;
    return count(executionId, batch, perSuccess, entries);
  }

  /** Counts the batch as it stands: its final word (a claim, a stopped or abandoned batch), pending entries included. */
  const countAsFinal = (
    executionId: string,
    batch: Batch,
    perSuccess: number,
    known?: UrlEntryOutline[],
  ): Promise<boolean> => count(executionId, batch, perSuccess, known);

  /**
   * The entries as the claim leaves them (outlines: what counting needs): those still pending
   * done with its outcomes. Nothing is written: the stored claim is where they are done (the
   * store's readers see them so).
   */
  const withClaim = (entries: UrlEntryOutline[], claimed: NonNullable<BatchClaim['results']>): UrlEntryOutline[] =>
    entries.map((entry) => {
      const result = entry.state === 'pending' ? claimed.get(entry.index) : undefined;
      return result ? { ...entry, state: 'done', result: { outcome: result.outcome } } : entry;
    });

  /** Counts the batch once with the entries as the claim that holds leaves them (a claim is its final word). */
  async function settle(
    executionId: string,
    batch: Batch,
    entries: UrlEntryOutline[],
    claim: BatchClaim,
    perSuccess: number,
  ): Promise<boolean> {
    if (!claim.results) return countAsFinal(executionId, batch, perSuccess);
    return countAsFinal(executionId, batch, perSuccess, withClaim(entries, claim.results));
  }

  /** Records each pending index of a group its own result (conditional writes); null when another writer got there first. */
  async function recordGroup(
    executionId: string,
    { group, results: encoded }: ExtractedGroup,
  ): Promise<UrlEntry[] | null> {
    const written: UrlEntry[] = [];
    let lost = false;
    for (const entry of group) {
      const mine = entry.state === 'pending' ? encoded.find((r) => r.index === entry.index) : undefined;
      if (!mine) {
        written.push(entry);
        continue;
      }
      const own = decodeResult(mine);
      if (await results.record(executionId, entry.index, own)) written.push({ ...entry, state: 'done', result: own });
      else lost = true;
    }
    return lost ? null : written;
  }

  /**
   * The results no claim holds, entry by entry (conditional writes). Returns the batch's entries
   * as now stored, or undefined when a concurrent delivery recorded some first (then the caller
   * counts from what is stored).
   */
  async function recordEntryByEntry(
    executionId: string,
    entries: UrlEntry[],
    extracted: readonly ExtractedGroup[],
  ): Promise<UrlEntry[] | undefined> {
    const stored = new Map<number, UrlEntry>(entries.map((entry) => [entry.index, entry]));
    let lostRace = false;
    await eachLimited(extracted, writeConcurrency, async (extractedGroup) => {
      const written = await recordGroup(executionId, extractedGroup);
      if (written) for (const entry of written) stored.set(entry.index, entry);
      else lostRace = true;
    });
    return lostRace ? undefined : [...stored.values()];
  }

  /** Stores the batch's results (and the products it stored) unless another delivery did: the claim that holds. */
  const claim = (
    executionId: string,
    batch: Batch,
    outcomes: ReadonlyArray<EncodedResult>,
    products: readonly ClaimedProduct[] = [],
  ) => results.claimBatch(executionId, batch.id, outcomes, products);

  return { claim, settle, countWhenComplete, countAsFinal, recordEntryByEntry };
}
