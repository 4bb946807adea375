// The OpenSearch indexer's work for one batch of the table's stream (keys only): the products,
// listings and removed-listing markers it names are read by key (the newest state, whatever
// the stream's order), turned into search documents as the default index builds them, and
// written in bulk. Removals carry the instant of the removal, so the engine's versions decide
// between a removal and a listing stored again, and an extraction always outlives both.
import type { CatalogChange } from '../../ports/search-index';
import { catalogKey, toSearchDocument } from '../../domain/search/document';
import type { IndexWrite, OpenSearchIndex } from './opensearch';
import { SEARCH_INDEXED_KEY_PREFIXES } from '../../topology/search';

/** The part of a DynamoDB stream record the indexer reads. */
export interface StreamRecord {
  eventName?: string;
  dynamodb?: { Keys?: Record<string, { S?: string }> };
}

export interface IndexerDeps {
  engine: Pick<OpenSearchIndex, 'write' | 'ensureIndex'>;
  /** Role ARNs of the functions that search (mapped to read-only access before the first write). */
  readerRoles?: readonly string[];
  /** The items behind these keys (those still there), read consistently. */
  read(keys: Array<{ pk: string; sk: string }>): Promise<Array<Record<string, any>>>;
  /** A stored item as the change it is (adapters/dynamodb/catalog-feed.ts: catalogChangeOf). */
  changeOf(item: Record<string, any>): CatalogChange | null;
}

export async function writesOf(changes: CatalogChange[]): Promise<IndexWrite[]> {
  const writes: IndexWrite[] = [];
  for (const change of changes) {
    if (change.removed) {
      writes.push({ remove: { key: catalogKey(change.url, change.vendor), source: 'listing', at: change.updatedAt } });
    } else if (change.product) {
      writes.push({ doc: await toSearchDocument(change) });
    }
  }
  return writes;
}

export function openSearchIndexer(deps: IndexerDeps) {
  let ready: Promise<void> | null = null;
  return {
    async handle(records: StreamRecord[]): Promise<{ read: number; written: number; kept: number }> {
      // A removed item needs nothing: a listing's removal leaves a marker, which is indexed.
      const keys = new Map<string, { pk: string; sk: string }>();
      for (const record of records) {
        const pk = record.dynamodb?.Keys?.pk?.S;
        const sk = record.dynamodb?.Keys?.sk?.S;
        if (record.eventName === 'REMOVE' || !pk || !sk) continue;
        if (!SEARCH_INDEXED_KEY_PREFIXES.some((prefix) => pk.startsWith(prefix))) continue;
        keys.set(`${pk}\u0000${sk}`, { pk, sk });
      }
      if (!keys.size) return { read: 0, written: 0, kept: 0 };
      ready ??= deps.engine.ensureIndex(deps.readerRoles).catch((error) => {
        ready = null;
        throw error;
      });
      await ready;
      const items = await deps.read([...keys.values()]);
      const changes = items.map(deps.changeOf).filter((change): change is CatalogChange => change !== null);
      const writes = await writesOf(changes);
      if (!writes.length) return { read: items.length, written: 0, kept: 0 };
      const { written, kept } = await deps.engine.write(writes);
      return { read: items.length, written, kept };
    },
  };
}
