// Search answered by OpenSearch, with the default index's query understanding: the domain's
// search service plans each request (understanding, filters, boosts, paging) against a stand-in
// index that keeps the plan, the engine runs the plan, and the hits are read as the service
// reads them. The stand-in knows the catalog's brands from the engine's counts (refreshed every
// few minutes), which is all query understanding asks of an index.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CatalogRecords, IndexQuery, SearchDocument, SearchIndex } from '../../ports/search-index';
import type { CatalogItem, SearchHit } from '../../domain/search/api';
import { createSearchService, type SearchService } from '../../domain/search/service';
import { toCatalogItem } from '../../domain/search/document';
import { analyze } from '../../domain/search/text';
import type { OpenSearchIndex } from './opensearch';

/** How long brand counts are trusted before they are read again. */
const BRAND_STATS_MS = 5 * 60_000;

export interface BrandShares {
  brandShare(normalisedName: string): number;
}

/** brandShare as the default index computes it, from the engine's brand and word counts. */
export function brandSharesOf(stats: { brands: Map<string, number>; mentions: Map<string, number> }): BrandShares {
  return {
    brandShare(name) {
      const count = stats.brands.get(name);
      if (!count) return 0;
      let mentions = Infinity;
      for (const term of analyze(name)) mentions = Math.min(mentions, stats.mentions.get(term) ?? 0);
      return Number.isFinite(mentions) ? count / Math.max(count, mentions) : 1;
    },
  };
}

/**
 * The domain service over a stand-in index: `plan(request)` answers the planned IndexQuery and
 * what was understood, without running it.
 */
export function searchPlanner(brands: () => BrandShares) {
  const slot = new AsyncLocalStorage<{ query?: IndexQuery }>();
  const unused = () => {
    throw new Error('The planning index only plans searches');
  };
  const planning: SearchIndex = {
    search(query) {
      const store = slot.getStore();
      if (store) store.query = query;
      return { hits: [], total: 0 };
    },
    brandShare: (name) => brands().brandShare(name),
    get: () => undefined,
    size: () => 0,
    documents: () => [],
    upsert: unused,
    remove: unused,
    recent: unused,
    exportState: unused,
    importState: unused,
  };
  const service = createSearchService({
    index: planning,
    feed: null,
    records: { get: async () => null },
    snapshots: null,
    now: Date.now,
  });
  return {
    async plan(request: Parameters<SearchService['search']>[0]) {
      const store: { query?: IndexQuery } = {};
      const { understood } = await slot.run(store, () => service.search(request));
      if (!store.query) throw new Error('The search service planned no query');
      return { query: store.query, understood };
    },
  };
}

/** The search capability (the same shape the default index gives) over an OpenSearch index. */
export function openSearchProductSearch(deps: {
  engine: OpenSearchIndex;
  records: CatalogRecords;
  now?: () => number;
  log?: (line: string) => void;
}): SearchService {
  const now = deps.now ?? Date.now;
  let shares: BrandShares = brandSharesOf({ brands: new Map(), mentions: new Map() });
  let statsAt = -Infinity;
  let reading: Promise<void> | null = null;
  async function freshBrands(): Promise<void> {
    if (now() - statsAt < BRAND_STATS_MS) return;
    reading ??= deps.engine
      .brandStats()
      .then((stats) => {
        shares = brandSharesOf(stats);
        statsAt = now();
      })
      // Without counts, brand names are read as words this time (never an outage).
      .catch((error) => deps.log?.(`search: brand counts unread (${(error as Error).message})`))
      .finally(() => (reading = null));
    await reading;
  }
  const planner = searchPlanner(() => shares);

  async function hydrate(docs: SearchDocument[]): Promise<Array<CatalogItem | null>> {
    return Promise.all(
      docs.map(async (doc) => {
        if (doc.record) return toCatalogItem(doc, doc.record);
        if (!doc.ref) return null;
        const stored = await deps.records.get(doc.ref);
        return stored ? toCatalogItem(doc, stored.product) : null;
      }),
    );
  }

  return {
    async search(request) {
      await freshBrands();
      const { query, understood } = await planner.plan(request);
      const { hits, total } = await deps.engine.search(query);
      const items = await hydrate(hits.map((hit) => hit.doc));
      const shown: SearchHit[] = [];
      items.forEach((item, i) => item && shown.push({ item, score: Math.round(hits[i].score * 1e4) / 1e4 }));
      return { hits: shown, total: total - (hits.length - shown.length), understood };
    },
    async feed(request) {
      const { docs, total } = await deps.engine.recent(request);
      const items = await hydrate(docs);
      return { items: items.filter((item): item is CatalogItem => item !== null), total };
    },
    // The stream indexer keeps the engine current: nothing to catch up or save here.
    refresh: async () => 0,
    ingest: unsupportedIngest,
    save: async () => {},
    cursor: () => null,
  };
}

async function unsupportedIngest(): Promise<number> {
  throw new Error('With OpenSearch, documents arrive through the stream indexer');
}
