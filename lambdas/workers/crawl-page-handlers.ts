// The crawl workflow's Lambda handlers that read pages (Determining crawl method, Discovering
// collections, the work queue's consumer): their workers import the fetcher and the page parsers;
// the others are in crawl-handlers.ts.
import type { Container } from '../composition/container';
import { crawlStepsOf } from '../composition/crawl-steps';
import { ended, parseWork } from './crawl-handlers';
import { taskTokenConsumer } from './define';

export const crawlPageHandlers = {
  async determine(event: { crawlId: string }, deps: Container) {
    const out = await crawlStepsOf(deps).determine(event);
    return out.proceed ? out : ended(deps, event.crawlId, out);
  },
  discover: (event: { crawlId: string }, deps: Container) => crawlStepsOf(deps).discover(event),

  /** SQS consumer: one message = one batch of listing pages; a crashed message is a batch item failure (redelivered). */
  worker: taskTokenConsumer('crawl-worker', parseWork, async (message, deps) => {
    const outcome = await crawlStepsOf(deps).processBatch(message);
    return { batchId: message.batch.id, state: outcome.state };
  }),
};
