// The crawl capability from the container: listing store, catalog (listings/collections reads and
// the end-of-crawl rebuild), workflow steps and API use-cases. Pure: no memo here; the container
// keeps the one instance per process.
import { dynamoListingStore } from '../adapters/dynamodb/listings';
import { createCatalog, type Catalog } from '../domain/listings/catalog';
import { createCrawlJobs, type CrawlJobs } from '../domain/crawl/jobs';
import { createKeepFound } from '../domain/crawl/keep-found';
import type { ListingStore } from '../ports/listings';
import type { Container } from './container';

export const CRAWL_WORKFLOW = 'crawl';

export interface Crawl {
  store: ListingStore;
  catalog: Catalog;
  jobs: CrawlJobs;
}

export function createCrawl(container: Container): Crawl {
  const store = dynamoListingStore(container.clients.documents, container.config.tableName);
  const now = () => container.clock.now();
  const catalog = createCatalog({ store, vendors: container.vendors, now });
  const jobs = createCrawlJobs({
    executions: container.executions,
    store,
    catalog,
    workflows: container.workflows,
    workflowName: CRAWL_WORKFLOW,
    deadlineSeconds: container.deadlineSeconds(CRAWL_WORKFLOW),
    // The workflow's steps are a capability of their own (container.crawlSteps, crawl-steps.ts).
    keepFound: createKeepFound({ executions: container.executions, store, catalog }),
    extractJobs: () => container.extractJobs,
    now,
  });
  return { store, catalog, jobs };
}
