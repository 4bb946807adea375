// Per-URL entries of an extraction: one per input index, planned pending at start and moved to
// done exactly once (conditional update), so a redelivered batch never records twice.
import type { Outcome, UrlResult } from '../domain/extraction/types';
import type { Execution } from '../domain/executions/model';
import type { ClaimedProduct, SerializedProduct } from './products';

export interface UrlEntry {
  index: number;
  /** The URL exactly as the caller sent it. */
  input: string;
  /** Normalised URL to fetch; null when the input was malformed. */
  url: string | null;
  /** Index of the first entry with the same normalised URL; that one is fetched for both. */
  dup_of: number | null;
  state: 'pending' | 'done';
  result: UrlResult | null;
}

/** An entry without its result: what planning and counting need (its outcome only). */
export type UrlEntryOutline = Omit<UrlEntry, 'result'> & { result: { outcome: Outcome } | null };

export interface ExtractResultStore {
  /** Writes entries as given (pending, or done for malformed input); overwrites. */
  putEntries(executionId: string, entries: UrlEntry[]): Promise<void>;
  /**
   * pending -> done with `result`; false when the entry was already done. Callers record only
   * entries they read (an index never planned may be recorded by a store that plans in chunks).
   */
  record(executionId: string, index: number, result: UrlResult): Promise<boolean>;
  /** The entries at these indices (missing ones left out), in index order. */
  get(executionId: string, indices: number[]): Promise<UrlEntry[]>;
  /** Entries with index >= from, in index order, at most `limit`. */
  range(executionId: string, from: number, limit: number): Promise<UrlEntry[]>;
  /** Every entry in index order (bounded by the largest extraction accepted). */
  all(executionId: string): Promise<UrlEntry[]>;
}

/**
 * One URL's result as a claim takes it: its outcome and the result's JSON, serialized once when
 * the URL was extracted, so a batch keeps flat strings, not every product's object graph, until
 * it claims (the objects die young instead of being copied by each scavenge and promoted).
 */
export interface EncodedResult {
  index: number;
  outcome: Outcome;
  /** JSON of the UrlResult; with `product` given, the JSON's product is null and `product` is it. */
  json: string;
  /** The result's product, serialized apart (its record stores the same). */
  product?: SerializedProduct;
}

/**
 * The one stored outcome of a batch: the outcome of each index the first writer stored a result
 * for (readers take the results themselves from the store), or null when they were too large
 * for one item and the entries are recorded one by one instead.
 */
export interface BatchClaim {
  batchId: string;
  results: Map<number, { outcome: Outcome }> | null;
  /**
   * The products the winner stored and which of them it found new (no first-seen mark when it
   * read the batch): the claim decides, so their marks go in batch writes, not one conditional
   * write each. Empty for claims without products.
   */
  products: ClaimedProduct[];
}

/** A result store that can write an extraction's planned entries as a few items (putPlan). */
export interface PlanningResultStore extends ExtractResultStore {
  /**
   * Writes the entries of a new extraction (pending, or done for malformed input), as putEntries
   * but for entries that exist nowhere yet: the store may keep pending ones in a few plan items.
   */
  putPlan(executionId: string, entries: UrlEntry[]): Promise<void>;
}

/**
 * The result store with batch claims (the DynamoDB adapter): a batch's results are stored by one
 * conditional write that only the first writer wins, which makes its entries done, instead of one
 * conditional write per entry.
 */
export interface ClaimingResultStore extends PlanningResultStore {
  /**
   * The batch's entries (as get()) and its claim, in one read (one BatchGet) until the batch has
   * a claim (then a second for the entries' own items); with `withExecution`, the execution
   * item too (null when missing), in the first read.
   */
  readBatch(
    executionId: string,
    batch: { id: string; indices: number[] },
    options?: { withExecution?: boolean },
  ): Promise<{ entries: UrlEntry[]; claim: BatchClaim | null; execution?: Execution | null }>;
  /**
   * Stores the claim unless one exists; returns the claim that holds (this one when won). A claim
   * with results is where its entries are done: readers see each entry it holds a result for and
   * that is still pending as done with that result (nothing is written per entry). An entry done
   * on its own (record) keeps its own result.
   */
  claimBatch(
    executionId: string,
    batchId: string,
    results: ReadonlyArray<EncodedResult>,
    products?: readonly ClaimedProduct[],
  ): Promise<{ won: boolean; claim: BatchClaim }>;
  /** Every claim of the execution by batch id. */
  claims(executionId: string): Promise<Map<string, BatchClaim>>;
  /** Every entry in index order without its result (its outcome only): a fraction of all()'s data. */
  outlines(executionId: string): Promise<UrlEntryOutline[]>;
}
