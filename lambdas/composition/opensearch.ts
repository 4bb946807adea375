// Search on OpenSearch (deployed with `-c pds:search=opensearch`): the search capability and the
// stream indexer over the domain named by PDS_SEARCH_ENDPOINT, signed with the credentials the
// SDK's clients already resolve (the Lambda role's). The engine's client is loaded on first use,
// so a function deployed with the default index never evaluates it.
import { capability, type Container } from './container';
import { dynamoCatalogRecords, catalogChangeOf } from '../adapters/dynamodb/catalog-feed';
import { batchGet } from '../adapters/dynamodb/batch';
import type { SearchService } from '../domain/search/service';

async function engineOf({ config, clients }: Pick<Container, 'config' | 'clients'>) {
  const { openSearchIndex } = await import('../adapters/search/opensearch');
  return openSearchIndex({
    node: config.searchEndpoint!,
    region: config.region,
    credentials: () => clients.documents.config.credentials(),
  });
}

export function createOpenSearchSearch(container: Pick<Container, 'config' | 'clients'>): SearchService {
  const { config, clients } = container;
  let service: Promise<SearchService> | null = null;
  const load = () =>
    (service ??= Promise.all([engineOf(container), import('../adapters/search/opensearch-search')])
      .then(([engine, { openSearchProductSearch }]) =>
        openSearchProductSearch({ engine, records: dynamoCatalogRecords(clients.documents, config.tableName) }),
      )
      .catch((error) => {
        service = null;
        throw error;
      }));
  return {
    search: async (request) => (await load()).search(request),
    feed: async (request) => (await load()).feed(request),
    refresh: async () => 0,
    ingest: async (changes) => (await load()).ingest(changes),
    save: async () => {},
    cursor: () => null,
  };
}

export const openSearchIndexerOf = capability((base) => {
  let indexer: Promise<{
    handle: (records: any[]) => Promise<{ read: number; written: number; kept: number }>;
  }> | null = null;
  return {
    handle: async (records: any[]) => {
      indexer ??= Promise.all([engineOf(base), import('../adapters/search/opensearch-indexer')]).then(
        ([engine, { openSearchIndexer }]) =>
          openSearchIndexer({
            engine,
            readerRoles: base.config.searchReaderRoles,
            read: (keys) => batchGet(base.clients.documents, base.config.tableName, keys, { consistent: true }),
            changeOf: catalogChangeOf,
          }),
      );
      return (await indexer).handle(records);
    },
  };
});
