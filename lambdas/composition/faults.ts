// Fault injection for tests and benchmarks (Config.faults: PDS_FAULT_RATE, PDS_DUPLICATE_RATE),
// wired only by the composition root and only when configured; the domain has no fault branch.
//
// A crashing worker invocation is a process that dies partway through processBatch and writes
// nothing more. Which invocation crashes, and where, is drawn once per processBatch call; the
// result-store decorator then throws at the matching write, so the domain runs unchanged:
//   - finding the batch claimed already: it dies right after reading the claim (before copying);
//   - "before" (crashAt < 0.5): it dies after extracting and storing the products, before the
//     first result write (the claim, or an entry-by-entry record);
//   - "after": it dies right after its claim is written (neither copied nor counted).
// Only writes made inside processBatch crash: Prepare, the DLQ handler and Finalize never do.
// Duplicate deliveries (SQS at-least-once, made frequent) re-send a batch's message once.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClaimingResultStore } from '../ports/extract-results';
import type { PageFetcher } from '../ports/fetcher';
import type { CrawlBatchMessage, CrawlSteps } from '../domain/crawl/steps';
import {
  createExtractSteps,
  type BatchMessage,
  type ExtractSteps,
  type ExtractStepsDeps,
} from '../domain/extract-jobs/steps';

/** Thrown where an injected crash kills a worker invocation (never in production). */
export class InjectedFault extends Error {
  constructor() {
    super('Injected worker fault');
    this.name = 'InjectedFault';
  }
}

export interface FaultSettings {
  /** Share of processBatch invocations that crash partway. */
  crashRate: number;
  /** Share of batch messages delivered once more. */
  duplicateRate: number;
}

export interface FaultOptions {
  /** [0, 1) source; tests pass a fixed one. */
  random?: () => number;
  /** Sends a batch message to the work queue again (the duplicate delivery). */
  resend?: (message: BatchMessage & { duplicateOf: string }) => Promise<void>;
}

export const faultsConfigured = (settings: FaultSettings) => settings.crashRate > 0 || settings.duplicateRate > 0;

type CrashPoint = 'before' | 'after';

/** The crash point of the processBatch invocation in progress (none outside one). */
const invocation = new AsyncLocalStorage<{ crash: CrashPoint | undefined }>();

/** The result store of a worker that may die partway (see the top of this file). */
export function withCrashingWrites(store: ClaimingResultStore): ClaimingResultStore {
  const crashBefore = () => {
    if (invocation.getStore()?.crash === 'before') throw new InjectedFault();
  };
  return {
    ...store,
    async readBatch(executionId, batch, options) {
      const read = await store.readBatch(executionId, batch, options);
      if (invocation.getStore()?.crash && read.claim?.results) throw new InjectedFault();
      return read;
    },
    async claimBatch(executionId, batchId, results, products) {
      crashBefore();
      const claimed = await store.claimBatch(executionId, batchId, results, products);
      if (invocation.getStore()?.crash === 'after') throw new InjectedFault();
      return claimed;
    },
    async record(executionId, index, result) {
      crashBefore();
      return store.record(executionId, index, result);
    },
  };
}

/**
 * SQS at-least-once delivery, made frequent: re-sends a message once, at the configured rate.
 * Each batch is duplicated at most once per process (the original's first receipt only), and a
 * copy is never copied again.
 */
function duplicateOnce<M extends object>(
  settings: FaultSettings,
  random: () => number,
  resend: ((message: M & { duplicateOf: string }) => Promise<void>) | undefined,
): (message: M, key: string) => Promise<void> {
  const duplicated = new Set<string>();
  return async (message, key) => {
    const copy = (message as { duplicateOf?: string }).duplicateOf;
    if (!resend || settings.duplicateRate <= 0 || copy || duplicated.has(key)) return;
    if (random() >= settings.duplicateRate) return;
    if (duplicated.size >= 100_000) duplicated.clear();
    duplicated.add(key);
    await resend({ ...message, duplicateOf: key });
  };
}

/** Extraction steps whose workers crash and whose messages are delivered twice, at the configured rates. */
export function withFaults(deps: ExtractStepsDeps, settings: FaultSettings, options: FaultOptions = {}): ExtractSteps {
  const random = options.random ?? Math.random;
  const steps = createExtractSteps({ ...deps, results: withCrashingWrites(deps.results) });
  const duplicate = duplicateOnce(settings, random, options.resend);
  return {
    ...steps,
    async processBatch(message) {
      await duplicate(message, `${message.executionId}/${message.batch.id}`);
      const crashAt = settings.crashRate > 0 && random() < settings.crashRate ? random() : undefined;
      const crash: CrashPoint | undefined = crashAt === undefined ? undefined : crashAt < 0.5 ? 'before' : 'after';
      return invocation.run({ crash }, () => steps.processBatch(message));
    },
  };
}

/** Page reads left before the crawl batch in progress dies (none outside a crashing one). */
const crawlInvocation = new AsyncLocalStorage<{ readsLeft: number }>();

/** A fetcher that dies inside a crashing crawl batch once its page reads run out. */
export function withCrashingReads(fetcher: PageFetcher): PageFetcher {
  return {
    async fetch(request) {
      const invocationState = crawlInvocation.getStore();
      if (invocationState && invocationState.readsLeft-- <= 0) throw new InjectedFault();
      return fetcher.fetch(request);
    },
  };
}

/**
 * Crawl steps whose page workers crash partway through a batch (after a random number of its
 * pages, so some listings are already stored) and whose messages are delivered twice. `build`
 * makes the steps over the fetcher it is given: the crashing one.
 */
export function withCrawlFaults(
  build: (fetcher: () => PageFetcher) => CrawlSteps,
  fetcher: () => PageFetcher,
  settings: FaultSettings,
  options: {
    random?: () => number;
    resend?: (message: CrawlBatchMessage & { duplicateOf: string }) => Promise<void>;
  } = {},
): CrawlSteps {
  const random = options.random ?? Math.random;
  const steps = build(() => withCrashingReads(fetcher()));
  const duplicate = duplicateOnce(settings, random, options.resend);
  return {
    ...steps,
    async processBatch(message) {
      await duplicate(message, `${message.crawlId}/${message.batch.id}`);
      if (!(settings.crashRate > 0 && random() < settings.crashRate)) return steps.processBatch(message);
      const readsLeft = Math.floor(random() * message.batch.pages.length);
      return crawlInvocation.run({ readsLeft }, () => steps.processBatch(message));
    },
  };
}
