// Every worker module's `handler`: the Lambda event plus this process's container, so workers
// reach adapters only through the one composition root. Each invocation runs in an X-Ray
// subsegment annotated with the execution id of its event (on Lambda; a no-op locally).
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { getContainer, type Container } from '../composition/container';
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
