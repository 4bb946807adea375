// What a crawl that ended early (cancel, failure, reaped) found becomes listed; nothing is
// removed. Used by the crawl's Fail step, the API's cancel and the reaper schedule, which need
// none of the crawl's fetching and parsing (so their Lambda assets do not carry it).
import type { ListingStore } from '../../ports/listings';
import type { Executions } from '../executions/service';
import type { Catalog } from '../listings/catalog';
import { crawlCredits, crawlOptionsOf } from './model';

export interface KeepFoundDeps {
  executions: Executions;
  store: Pick<ListingStore, 'getPlan'>;
  catalog: Pick<Catalog, 'rebuild'>;
}

export function createKeepFound({ executions, store, catalog }: KeepFoundDeps) {
  return async function keepFound(crawlId: string): Promise<void> {
    const execution = await executions.get(crawlId);
    if (!execution) return;
    const options = crawlOptionsOf(execution);
    const plan = await store.getPlan(crawlId);
    const result = await catalog.rebuild({
      vendor: options.vendor,
      displayName: plan?.displayName ?? options.vendor,
      crawlId,
      complete: false,
      maxListings: options.maxListings,
    });
    await executions.update(crawlId, ['failed'], {
      counters: {
        ...execution.counters,
        listings_total: result.listings_found,
        collections_total: result.collections_total,
        credits: crawlCredits(result.listings_found),
      },
    });
  };
}
