// The crawl workflow's steps that read pages (determine, discover, processBatch) over the crawl's
// listing store and catalog and the page fetcher; only the crawl's page workers import it.
import { createCrawlSteps, type CrawlSteps } from '../domain/crawl/steps';
import type { PageFetcher } from '../ports/fetcher';
import { capability } from './container';
import { crawlOf } from './crawl';
import { executionsOf } from './executions';
import { faultsConfigured, withCrawlFaults } from './faults';
import { fetcherOf } from './fetcher';

export const crawlStepsOf = capability((base): CrawlSteps => {
  const { config } = base;
  const { store, catalog } = crawlOf(base);
  const now = () => base.clock.now();
  const build = (fetcher: () => PageFetcher) =>
    createCrawlSteps({ executions: executionsOf(base), store, catalog, fetcher, now });
  const fetcher = () => fetcherOf(base);
  return faultsConfigured(config.faults)
    ? withCrawlFaults(build, fetcher, config.faults, {
        resend: (message) => base.queue('crawl-work').sendAll([message]),
      })
    : build(fetcher);
});
