// The extraction workflow's Lambda handlers, built over a deps provider so the deployed worker
// modules (extract-*.ts, a few lines each) and tests compose them the same way.
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { JobsDeps } from '../composition/jobs';
import { InjectedFault, type Batch, type BatchMessage } from '../domain/extract-jobs/steps';

type Provide = () => JobsDeps | Promise<JobsDeps>;

interface WorkMessage extends BatchMessage {
  TaskToken: string;
  /** Set on an injected duplicate (fault injection), so copies are not copied again. */
  duplicateOf?: string;
}

/** A body that can never be processed is dropped (its Map task then times out into "Record lost batch"). */
function parseWork(record: SQSRecord): WorkMessage | null {
  try {
    const body = JSON.parse(record.body) as Partial<WorkMessage>;
    const batch = body.batch as Batch | undefined;
    if (typeof body.executionId !== 'string' || typeof body.TaskToken !== 'string') return null;
    if (!batch || typeof batch.id !== 'string' || !Array.isArray(batch.indices) || !batch.indices.every(Number.isInteger)) return null;
    return body as WorkMessage;
  } catch {
    return null;
  }
}

const log = (line: string, fields: Record<string, unknown>) => console.log(JSON.stringify({ level: 'warn', msg: line, ...fields }));

export function extractHandlers(provide: Provide) {
  return {
    prepare: async (event: { executionId: string }) => (await provide()).steps.prepare(event),
    lostBatch: async (event: BatchMessage) => (await provide()).steps.abandonBatch(event),
    finalize: async (event: { executionId: string }) => (await provide()).steps.finalize(event),
    fail: async (event: { executionId: string }) => (await provide()).steps.fail(event),

    /** SQS consumer: one message = one batch; reports crashed messages as batchItemFailures. */
    async worker(event: SQSEvent): Promise<SQSBatchResponse> {
      const deps = await provide();
      const failures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        const message = parseWork(record);
        if (!message) {
          log('extract-worker: dropping a malformed message', { messageId: record.messageId });
          continue;
        }
        try {
          const { crashRate, duplicateRate } = deps.faults;
          if (duplicateRate > 0 && !message.duplicateOf && record.attributes.ApproximateReceiveCount === '1' && Math.random() < duplicateRate) {
            await deps.workQueue().sendAll([{ ...message, duplicateOf: record.messageId }]);
          }
          const crashAt = crashRate > 0 && Math.random() < crashRate ? Math.random() : undefined;
          const outcome = await deps.steps.processBatch(message, { crashAt });
          await deps.taskCallbacks.succeed(message.TaskToken, { batchId: message.batch.id, state: outcome.state });
        } catch (error) {
          if (!(error instanceof InjectedFault)) log('extract-worker: batch failed, will be retried', { messageId: record.messageId, error: (error as Error).message });
          failures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures: failures };
    },

    /** Dead-letter consumer: the batch's pending URLs become other/retry, then the Map goes on. */
    async deadLetters(event: SQSEvent): Promise<SQSBatchResponse> {
      const deps = await provide();
      const failures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        const message = parseWork(record);
        if (!message) continue;
        try {
          const { abandoned } = await deps.steps.abandonBatch(message);
          await deps.taskCallbacks.succeed(message.TaskToken, { batchId: message.batch.id, state: 'abandoned', abandoned });
        } catch (error) {
          log('extract-dlq: recording a dead-lettered batch failed, will be retried', { messageId: record.messageId, error: (error as Error).message });
          failures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures: failures };
    },

    /** Scheduled: fails executions past their deadline (also done on every status read). */
    reaper: async () => (await provide()).executions.reapOverdue({ limit: 200 }),
  };
}
