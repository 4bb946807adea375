// The extraction workflow's Lambda handlers over the container; the deployed worker modules
// (extract-*.ts) are one `defineWorker` line each. None of these runs the engine: the batch
// handler that does is extract-batch-handler.ts, so these workers' assets hold no engine.
import type { SQSRecord } from 'aws-lambda';
import type { Container } from '../composition/container';
import { extractPlanningOf } from '../composition/extract-jobs';
import type { Batch, BatchMessage } from '../domain/extract-jobs/steps';
import { taskTokenConsumer } from './define';

interface WorkMessage extends BatchMessage {
  TaskToken: string;
  /** Set on an injected duplicate (lambdas/composition/faults.ts), so copies are not copied again. */
  duplicateOf?: string;
}

/** A body that can never be processed is dropped (its Map task then times out into "Record lost batch"). */
export function parseWork(record: SQSRecord): WorkMessage | null {
  try {
    const body = JSON.parse(record.body) as Partial<WorkMessage>;
    const batch = body.batch as Batch | undefined;
    if (typeof body.executionId !== 'string' || typeof body.TaskToken !== 'string') return null;
    if (
      !batch ||
      typeof batch.id !== 'string' ||
      !Array.isArray(batch.indices) ||
      !batch.indices.every(Number.isInteger)
    )
      return null;
    return body as WorkMessage;
  } catch {
    return null;
  }
}

export const extractHandlers = {
  prepare: (event: { executionId: string }, deps: Container) => extractPlanningOf(deps).prepare(event),
  lostBatch: (event: BatchMessage, deps: Container) => extractPlanningOf(deps).abandonBatch(event),
  finalize: (event: { executionId: string }, deps: Container) => extractPlanningOf(deps).finalize(event),
  fail: (event: { executionId: string }, deps: Container) => extractPlanningOf(deps).fail(event),

  // The extract worker's batch handler (the one that runs the engine) is extract-batch-handler.ts.

  /** Dead-letter consumer: the batch's pending URLs become other/retry, then the Map goes on. */
  deadLetters: taskTokenConsumer('extract-dlq', parseWork, async (message, deps) => {
    const { abandoned } = await extractPlanningOf(deps).abandonBatch(message);
    return { batchId: message.batch.id, state: 'abandoned', abandoned };
  }),
};
