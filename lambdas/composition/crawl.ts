// Crawls, listings and collections, vendor-mode extraction: the listing store, the catalog
// (listings/collections reads and the end-of-crawl rebuild) and the API's use-cases. The
// workflow's steps are crawl-planning.ts (no page read) and crawl-steps.ts (the fetcher).
import { dynamoListingStore } from '../adapters/dynamodb/listings';
import { createCatalog, type Catalog } from '../domain/listings/catalog';
import { createCrawlJobs, type CrawlJobs } from '../domain/crawl/jobs';
import { createKeepFound } from '../domain/crawl/keep-found';
import type { ListingStore } from '../ports/listings';
import { capability } from './container';
import { executionsOf } from './executions';
import { extractJobsOf } from './extract-jobs';
import { stepFunctionsOf } from './step-functions';
import { changeLogsOf, changesOf } from './changes';

export const CRAWL_WORKFLOW = 'crawl';

export interface Crawl {
  store: ListingStore;
  catalog: Catalog;
  jobs: CrawlJobs;
}

export const crawlOf = capability((base): Crawl => {
  const store = dynamoListingStore(base.clients.documents, base.config.tableName, changeLogsOf(base));
  const now = () => base.clock.now();
  const executions = executionsOf(base);
  const catalog = createCatalog({ store, vendors: base.vendors, now });
  const jobs = createCrawlJobs({
    executions,
    store,
    catalog,
    workflows: stepFunctionsOf(base).workflows,
    workflowName: CRAWL_WORKFLOW,
    deadlineSeconds: base.deadlineSeconds(CRAWL_WORKFLOW),
    keepFound: createKeepFound({ executions, store, catalog }),
    extractJobs: () => extractJobsOf(base),
    now,
    grantVendors: (org, vendors) => changesOf(base).grant(org, vendors),
  });
  return { store, catalog, jobs };
});
