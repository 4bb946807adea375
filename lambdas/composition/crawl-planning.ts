// The crawl workflow's planning steps from the container (Analyzing collections, the next waves,
// lost batches, Finalize, the failure step): over the crawl capability's listing store and
// catalog, without the fetcher or the page parsers. A capability of its own so that the crawl
// workers that never read a page load neither (container.crawlSteps routes each member).
import { createCrawlPlanning, type CrawlPlanning } from '../domain/crawl/planning';
import type { Container } from './container';
import type { Crawl } from './crawl';

export function createCrawlPlanningOf(container: Pick<Container, 'executions'>, crawl: Crawl): CrawlPlanning {
  return createCrawlPlanning({ executions: container.executions, store: crawl.store, catalog: crawl.catalog });
}
