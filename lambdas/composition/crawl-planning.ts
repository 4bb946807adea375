// The crawl workflow's planning steps (Analyzing collections, the next waves, lost batches,
// Finalize, the failure step) over the crawl's listing store and catalog, without the fetcher or
// the page parsers: the workers that never read a page import this module, not crawl-steps.ts.
import { createCrawlPlanning, type CrawlPlanning } from '../domain/crawl/planning';
import { capability } from './container';
import { crawlOf } from './crawl';
import { executionsOf } from './executions';

export const crawlPlanningOf = capability((base): CrawlPlanning => {
  const { store, catalog } = crawlOf(base);
  return createCrawlPlanning({ executions: executionsOf(base), store, catalog });
});
