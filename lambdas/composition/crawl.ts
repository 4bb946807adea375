// The crawl capability from the container: listing store, catalog (listings/collections reads and
// the end-of-crawl rebuild), workflow steps and API use-cases. Pure: no memo here; the container
// keeps the one instance per process.
import { dynamoListingStore } from '../adapters/dynamodb/listings';
import { createCatalog, type Catalog } from '../domain/listings/catalog';
import { createCrawlSteps, type CrawlSteps } from '../domain/crawl/steps';
import { createCrawlJobs, type CrawlJobs } from '../domain/crawl/jobs';
import type { ListingStore } from '../ports/listings';
import type { PageFetcher } from '../ports/fetcher';
import { faultsConfigured, withCrawlFaults } from './faults';
import type { Container } from './container';

export const CRAWL_WORKFLOW = 'crawl';

export interface Crawl {
  store: ListingStore;
  catalog: Catalog;
  steps: CrawlSteps;
  jobs: CrawlJobs;
}

export function createCrawl(container: Container): Crawl {
  const store = dynamoListingStore(container.clients.documents, container.config.tableName);
  const now = () => container.clock.now();
  const catalog = createCatalog({ store, vendors: container.vendors, now });
  // The fetcher is reached through the container's getter: API reads never build it.
  const build = (fetcher: () => PageFetcher) =>
    createCrawlSteps({ executions: container.executions, store, catalog, fetcher, now });
  const steps = faultsConfigured(container.config.faults)
    ? withCrawlFaults(build, () => container.fetcher, container.config.faults, {
        resend: (message) => container.queue('crawl-work').sendAll([message]),
      })
    : build(() => container.fetcher);
  const jobs = createCrawlJobs({
    executions: container.executions,
    store,
    catalog,
    workflows: container.workflows,
    workflowName: CRAWL_WORKFLOW,
    deadlineSeconds: container.deadlineSeconds(CRAWL_WORKFLOW),
    steps: () => steps,
    extractJobs: () => container.extractJobs,
    now,
  });
  return { store, catalog, steps, jobs };
}
