// SQS work queues; each has a dead-letter queue. Plain data read by CDK and the local runtime.
export interface QueueSpec {
  /** Logical name: CDK id, local queue name, and the key in config. */
  name: string;
  /** Worker handler module under lambdas/workers/ that consumes it (exports `handler`). */
  worker: string;
  batchSize: number;
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the DLQ. */
  maxReceiveCount: number;
  envVar: string;
  /** Worker module that processes messages landing in the dead-letter queue (`<name>-dlq`). */
  dlqWorker?: string;
  /**
   * Sent to by every authenticated route, worker and scheduled function (any of them may move
   * an execution, and each move may enqueue a webhook delivery): CDK grants them SendMessage.
   */
  sentByEveryFunction?: boolean;
  /** Workers (besides the workflows) that send to it: CDK grants them SendMessage. */
  sentBy?: readonly string[];
  /**
   * At most this many worker instances at once (the function's reserved concurrency and the event
   * source's maximum, so SQS never invokes it into throttles that count as receives).
   */
  maxConcurrency?: number;
}

/** The queue of pages handed on to the render worker (the one function that ships Chromium). */
export const RENDER_QUEUE = 'render-work';

export const QUEUES: readonly QueueSpec[] = [
  {
    name: 'extract-work',
    worker: 'extract-worker',
    // Records the URLs of a batch that failed maxReceiveCount times as other/retry, then lets the Map go on.
    dlqWorker: 'extract-dlq',
    batchSize: 1,
    visibilityTimeoutSeconds: 300,
    maxReceiveCount: 3,
    envVar: 'PDS_EXTRACT_QUEUE_URL',
  },
  {
    // The URLs of an extract batch that need a browser (docs/rendering.md), HAND_OFF_URLS
    // (domain/extract-jobs/steps.ts) a message, with the batch's task token: the render worker (the one function that ships
    // Chromium) renders and records them, and the last one to finish a batch reports its task.
    name: 'render-work',
    worker: 'render-worker',
    // A chunk that failed maxReceiveCount times: its pending URLs become other/retry.
    dlqWorker: 'render-dlq',
    batchSize: 1,
    // HAND_OFF_URLS (5) pages of 20 s at most, one after another, plus Chromium's cold start.
    visibilityTimeoutSeconds: 180,
    // A chunk that killed the worker twice (a page that takes Chromium and the process down) is not tried a third time.
    maxReceiveCount: 2,
    envVar: 'PDS_RENDER_QUEUE_URL',
    sentBy: ['extract-worker'],
    maxConcurrency: 10,
  },
  {
    // One message per agentic-search candidate: read its product page, record the verdict, report the task token.
    name: 'agentic-verify',
    worker: 'agentic-verify',
    // A candidate that failed maxReceiveCount times is recorded as unverified (dropped), then the Map goes on.
    dlqWorker: 'agentic-verify-dlq',
    batchSize: 4,
    // One page read (fetch retries included) fits well inside it; three tries fit the Map task's 180 s.
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 3,
    envVar: 'PDS_AGENTIC_QUEUE_URL',
  },
  {
    // One message per batch of listing pages of a crawl (statemachines/crawl.asl.json).
    name: 'crawl-work',
    worker: 'crawl-worker',
    // A batch that failed maxReceiveCount times: its pages are recorded as failed (the crawl is then incomplete).
    dlqWorker: 'crawl-dlq',
    batchSize: 1,
    visibilityTimeoutSeconds: 300,
    maxReceiveCount: 3,
    envVar: 'PDS_CRAWL_QUEUE_URL',
  },
  {
    // One message per webhook delivery attempt; a retry is a new message with DelaySeconds (the
    // backoff) and the attempt number. Sent from any function that moves an execution.
    name: 'webhook-deliveries',
    worker: 'webhook-deliver',
    // A message that kept failing inside the worker (not a receiver's non-2xx: those are retried
    // by the worker itself) is recorded as a failed delivery.
    dlqWorker: 'webhook-dlq',
    batchSize: 10,
    // Ten attempts of at most 10 s each.
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    envVar: 'PDS_WEBHOOK_QUEUE_URL',
    sentByEveryFunction: true,
  },
];
