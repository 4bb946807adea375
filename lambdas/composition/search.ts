// The search capability: the in-process index kept current from the table's change feed, with
// its snapshot under PDS_DATA_DIR locally or in S3 on AWS (written there by the indexer only).
import { join } from 'node:path';
import { capability, type Container } from './container';
import { createMemoryIndex } from '../adapters/search/memory-index';
import { fileSnapshotStore } from '../adapters/search/file-snapshot';
import { createS3SnapshotStore } from '../adapters/search/s3-snapshot';
import { dynamoCatalogFeed, dynamoCatalogRecords } from '../adapters/dynamodb/catalog-feed';
import { createSearchService, type SearchService } from '../domain/search/service';
import type { SnapshotStore } from '../ports/search-index';
import { createOpenSearchSearch } from './opensearch';

/** The snapshot's object key in the bucket and its file name under the data directory. */
export const SEARCH_SNAPSHOT_KEY = 'search/index.json.gz';
/** Locally: a snapshot at most this often after changes (it is a warm start, the table is the truth). */
const LOCAL_SAVE_EVERY_MS = 30_000;

function snapshotStore({ config, clients }: Pick<Container, 'config' | 'clients'>): SnapshotStore | null {
  if (config.dataDir) return fileSnapshotStore(join(config.dataDir, SEARCH_SNAPSHOT_KEY));
  if (config.searchSnapshotBucket)
    return createS3SnapshotStore(clients, config.region, config.searchSnapshotBucket, SEARCH_SNAPSHOT_KEY);
  return null;
}

export function createProductSearch(container: Pick<Container, 'config' | 'clients'>): SearchService {
  const { config, clients } = container;
  // Deployed with `-c pds:search=opensearch`: the domain answers, kept current by its stream indexer.
  if (config.searchEndpoint) return createOpenSearchSearch(container);
  // Throttling and the feed's lag are about wall time, not the business clock tests may fake.
  const now = () => Date.now();
  return createSearchService({
    index: createMemoryIndex(),
    feed: dynamoCatalogFeed(clients.documents, config.tableName, now),
    records: dynamoCatalogRecords(clients.documents, config.tableName),
    snapshots: snapshotStore(container),
    now,
    // On AWS only the indexer writes the snapshot (it calls save()); search Lambdas just read it.
    saveEveryMs: config.dataDir ? LOCAL_SAVE_EVERY_MS : Number.POSITIVE_INFINITY,
  });
}

export const searchOf = capability((base) => createProductSearch(base));
