// The agentic-search workflow's Lambda handlers over the container (statemachines/
// agentic-search.asl.json, WORKFLOWS agentic); the deployed worker modules (agentic-*.ts) are one
// `defineWorker` line each.
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Container } from '../composition/container';
import type { PlanState, VerifyMessage } from '../domain/agentic/jobs';
import { logger } from '../observability/logger';
import { processSqsBatch } from './define';

interface VerifyWork extends VerifyMessage {
  TaskToken: string;
}

/** A body that can never be processed is dropped (its Map task then times out: the candidate is left unverified). */
function parseVerify(record: SQSRecord): VerifyWork | null {
  try {
    const body = JSON.parse(record.body) as Partial<VerifyWork>;
    const candidate = body.candidate;
    if (typeof body.executionId !== 'string' || typeof body.TaskToken !== 'string') return null;
    if (!candidate || !Number.isInteger(candidate.index) || typeof candidate.url !== 'string') return null;
    const rules = body.rules ?? { inStockOnly: false, avoid: [] };
    if (!Array.isArray(rules.avoid)) return null;
    return {
      executionId: body.executionId,
      candidate,
      enrichment: body.enrichment === true,
      rules,
      TaskToken: body.TaskToken,
    };
  } catch {
    return null;
  }
}

const log = (line: string, fields: Record<string, unknown>) => logger.warn(line, fields);

/**
 * Reports to the waiting Map task. When the execution has already stopped (reaped), its token
 * is dead and the report is dropped; otherwise a failed report is retried with the message.
 */
async function report(deps: Container, message: VerifyWork, output: Record<string, unknown>): Promise<void> {
  try {
    await deps.taskCallbacks.succeed(message.TaskToken, output);
  } catch (error) {
    const execution = await deps.executions.get(message.executionId);
    if (execution?.status === 'running') throw error;
  }
}

/** Messages of one SQS batch, side by side (each is one page read); failures reported per message. */
function eachMessage(
  event: SQSEvent,
  name: string,
  work: (message: VerifyWork) => Promise<void>,
): Promise<SQSBatchResponse> {
  return processSqsBatch(
    event,
    async (record) => {
      const message = parseVerify(record);
      if (!message) return log(`${name}: dropping a malformed message`, { messageId: record.messageId });
      try {
        await work(message);
      } catch (error) {
        log(`${name}: candidate failed, will be retried`, {
          messageId: record.messageId,
          error: (error as Error).message,
        });
        throw error;
      }
    },
    { inParallel: true },
  );
}

export const agenticHandlers = {
  understand: (event: { executionId: string }, deps: Container) => deps.agentic.jobs.steps.understand(event),
  retrieve: (event: PlanState, deps: Container) => deps.agentic.jobs.steps.retrieve(event),
  rank: (event: { executionId: string }, deps: Container) => deps.agentic.jobs.steps.rank(event),
  fail: (event: { executionId: string }, deps: Container) => deps.agentic.jobs.steps.fail(event),

  /** SQS consumer of agentic-verify: one message = one candidate. */
  verify: (event: SQSEvent, deps: Container) =>
    eachMessage(event, 'agentic-verify', async (message) => {
      const outcome = await deps.agentic.jobs.steps.verify(message);
      await report(deps, message, outcome);
    }),

  /** Dead-letter consumer: the candidate is recorded as unverified (dropped), then the Map goes on. */
  deadLetters: (event: SQSEvent, deps: Container) =>
    eachMessage(event, 'agentic-verify-dlq', async (message) => {
      const outcome = await deps.agentic.jobs.steps.abandon(message);
      await report(deps, message, { ...outcome, kept: false });
    }),
};
