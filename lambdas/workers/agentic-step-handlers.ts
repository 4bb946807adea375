// The agentic-search workflow's steps that read and write only the execution and its entries
// (Rank, Record failure, the verify queue's dead letters), and the verify queue's message
// handling they share with the verify worker (agentic-verify-handler.ts). A module of its own:
// these workers import neither the search index nor the extraction path.
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { agenticJobsOf } from '../composition/agentic';
import type { Container } from '../composition/container';
import { executionsOf } from '../composition/executions';
import { stepFunctionsOf } from '../composition/step-functions';
import type { VerifyMessage } from '../domain/agentic/jobs';
import { logger } from '../observability/logger';
import { processSqsBatch } from './define';

export interface VerifyWork extends VerifyMessage {
  TaskToken: string;
}

/** A body that can never be processed is dropped (its Map task then times out: the candidate is left unverified). */
export function parseVerify(record: SQSRecord): VerifyWork | null {
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
export async function report(deps: Container, message: VerifyWork, output: Record<string, unknown>): Promise<void> {
  try {
    await stepFunctionsOf(deps).taskCallbacks.succeed(message.TaskToken, output);
  } catch (error) {
    const execution = await executionsOf(deps).get(message.executionId);
    if (execution?.status === 'running') throw error;
  }
}

/** Messages of one SQS batch, side by side (each is one page read); failures reported per message. */
export function eachMessage(
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

export const agenticStepHandlers = {
  rank: (event: { executionId: string }, deps: Container) => agenticJobsOf(deps).steps.rank(event),
  fail: (event: { executionId: string }, deps: Container) => agenticJobsOf(deps).steps.fail(event),

  /** Dead-letter consumer: the candidate is recorded as unverified (dropped), then the Map goes on. */
  deadLetters: (event: SQSEvent, deps: Container) =>
    eachMessage(event, 'agentic-verify-dlq', async (message) => {
      const outcome = await agenticJobsOf(deps).steps.abandon(message);
      await report(deps, message, { ...outcome, kept: false });
    }),
};
