// The batch claim protocol: how a batch's results are committed, in two named steps that every
// delivery of a batch (its worker, a duplicate, the lost-batch recorder) takes in order:
//   1. claim   the batch's results are stored once by a claim (one conditional write: the first
//              writer wins, later deliveries use the winner's results), which makes its entries
//              done (readers take their results from it);
//   2. commit  the one finishing path: with a claim holding results, the batch is counted from
//              them; without (results too large for a claim, or nothing to claim) its results are
//              recorded entry by entry with conditional writes, then counted. A batch is counted
//              on the execution once (the batch id joins a set in the same update that adds the counts).
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

/** What a delivery commits for its batch. */
export interface BatchCommit {
  /** The batch's entries as this delivery read them. */
  entries: UrlEntry[];
  /** The claim that holds for the batch (this delivery's or an earlier one's), or null for none. */
  claim: BatchClaim | null;
  /** This delivery's results, recorded entry by entry when no claim holds them. */
  extracted: readonly ExtractedGroup[];
  perSuccess: number;
  /**
   * The batch's final word (stopped by a cancel, or lost): counted as it stands, pending entries
   * included. Otherwise it is counted once every entry is done (a concurrent delivery still
   * recording counts it then).
   */
  final: boolean;
}

export function createClaimProtocol({ executions, results, writeConcurrency }: ClaimProtocolDeps) {
  /** Adds the counts of `entries` for the batch, once per batch id. */
  const count = (executionId: string, batch: Batch, perSuccess: number, entries: UrlEntryOutline[]) =>
    executions.addProgress(executionId, batch.id, countEntries(entries, perSuccess));

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

  /**
   * Records each pending index of a group its own result (conditional writes). Returns the
   * group's entries as now stored and how many this call wrote; entries null when another writer
   * got there first.
   */
  async function recordGroup(
    executionId: string,
    { group, results: encoded }: ExtractedGroup,
  ): Promise<{ entries: UrlEntry[] | null; wrote: number }> {
    const written: UrlEntry[] = [];
    let lost = false;
    let wrote = 0;
    for (const entry of group) {
      const mine = entry.state === 'pending' ? encoded.find((r) => r.index === entry.index) : undefined;
      if (!mine) {
        written.push(entry);
        continue;
      }
      const own = decodeResult(mine);
      if (await results.record(executionId, entry.index, own)) {
        written.push({ ...entry, state: 'done', result: own });
        wrote++;
      } else lost = true;
    }
    return { entries: lost ? null : written, wrote };
  }

  /**
   * The results no claim holds, entry by entry (conditional writes). Returns the batch's entries
   * as now stored, or undefined when a concurrent delivery recorded some first (then they are
   * counted from what is stored), and how many entries this call wrote.
   */
  async function recordEntryByEntry(
    executionId: string,
    entries: UrlEntry[],
    extracted: readonly ExtractedGroup[],
  ): Promise<{ known: UrlEntry[] | undefined; recorded: number }> {
    const stored = new Map<number, UrlEntry>(entries.map((entry) => [entry.index, entry]));
    let lostRace = false;
    let recorded = 0;
    await eachLimited(extracted, writeConcurrency, async (extractedGroup) => {
      const { entries: written, wrote } = await recordGroup(executionId, extractedGroup);
      recorded += wrote;
      if (written) for (const entry of written) stored.set(entry.index, entry);
      else lostRace = true;
    });
    return { known: lostRace ? undefined : [...stored.values()], recorded };
  }

  return {
    /** Step 1: stores the batch's results (and the products it stored) unless another delivery did: the claim that holds. */
    claim: (
      executionId: string,
      batch: Batch,
      outcomes: ReadonlyArray<EncodedResult>,
      products: readonly ClaimedProduct[] = [],
    ) => results.claimBatch(executionId, batch.id, outcomes, products),

    /**
     * Step 2, the one finishing path of every delivery: counts the batch once, from the claim's
     * results when it holds them (its final word), else after recording this delivery's results
     * entry by entry. `counted`: this call added the counts; `recorded`: entries it wrote.
     */
    async commit(
      executionId: string,
      batch: Batch,
      { entries, claim, extracted, perSuccess, final }: BatchCommit,
    ): Promise<{ counted: boolean; recorded: number }> {
      if (claim?.results)
        return { counted: await count(executionId, batch, perSuccess, withClaim(entries, claim.results)), recorded: 0 };
      const { known, recorded } = await recordEntryByEntry(executionId, entries, extracted);
      const stored = known ?? (await results.get(executionId, batch.indices));
      if (!final && stored.some((entry) => entry.state === 'pending')) return { counted: false, recorded };
      return { counted: await count(executionId, batch, perSuccess, stored), recorded };
    },
  };
}
