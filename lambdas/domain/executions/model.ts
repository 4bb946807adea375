// The execution item: the one source of truth for the status of a long-running job (crawl,
// extraction, agentic search). Moved only by conditional writes, so two writers never disagree.

import type { ExecutionKind } from '../../topology/metrics';

// Kinds and their groups are metric dimensions too: the table is the topology's.
export { type ExecutionGroup, type ExecutionKind, GROUP_OF } from '../../topology/metrics';
export type ExecutionStatus = 'pending' | 'running' | 'completed' | 'failed';
/** The list filter: `processing` matches pending and running. */
export type StatusFilter = 'processing' | 'completed' | 'failed';

export const TERMINAL: ReadonlySet<ExecutionStatus> = new Set(['completed', 'failed']);

export const statusFilterOf = (status: ExecutionStatus): StatusFilter =>
  status === 'pending' || status === 'running' ? 'processing' : status;

export const CANCELLED_MESSAGE = 'Execution was cancelled';
export const DEADLINE_MESSAGE = 'Execution exceeded its deadline and was stopped';
export const CRAWL_FAILED_MESSAGE = 'The crawl this extraction was waiting for failed or was canceled';

export interface Execution {
  id: string;
  org: string;
  kind: ExecutionKind;
  status: ExecutionStatus;
  /** null unless failed. */
  error: string | null;
  created_at: string;
  /** Set when the execution moves to running. */
  start_date: string | null;
  /** Set when it reaches a terminal state. */
  stop_date: string | null;
  /** After this instant a still-unfinished execution is failed by the reaper. */
  deadline: string;
  /** Request options as given (flags, country, vendor, max_products...). */
  options: Record<string, unknown>;
  /** Counts known at start (e.g. requested, url_count, listings_count). */
  input: Record<string, number>;
  /** Progress counters, added to idempotently per batch (see ExecutionStore.addProgress). */
  counters: Record<string, number>;
  /** A crawl id this execution waits for (vendor-mode extraction), else null. */
  waiting_for: string | null;
  /** Workflow name (topology WORKFLOWS) that runs it, or null for none. */
  workflow: string | null;
  /** Set once the final counts are written: late progress from stragglers is then refused. */
  finalized: boolean;
}

/** What list operations return per execution. */
export interface ExecutionSummary {
  execution_id: string;
  /** List view: `processing` for pending and running. */
  status: StatusFilter;
  /** The exact state, for renderers that want it. */
  state: ExecutionStatus;
  kind: ExecutionKind;
  created_at: string;
}

export const summarize = (execution: Execution): ExecutionSummary => ({
  execution_id: execution.id,
  status: statusFilterOf(execution.status),
  state: execution.status,
  kind: execution.kind,
  created_at: execution.created_at,
});

/** Milliseconds between start and stop (or now while running); null before start. */
export function durationMs(execution: Execution, now: Date): number | null {
  if (!execution.start_date) return null;
  const end = execution.stop_date ? Date.parse(execution.stop_date) : now.getTime();
  return Math.max(0, end - Date.parse(execution.start_date));
}
