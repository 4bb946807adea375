// The local stand-in for Lambda's SQS event source mapping: long-polls each work queue, hands
// the worker an SQSEvent built like Lambda's, and deletes every message except the reported
// batchItemFailures (ReportBatchItemFailures). Failed messages reappear after the visibility
// timeout and reach the DLQ after maxReceiveCount receives (the queue's redrive policy).
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { setMaxListeners } from 'node:events';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueSpec } from '../topology/queues';
import { createLambdaContext, loadWorkerHandler } from './workers';

export interface SqsPollerOptions {
  sqs: SQSClient;
  queues: readonly QueueSpec[];
  /** queue logical name -> URL; DLQs are `<name>-dlq`. */
  queueUrls: Record<string, string>;
  /** Directory of the worker modules; default lambdas/workers/. */
  workersDir?: string;
  /** Replaces the queues' visibility timeout on receive, so failed messages retry sooner. */
  visibilityTimeoutSeconds?: number;
  /** Batches handled at once per queue (Lambda's concurrency for the mapping); default 2. */
  concurrency?: number;
  /** Long-poll wait; default 5 s (stop aborts a waiting poll at once). */
  waitTimeSeconds?: number;
  region?: string;
  log?: (line: string) => void;
}

export interface SqsPollers {
  /** Stops receiving, then waits up to graceMs for batches in flight. */
  stop(graceMs?: number): Promise<void>;
  /** Batches being handled right now, across all queues. */
  readonly inFlight: number;
}

interface PolledQueue {
  name: string;
  url: string;
  arn: string;
  worker: string;
  batchSize: number;
  visibilityTimeoutSeconds: number;
}

const ERROR_BACKOFF_MS = 1000;
const DELETE_BATCH = 10;

export async function startSqsPollers(options: SqsPollerOptions): Promise<SqsPollers> {
  const log = options.log ?? (() => undefined);
  const polled: PolledQueue[] = [];
  for (const spec of options.queues) {
    const common = {
      batchSize: spec.batchSize,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? spec.visibilityTimeoutSeconds,
    };
    polled.push({ name: spec.name, url: urlOf(options.queueUrls, spec.name), arn: '', worker: spec.worker, ...common });
    if (spec.dlqWorker) {
      const dlq = `${spec.name}-dlq`;
      polled.push({ name: dlq, url: urlOf(options.queueUrls, dlq), arn: '', worker: spec.dlqWorker, ...common });
    }
  }
  // One round trip per queue, all at once (start-up waits on them).
  await Promise.all(
    polled.map(async (queue) => {
      const attributes = await options.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['QueueArn'] }),
      );
      queue.arn =
        attributes.Attributes?.QueueArn ?? `arn:aws:sqs:${options.region ?? 'us-east-1'}:000000000000:${queue.name}`;
    }),
  );

  const abort = new AbortController();
  // Every poll loop's receive listens on this one signal: more than Node's default 10 at once is expected.
  setMaxListeners(polled.length * Math.max(1, options.concurrency ?? 2) + 10, abort.signal);
  let stopping = false;
  let inFlight = 0;

  const waitSeconds = options.waitTimeSeconds ?? 5;
  /**
   * The first long poll of loop number `slot` waits 1..waitSeconds s (by slot), the later ones
   * waitSeconds: loops started together would otherwise all come back from an idle queue in the
   * same instant, every waitSeconds, and send their next receives at once (`npm start`: 32 empty
   * answers and 32 receives in one turn of the event loop, every 5 s, which requests in flight
   * wait out). A message still arrives at once: every loop is always in a long poll.
   */
  const firstWait = (slot: number) => (waitSeconds > 1 ? 1 + (slot % waitSeconds) : waitSeconds);

  const pollLoop = async (queue: PolledQueue, slot: number): Promise<void> => {
    let wait = firstWait(slot);
    while (!stopping) {
      let messages: Message[];
      try {
        const received = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: queue.batchSize,
            WaitTimeSeconds: wait,
            VisibilityTimeout: queue.visibilityTimeoutSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = received.Messages ?? [];
        wait = waitSeconds;
      } catch (error) {
        if (stopping) return;
        log(`sqs-poller ${queue.name}: receive failed: ${(error as Error).message}`);
        await sleep(ERROR_BACKOFF_MS, abort.signal);
        continue;
      }
      if (messages.length === 0) continue;
      inFlight++;
      try {
        await handleBatch(queue, messages);
      } catch (error) {
        log(`sqs-poller ${queue.name}: ${(error as Error).message}`);
      } finally {
        inFlight--;
      }
    }
  };

  const handleBatch = async (queue: PolledQueue, messages: Message[]): Promise<void> => {
    const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queue.arn, options.region ?? 'us-east-1')) };
    let failedIds: Set<string>;
    try {
      const handler = await loadWorkerHandler(queue.worker, options.workersDir);
      const context = createLambdaContext({
        functionName: `${queue.name}-${queue.worker}`,
        timeoutMs: queue.visibilityTimeoutSeconds * 1000,
        region: options.region,
      });
      const response = (await handler(event, context)) as SQSBatchResponse | undefined | null;
      failedIds = reportedFailures(response, messages);
    } catch (error) {
      // A thrown handler fails the whole batch: every message comes back after the visibility timeout.
      log(`sqs-poller ${queue.name}: worker ${queue.worker} threw: ${(error as Error).message}`);
      return;
    }
    const done = messages.filter((m) => !failedIds.has(m.MessageId!));
    for (let i = 0; i < done.length; i += DELETE_BATCH) {
      const chunk = done.slice(i, i + DELETE_BATCH);
      await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: chunk.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  };

  const concurrency = Math.max(1, options.concurrency ?? 2);
  const loops = polled.flatMap((queue, q) =>
    Array.from({ length: concurrency }, (_, i) => pollLoop(queue, q * concurrency + i)),
  );

  return {
    get inFlight() {
      return inFlight;
    },
    async stop(graceMs = 5000) {
      if (stopping) return;
      stopping = true;
      abort.abort();
      // Loops exit after their batch in flight; a batch still running after graceMs is left behind.
      const grace = new AbortController();
      await Promise.race([Promise.all(loops).finally(() => grace.abort()), sleep(graceMs, grace.signal)]);
    },
  };
}

/**
 * Lambda's rules: a null/empty response means all succeeded; a failure entry with an empty or
 * unknown itemIdentifier fails the whole batch.
 */
function reportedFailures(response: SQSBatchResponse | undefined | null, messages: Message[]): Set<string> {
  const all = new Set(messages.map((m) => m.MessageId!));
  const failures = response?.batchItemFailures ?? [];
  const failed = new Set<string>();
  for (const failure of failures) {
    if (!failure?.itemIdentifier || !all.has(failure.itemIdentifier)) return all;
    failed.add(failure.itemIdentifier);
  }
  return failed;
}

function toRecord(message: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
      ...(a.DeadLetterQueueSourceArn ? { DeadLetterQueueSourceArn: a.DeadLetterQueueSourceArn } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, v]) => [
        name,
        {
          stringValue: v.StringValue,
          binaryValue: v.BinaryValue ? Buffer.from(v.BinaryValue).toString('base64') : undefined,
          stringListValues: [],
          binaryListValues: [],
          dataType: v.DataType ?? 'String',
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
}

function urlOf(urls: Record<string, string>, name: string): string {
  const url = urls[name];
  if (!url) throw new Error(`No local queue URL for "${name}"`);
  return url;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    // The listener goes with the timer: a long-lived signal must not collect one per sleep.
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
