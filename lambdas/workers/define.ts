// Every worker module's `handler`: the Lambda event plus this process's base container, over
// which workers reach their capabilities (lambdas/composition/<capability>.ts). Each invocation runs in an X-Ray
// subsegment annotated with the execution id of its event (on Lambda; a no-op locally).
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { getContainer, type Container } from '../composition/container';
import { InjectedFault } from '../composition/faults';
import { stepFunctionsOf } from '../composition/step-functions';
import { logger } from '../observability/logger';
import { ANNOTATIONS, executionIdOf, prepareTracing, traced } from '../observability/tracing';

export type WorkerImpl<E, R> = (event: E, deps: Container, context?: Context) => Promise<R>;

async function tracedInvocation<R>(
  event: unknown,
  deps: Container,
  context: Context | undefined,
  work: () => Promise<R>,
): Promise<R> {
  await prepareTracing(deps);
  return traced(
    `## ${context?.functionName ?? 'worker'}`,
    { [ANNOTATIONS.executionId]: executionIdOf(event), [ANNOTATIONS.worker]: context?.functionName },
    work,
  );
}

export function defineWorker<E, R>(impl: WorkerImpl<E, R>): (event: E, context?: Context) => Promise<R> {
  return (event, context) => {
    const deps = getContainer();
    return tracedInvocation(event, deps, context, () => impl(event, deps, context));
  };
}

/**
 * Runs an SQS batch through Powertools' batch processor: a record whose handler throws is
 * reported in `batchItemFailures` (redelivered, then dead-lettered); the others are deleted.
 * A fresh processor per invocation, because the local runtime runs several batches of one
 * worker at once in one process.
 */
export function processSqsBatch(
  event: SQSEvent,
  handleRecord: (record: SQSRecord) => Promise<void>,
  options: { inParallel?: boolean } = {},
): Promise<SQSBatchResponse> {
  return processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), {
    throwOnFullBatchFailure: false,
    processInParallel: options.inParallel ?? false,
  });
}

/**
 * An SQS consumer of a workflow's fan-out: each message carries a Step Functions task token, and
 * the work's output reports the task's success (null: the work was handed on with the token, and
 * whoever finishes it reports). A body that can never be processed is dropped (its Map task then
 * times out into the workflow's lost-batch step); a failed message is retried.
 */
export function taskTokenConsumer<M extends { TaskToken: string }>(
  name: string,
  parse: (record: SQSRecord) => M | null,
  work: (message: M, deps: Container) => Promise<Record<string, unknown> | null>,
): (event: SQSEvent, deps: Container) => Promise<SQSBatchResponse> {
  return (event, deps) =>
    processSqsBatch(event, async (record) => {
      const message = parse(record);
      if (!message) return logger.warn(`${name}: dropping a malformed message`, { messageId: record.messageId });
      try {
        const output = await work(message, deps);
        if (output) await stepFunctionsOf(deps).taskCallbacks.succeed(message.TaskToken, output);
      } catch (error) {
        // An injected crash (benchmarks, tests) is expected: the redelivery is the point.
        if (!(error instanceof InjectedFault)) {
          logger.warn(`${name}: message failed, will be retried`, {
            messageId: record.messageId,
            error: (error as Error).message,
          });
        }
        throw error;
      }
    });
}
