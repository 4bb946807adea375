// The crawl workflow's Lambda handlers over the container that read no page (the planning steps,
// lost batches, Finalize, the failure step, the work queue's dead letters); the deployed worker
// modules (crawl-*.ts) are one `defineWorker` line each. The handlers that read pages (determine,
// discover, the page worker) are in crawl-page-handlers.ts, so these workers import no fetcher
// and no parser. The end of a crawl (finalize, failure, refusal) settles the vendor-mode
// extractions waiting for it.
import type { SQSRecord } from 'aws-lambda';
import type { Container } from '../composition/container';
import { crawlOf } from '../composition/crawl';
import { crawlPlanningOf } from '../composition/crawl-planning';
import type { CrawlBatchMessage } from '../domain/crawl/steps';
import { taskTokenConsumer } from './define';

export interface WorkMessage extends CrawlBatchMessage {
  TaskToken: string;
  /** Set on an injected duplicate (fault injection), so copies are not copied again. */
  duplicateOf?: string;
}

/** A body that can never be processed is dropped (its Map task then times out into "Record lost listing pages"). */
export function parseWork(record: SQSRecord): WorkMessage | null {
  try {
    const body = JSON.parse(record.body) as Partial<WorkMessage>;
    if (typeof body.crawlId !== 'string' || typeof body.TaskToken !== 'string' || typeof body.wave !== 'number')
      return null;
    const batch = body.batch;
    if (!batch || typeof batch.id !== 'string' || !Array.isArray(batch.pages)) return null;
    if (!batch.pages.every((p) => p && typeof p.url === 'string' && typeof p.seq === 'string' && Number.isInteger(p.n)))
      return null;
    return body as WorkMessage;
  } catch {
    return null;
  }
}

export async function ended<T>(deps: Container, crawlId: string, result: T): Promise<T> {
  await crawlOf(deps).jobs.settleWaiters(crawlId);
  return result;
}

export const crawlHandlers = {
  analyze: (event: { crawlId: string }, deps: Container) => crawlPlanningOf(deps).analyze(event),
  plan: (event: { crawlId: string; wave: number }, deps: Container) => crawlPlanningOf(deps).plan(event),
  lostBatch: (event: CrawlBatchMessage, deps: Container) => crawlPlanningOf(deps).abandonBatch(event),
  finalize: async (event: { crawlId: string }, deps: Container) =>
    ended(deps, event.crawlId, await crawlPlanningOf(deps).finalize(event)),
  fail: async (event: { crawlId: string }, deps: Container) =>
    ended(deps, event.crawlId, await crawlPlanningOf(deps).fail(event)),

  /** Dead-letter consumer: the batch's pages are recorded as failed (the crawl is then incomplete). */
  deadLetters: taskTokenConsumer('crawl-dlq', parseWork, async (message, deps) => {
    const { abandoned } = await crawlPlanningOf(deps).abandonBatch(message);
    return { batchId: message.batch.id, state: 'abandoned', abandoned };
  }),
};
