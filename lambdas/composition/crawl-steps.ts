// The crawl workflow's steps from the container: discovery, page fetching and parsing over the
// crawl capability's listing store and catalog. A capability of its own so that only the crawl's
// workers load it (the API's crawl routes need the jobs, not the crawler).
import { createCrawlSteps, type CrawlSteps } from '../domain/crawl/steps';
import type { PageFetcher } from '../ports/fetcher';
import type { Container } from './container';
import type { Crawl } from './crawl';
import { faultsConfigured, withCrawlFaults } from './faults';

export function createCrawlStepsOf(container: Container, crawl: Crawl): CrawlSteps {
  const now = () => container.clock.now();
  // The fetcher is reached through the container's getter: built on the first page read.
  const build = (fetcher: () => PageFetcher) =>
    createCrawlSteps({ executions: container.executions, store: crawl.store, catalog: crawl.catalog, fetcher, now });
  return faultsConfigured(container.config.faults)
    ? withCrawlFaults(build, () => container.fetcher, container.config.faults, {
        resend: (message) => container.queue('crawl-work').sendAll([message]),
      })
    : build(() => container.fetcher);
}
