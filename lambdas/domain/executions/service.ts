// Executions use-cases shared by crawl, extraction and agentic search: create, read (scoped to the
// caller's organization), list, cancel, progress and the deadline reaper. Reads never write: an
// execution past its deadline is failed by the reaper (reapOverdue, on a schedule) or by a cancel.
import { type AppError, conflict, notFound } from '../errors';
import type { WorkflowEngine } from '../../ports/workflow';
import type { ExecutionPatch, ExecutionStore } from '../../ports/executions';
import type { MetricsRecorder } from '../../ports/metrics';
import type { ExecutionEvents } from '../../ports/execution-events';
import { OUTCOME_CLASS } from '../extraction/types';
import {
  CANCELLED_MESSAGE,
  DEADLINE_MESSAGE,
  GROUP_OF,
  TERMINAL,
  summarize,
  type Execution,
  type ExecutionGroup,
  type ExecutionKind,
  type ExecutionSummary,
  type StatusFilter,
} from './model';
import { kindOfExecutionId, newExecutionId } from './ids';
import type { WebhookSpec } from '../webhooks/model';

/**
 * The caller's execution as stored (a read changes nothing). Unknown id or another org's:
 * NOT_FOUND. Readers that need nothing else of the executions (the webhooks) call it on the store.
 */
export async function findExecution(
  store: Pick<ExecutionStore, 'get'>,
  org: string,
  id: string,
  expectedGroup?: ExecutionGroup,
): Promise<Execution> {
  const kind = kindOfExecutionId(id);
  if (!kind || (expectedGroup && GROUP_OF[kind] !== expectedGroup))
    throw notFound(`Execution ${String(id).slice(0, 100)} not found`);
  const execution = await store.get(id);
  if (!execution || execution.org !== org) throw notFound(`Execution ${id} not found`);
  return execution;
}

export interface ExecutionsDeps {
  store: ExecutionStore;
  workflows: WorkflowEngine;
  now?: () => Date;
  /** Executions started and ended per kind, their durations and the URL outcomes they counted. */
  metrics?: MetricsRecorder;
  /** Told of every new execution with a webhook, state change and progress (webhooks). */
  events?: ExecutionEvents;
}

export interface CreateExecution {
  org: string;
  kind: ExecutionKind;
  /** Vendor host (extract-vendor) or crawled host (crawl); part of the id. */
  subject?: string;
  /** Use this id instead of minting one (when the caller needed it earlier). */
  id?: string;
  options?: Record<string, unknown>;
  input?: Record<string, number>;
  counters?: Record<string, number>;
  workflow?: string | null;
  /** From creation; after it an unfinished execution is failed by the reaper. */
  deadlineSeconds: number;
  waitingFor?: string | null;
  /** Subscribed before the execution is stored: a start with a webhook never runs without it. */
  webhook?: WebhookSpec;
}

