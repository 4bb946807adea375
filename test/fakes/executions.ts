// In-memory fakes of the executions ports, with the adapter's semantics (conditional moves,
// batch-once counters, finalization, newest-first lists), so use-cases are tested in
// milliseconds without engines. test/integration/executions.test.ts runs the same rules on the
// real DynamoDB adapter.
import { GROUP_OF, TERMINAL, statusFilterOf, type Execution } from '../../lambdas/domain/executions/model';
import type { ExecutionPatch, ExecutionStore } from '../../lambdas/ports/executions';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';
import type { MetricsRecorder } from '../../lambdas/ports/metrics';

const copy = <T>(value: T): T => structuredClone(value);

function applyPatch(execution: Execution & { batches?: Set<string> }, patch: ExecutionPatch): void {
  const { input, counters, ...fields } = patch;
  Object.assign(execution, fields);
  if (input) execution.input = { ...execution.input, ...input };
  if (counters) execution.counters = { ...execution.counters, ...counters };
}

export function memoryExecutionStore(): ExecutionStore & { items: Map<string, Execution> } {
  const items = new Map<string, Execution & { batches?: Set<string> }>();
  const bare = (e: Execution & { batches?: Set<string> }): Execution => {
    const { batches, ...rest } = e;
    void batches;
    return copy(rest);
  };
  return {
    items,
    async create(execution) {
      if (items.has(execution.id))
        throw Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' });
      items.set(execution.id, { ...copy(execution), batches: new Set() });
    },
    async get(id) {
      const found = items.get(id);
      return found ? bare(found) : null;
    },
    async transition(id, from, to, patch = {}) {
      const current = items.get(id);
      if (!current || !from.includes(current.status)) return null;
      if (patch.finalized === false && current.finalized) return null;
      current.status = to;
      applyPatch(current, patch);
      return bare(current);
    },
    async update(id, whileIn, patch) {
      const current = items.get(id);
      if (!current || !whileIn.includes(current.status)) return null;
      applyPatch(current, patch);
      return bare(current);
    },
    async addProgress(id, batchId, increments) {
      const current = items.get(id);
      if (!current || current.finalized || current.batches?.has(batchId)) return false;
      current.batches?.add(batchId);
      for (const [name, n] of Object.entries(increments)) current.counters[name] = (current.counters[name] ?? 0) + n;
      return true;
    },
    async list(query) {
      const matching = [...items.values()]
        .filter((e) => e.org === query.org && GROUP_OF[e.kind] === query.group)
        .filter((e) => query.status === undefined || statusFilterOf(e.status) === query.status)
        .sort((a, b) =>
          a.created_at === b.created_at ? b.id.localeCompare(a.id) : b.created_at.localeCompare(a.created_at),
        );
      return { items: matching.slice(query.offset, query.offset + query.limit).map(bare), total: matching.length };
    },
    async overdue(now, limit) {
      return [...items.values()]
        .filter((e) => !TERMINAL.has(e.status) && e.deadline <= now)
        .sort((a, b) => a.deadline.localeCompare(b.deadline))
        .slice(0, limit)
        .map((e) => e.id);
    },
    async waiting(limit) {
      return [...items.values()]
        .filter((e) => e.status === 'pending' && e.waiting_for)
        .slice(0, limit)
        .map((e) => ({ id: e.id, waitingFor: e.waiting_for! }));
    },
  };
}

export function recordingWorkflows(): WorkflowEngine & {
  started: string[];
  stopped: Array<{ id: string; cause: string }>;
} {
  const started: string[] = [];
  const stopped: Array<{ id: string; cause: string }> = [];
  return {
    started,
    stopped,
    async start(_workflow, executionId) {
      started.push(executionId);
    },
    async stop(_workflow, executionId, cause) {
      stopped.push({ id: executionId, cause });
    },
  };
}

/** A clock the test moves by hand. */
export function fakeClock(start = '2026-06-01T12:00:00.000Z') {
  let at = Date.parse(start);
  return {
    now: () => new Date(at),
    advance(ms: number) {
      at += ms;
    },
  };
}

export function recordingMetrics(): MetricsRecorder & {
  points: Array<{ name: string; value: number; dimensions: Record<string, string> }>;
} {
  const points: Array<{ name: string; value: number; dimensions: Record<string, string> }> = [];
  return {
    points,
    count: (name, value = 1, dimensions = {}) => void points.push({ name, value, dimensions }),
    milliseconds: (name, value, dimensions = {}) => void points.push({ name, value, dimensions }),
  };
}
