// Where executions live. The DynamoDB adapter keeps each execution in one item and moves it only
// with single-item conditional updates (no transactions: the embedded engine has none).
import type { Execution, ExecutionGroup, ExecutionStatus, StatusFilter } from '../domain/executions/model';

export interface ExecutionPatch {
  error?: string | null;
  start_date?: string;
  stop_date?: string;
  waiting_for?: string | null;
  /** Merged into `input`. */
  input?: Record<string, number>;
  /** Overwrites these counters (a recount from stored results). */
  counters?: Record<string, number>;
  /** Refuse any later addProgress. */
  finalized?: boolean;
}

export interface ListQuery {
  org: string;
  group: ExecutionGroup;
  status?: StatusFilter;
  offset: number;
  limit: number;
}

export interface ExecutionStore {
  /** Fails if the id exists. */
  create(execution: Execution): Promise<void>;
  get(id: string): Promise<Execution | null>;
  /**
   * Moves the execution to `to` only if its status is one of `from` (and, with `finalized: false`,
   * not yet finalized). Returns the updated execution, or null when the condition did not hold.
   */
  transition(
    id: string,
    from: readonly ExecutionStatus[],
    to: ExecutionStatus,
    patch?: ExecutionPatch,
  ): Promise<Execution | null>;
  /** Sets fields without a state change, only while the status is one of `whileIn`. */
  update(id: string, whileIn: readonly ExecutionStatus[], patch: ExecutionPatch): Promise<Execution | null>;
  /**
   * Adds `increments` to the counters in the same conditional update that adds `batchId` to the
   * set of applied batches: applied at most once per batch id, and never after finalization.
   * Returns false when it was already applied (or the execution is finalized or missing).
   */
  addProgress(id: string, batchId: string, increments: Record<string, number>): Promise<boolean>;
  /** Most recent first; `total` counts every match. */
  list(query: ListQuery): Promise<{ items: Execution[]; total: number }>;
  /** Unfinished executions whose deadline is at or before `now`, oldest deadline first. */
  overdue(now: string, limit: number): Promise<string[]>;
  /** Pending executions that wait for another (vendor-mode extractions for their crawl), at most `limit`. */
  waiting(limit: number): Promise<Array<{ id: string; waitingFor: string }>>;
}