export interface Pagination {
  page: number;
  page_size: number;
  total_items: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export function pagination(page: number, pageSize: number, total: number): Pagination {
  const totalPages = Math.ceil(total / pageSize);
  return {
    page,
    page_size: pageSize,
    total_items: total,
    total_pages: totalPages,
    has_next: page < totalPages,
    has_prev: page > 1,
  };
}

export interface ListExecutions {
  org: string;
  group: ExecutionGroup;
  status?: StatusFilter;
  /** 1-based; default 1. */
  page?: number;
  /** 1..100; default 20 (v1 passes its `limit` here). */
  pageSize?: number;
}

export interface ExecutionList {
  items: ExecutionSummary[];
  pagination: Pagination;
}

export type Executions = ReturnType<typeof createExecutions>;

export function createExecutions(deps: ExecutionsDeps) {
  const { store, workflows } = deps;
  const now = deps.now ?? (() => new Date());
  const iso = () => now().toISOString();

  /** What an operator's dashboard shows of an execution that just reached a terminal state. */
  function recordEnd(execution: Execution): void {
    if (!deps.metrics) return;
    const kind = { kind: execution.kind };
    deps.metrics.count('ExecutionsEnded', 1, { ...kind, status: execution.status });
    if (execution.stop_date)
      deps.metrics.milliseconds(
        'ExecutionDuration',
        Date.parse(execution.stop_date) - Date.parse(execution.created_at),
        kind,
      );
    for (const [name, value] of Object.entries(execution.counters)) {
      if (name in OUTCOME_CLASS && value > 0) deps.metrics.count('UrlOutcomes', value, { ...kind, outcome: name });
    }
    // Credits are charged as work finishes; the total is counted once, at the terminal transition.
    const credits = execution.counters.credits ?? 0;
    if (credits > 0) deps.metrics.count('CreditsUsed', credits, kind);
  }

  /** Every state change goes through here, so each terminal transition is recorded once (by its winner). */
  const transition: ExecutionStore['transition'] = async (id, from, to, patch) => {
    const moved = await store.transition(id, from, to, patch);
    if (moved && TERMINAL.has(moved.status)) recordEnd(moved);
    if (moved && deps.events) await deps.events.transitioned(moved).catch(() => undefined);
    return moved;
  };

  async function stopWorkflow(execution: Execution, cause: string): Promise<void> {
    if (!execution.workflow) return;
    try {
      await workflows.stop(execution.workflow, execution.id, cause);
    } catch {
      // The execution item is already terminal and is the only truth: workers and the
      // finalizer check it and do nothing more, so a failed stop only wastes a little work.
    }
  }

  /** Fails an unfinished execution whose deadline has passed; returns the current item. */
  async function reapIfOverdue(execution: Execution): Promise<Execution> {
    if (TERMINAL.has(execution.status) || Date.parse(execution.deadline) > now().getTime()) return execution;
    const failed = await transition(execution.id, ['pending', 'running'], 'failed', {
      error: DEADLINE_MESSAGE,
      stop_date: iso(),
    });
    if (failed) {
      // The execution's workflow died or stalled: the operators' "stalled executions" alarm.
      deps.metrics?.count('StalledExecutionsReaped', 1, { kind: failed.kind });
      await stopWorkflow(failed, DEADLINE_MESSAGE);
      return failed;
    }
    return (await store.get(execution.id)) ?? execution;
  }

  const find = (org: string, id: string, expectedGroup?: ExecutionGroup) =>
    findExecution(store, org, id, expectedGroup);

  return {
    async create(request: CreateExecution): Promise<Execution> {
      const created = now();
      const execution: Execution = {
        id: request.id ?? newExecutionId(request.kind, request.subject),
        org: request.org,
        kind: request.kind,
        status: 'pending',
        error: null,
        created_at: created.toISOString(),
        start_date: null,
        stop_date: null,
        deadline: new Date(created.getTime() + request.deadlineSeconds * 1000).toISOString(),
        options: request.options ?? {},
        input: request.input ?? {},
        counters: request.counters ?? {},
        waiting_for: request.waitingFor ?? null,
        workflow: request.workflow ?? null,
        finalized: false,
      };
      if (request.webhook) {
        if (!deps.events) throw new Error('A webhook needs the execution events listener');
        await deps.events.subscribe(execution, request.webhook);
      }
      await store.create(execution);
      deps.metrics?.count('ExecutionsStarted', 1, { kind: execution.kind });
      if (request.webhook) await deps.events?.created(execution).catch(() => undefined);
      return execution;
    },

    find,

    /** Internal read for workers (no org check). */
    get: (id: string) => store.get(id),

    /** Pending executions waiting for another (vendor-mode extractions for their crawl): the reaper's sweep. */
    waiting: (limit = 100) => store.waiting(limit),

    async list(request: ListExecutions): Promise<ExecutionList> {
      const page = Math.max(1, Math.floor(request.page ?? 1));
      const pageSize = Math.min(100, Math.max(1, Math.floor(request.pageSize ?? 20)));
      const { items, total } = await store.list({
        org: request.org,
        group: request.group,
        status: request.status,
        offset: (page - 1) * pageSize,
        limit: pageSize,
      });
      return { items: items.map(summarize), pagination: pagination(page, pageSize, total) };
    },

    /** pending -> running; null if it is not pending any more (cancelled, reaped). */
    markRunning: (id: string, patch: ExecutionPatch = {}) =>
      transition(id, ['pending'], 'running', { ...patch, start_date: iso() }),

    /** running -> completed with final counters; null if it was cancelled or failed meanwhile. */
    complete: (id: string, patch: ExecutionPatch = {}) =>
      transition(id, ['running'], 'completed', { ...patch, stop_date: iso(), finalized: true, error: null }),

    /** pending|running -> failed; null if already terminal (the first terminal writer wins). */
    async fail(id: string, error: string, patch: ExecutionPatch = {}): Promise<Execution | null> {
      const failed = await transition(id, ['pending', 'running'], 'failed', { ...patch, error, stop_date: iso() });
      if (failed) await stopWorkflow(failed, error);
      return failed;
    },

    update: (id: string, whileIn: Parameters<ExecutionStore['update']>[1], patch: ExecutionPatch) =>
      store.update(id, whileIn, patch),

    async addProgress(id: string, batchId: string, increments: Record<string, number>): Promise<boolean> {
      const applied = await store.addProgress(id, batchId, increments);
      if (applied && deps.events) await deps.events.progressed(id).catch(() => undefined);
      return applied;
    },

    /**
     * Cancels the caller's execution: marks it failed with "Execution was cancelled" and stops
     * its workflow. Finished (an overdue one is reaped first): 409. Pending on a crawl: 409 saying so.
     */
    async cancel(org: string, id: string, expectedGroup?: ExecutionGroup): Promise<Execution> {
      const execution = await reapIfOverdue(await find(org, id, expectedGroup));
      if (TERMINAL.has(execution.status)) throw alreadyFinished(execution);
      if (execution.status === 'pending' && execution.waiting_for) {
        throw conflict(
          `Execution ${id} is waiting for crawl ${execution.waiting_for} and cannot be cancelled; cancel the crawl instead`,
        );
      }
      const cancelled = await transition(id, ['pending', 'running'], 'failed', {
        error: CANCELLED_MESSAGE,
        stop_date: iso(),
      });
      if (!cancelled) {
        const current = await store.get(id);
        throw alreadyFinished(current ?? execution);
      }
      await stopWorkflow(cancelled, CANCELLED_MESSAGE);
      return cancelled;
    },

    /** Fails every overdue execution (bounded per call); run on a schedule. */
    async reapOverdue(options: { limit?: number } = {}): Promise<{ failed: string[] }> {
      const ids = await store.overdue(iso(), options.limit ?? 100);
      const failed: string[] = [];
      for (const id of ids) {
        const execution = await store.get(id);
        if (!execution) continue;
        const after = await reapIfOverdue(execution);
        if (after.status === 'failed' && after.error === DEADLINE_MESSAGE && execution.status !== 'failed')
          failed.push(id);
      }
      return { failed };
    },
  };
}

function alreadyFinished(execution: Execution): AppError {
  return conflict(`Execution ${execution.id} has already finished (${execution.status})`);
}
