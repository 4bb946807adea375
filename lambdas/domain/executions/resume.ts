// After a crash of a runtime whose workflows live in its memory (the local service), the
// executions it left unfinished are restarted from their workflow's first step; on AWS Step
// Functions keeps running them and nothing here is needed. A restart is safe because every step
// of a resumable workflow may run twice (extract: entries move pending -> done once, a batch is
// counted once; crawl: upserts and once-per-batch counts). What cannot be resumed is failed at
// once, saying why, instead of waiting hours for the deadline reaper.
import type { ExecutionStore } from '../../ports/executions';
import type { WorkflowEngine } from '../../ports/workflow';
import { TERMINAL, type Execution } from './model';
import type { Executions } from './service';

export const RESTART_MESSAGE =
  'The service restarted while this execution was running and it could not be resumed; resubmit the request';

/** Sorts after every ISO timestamp: "overdue at the end of time" lists every unfinished execution. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

export interface ResumeDeps {
  store: Pick<ExecutionStore, 'overdue' | 'get'>;
  executions: Pick<Executions, 'fail'>;
  workflows: WorkflowEngine;
  /** workflow name -> the input its first step takes for an execution; absent: not resumable. */
  restartable: Record<string, (executionId: string) => Record<string, unknown>>;
  /** A further check of one execution (e.g. every URL entry was written before the crash). */
  canResume?: (execution: Execution) => Promise<boolean>;
  /** Most executions looked at in one call. */
  limit?: number;
}

export interface ResumeReport {
  /** Workflows started again. */
  resumed: string[];
  /** Failed with RESTART_MESSAGE. */
  failed: string[];
  /** Pending on a crawl (no workflow yet): left as they are; their crawl decides. */
  waiting: string[];
}

export async function resumeUnfinished(deps: ResumeDeps): Promise<ResumeReport> {
  const report: ResumeReport = { resumed: [], failed: [], waiting: [] };
  const ids = await deps.store.overdue(END_OF_TIME, deps.limit ?? 10_000);
  for (const id of ids) {
    const execution = await deps.store.get(id);
    if (!execution || TERMINAL.has(execution.status)) continue;
    if (execution.status === 'pending' && execution.waiting_for) {
      report.waiting.push(id);
      continue;
    }
    if (!execution.workflow) continue;
    const input = deps.restartable[execution.workflow];
    let started = false;
    if (input && (!deps.canResume || (await deps.canResume(execution)))) {
      try {
        await deps.workflows.start(execution.workflow, id, input(id));
        started = true;
      } catch {
        // Not startable (e.g. its definition is gone): failed below, like any other.
      }
    }
    if (started) report.resumed.push(id);
    else if (await deps.executions.fail(id, RESTART_MESSAGE)) report.failed.push(id);
  }
  return report;
}
