// The search index on Amazon OpenSearch Service, through the project's client
// (@opensearch-project/opensearch) signed with SigV4 by its AWS signer, with the credentials of
// the SDK's own provider chain. Queries are the planned queries of the default index in the
// engine's form (opensearch-query.ts); writes go through the bulk API with the engine's
// external versions, so an older or poorer document never replaces a newer or richer one.
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws';
import { SEARCH_INDEX_NAME } from '../../topology/search';
import type { IndexHit, IndexQuery, SearchDocument } from '../../ports/search-index';
import { analyze } from '../../domain/search/text';
import {
  brandStatsBody,
  engineDocument,
  INDEX_BODY,
  needs,
  recentBody,
  searchBody,
  versionOf,
} from './opensearch-query';

export interface OpenSearchOptions {
  /** The domain's endpoint, https://... (a loopback http:// one in tests). */
  node: string;
  region: string;
  /** The SDK client's credential provider (the Lambda role's credentials on AWS). */
  credentials: () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;
  index?: string;
  /** Attempts of a bulk's refused items (429, 5xx) before the batch fails; default 4. */
  bulkAttempts?: number;
  /** The first retry's delay, doubled each time; default 200 ms. */
  retryBaseMs?: number;
  requestTimeoutMs?: number;
}

/** One write: a document to index (unless the engine holds a richer or newer one), or a removal at an instant. */
export type IndexWrite =
  | { doc: SearchDocument }
  | { remove: { key: string; source: SearchDocument['source']; at: string } };

export function openSearchClient(options: OpenSearchOptions): Client {
  return new Client({
    ...AwsSigv4Signer({ region: options.region, service: 'es', getCredentials: options.credentials as never }),
    node: options.node,
    // The client's own retries cover connection errors; refused bulk items are retried below.
    maxRetries: 2,
    requestTimeout: options.requestTimeoutMs ?? 10_000,
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function openSearchIndex(options: OpenSearchOptions, client = openSearchClient(options)) {
  const index = options.index ?? SEARCH_INDEX_NAME;
  const attempts = options.bulkAttempts ?? 4;
  const retryBaseMs = options.retryBaseMs ?? 200;

  const hitsOf = (body: any): { docs: SearchDocument[]; scores: number[]; total: number } => ({
    docs: body.hits.hits.map((hit: any) => hit._source.doc as SearchDocument),
    scores: body.hits.hits.map((hit: any) => Number(hit._score ?? 0)),
    total: typeof body.hits.total === 'number' ? body.hits.total : body.hits.total.value,
  });

  function bulkLines(writes: IndexWrite[]): unknown[] {
    return writes.flatMap((write) => {
      if ('doc' in write) {
        const { doc } = write;
        const action = {
          _index: index,
          _id: doc.key,
          version: versionOf(doc.source, doc.updatedAt),
          version_type: 'external_gte',
        };
        return [{ index: action }, engineDocument(doc)];
      }
      const { key, source, at } = write.remove;
      return [{ delete: { _index: index, _id: key, version: versionOf(source, at), version_type: 'external' } }];
    });
  }

  return {
    index,

    /**
     * Maps the searching functions' roles to read-only access (fine-grained access control: the
     * indexer's role is the master user, nothing else may read before it is mapped), and creates
     * the index with its mappings when it does not exist yet.
     */
    async ensureIndex(readerRoles: readonly string[] = []): Promise<void> {
      if (readerRoles.length)
        await client.transport.request({
          method: 'PUT',
          path: '/_plugins/_security/api/rolesmapping/readall',
          body: { backend_roles: [...readerRoles] },
        });
      const exists = await client.indices.exists({ index });
      if (exists.body === true) return;
      try {
        await client.indices.create({ index, body: INDEX_BODY as never });
      } catch (error: any) {
        // Another indexer made it first.
        if (error?.body?.error?.type !== 'resource_already_exists_exception') throw error;
      }
    },

    /**
     * Writes in bulk requests; items refused for load (429, 5xx) are sent again with backoff. A
     * version conflict is the engine keeping a richer or newer document, and a removal of what is
     * not there has nothing to do: both are done. Anything else, or items still refused after the
     * last attempt, throws (the stream redelivers the batch, then dead-letters it).
     */
    async write(writes: IndexWrite[]): Promise<{ written: number; kept: number; attempts: number }> {
      let pending = writes;
      let written = 0;
      let kept = 0;
      for (let attempt = 1; pending.length; attempt++) {
        if (attempt > 1) await pause(retryBaseMs * 2 ** (attempt - 2));
        const { body } = await client.bulk({ body: bulkLines(pending) as never });
        const retry: IndexWrite[] = [];
        const failed: string[] = [];
        (body.items as any[]).forEach((item, i) => {
          const result = item.index ?? item.delete;
          const status = Number(result.status);
          if (status < 300) written++;
          else if (status === 409 || (item.delete && status === 404)) kept++;
          else if (status === 429 || status >= 500) retry.push(pending[i]);
          else failed.push(`${result._id}: ${status} ${result.error?.type ?? ''} ${result.error?.reason ?? ''}`.trim());
        });
        if (failed.length)
          throw new Error(`OpenSearch refused ${failed.length} writes: ${failed.slice(0, 3).join('; ')}`);
        if (retry.length && attempt >= attempts)
          throw new Error(`OpenSearch still refused ${retry.length} writes after ${attempt} attempts`);
        pending = retry;
        if (!pending.length) return { written, kept, attempts: attempt };
      }
      return { written, kept, attempts: 0 };
    },

    /** The planned query; relaxed to fewer required groups while nothing matches (as the default index). */
    async search(query: IndexQuery): Promise<{ hits: IndexHit[]; total: number }> {
      const [most, least] = needs(query);
      let found = { docs: [] as SearchDocument[], scores: [] as number[], total: 0 };
      for (let need = most; need >= least; need--) {
        const { body } = await client.search({ index, body: searchBody(query, need) as never });
        found = hitsOf(body);
        if (found.total > 0 || need === 0) break;
      }
      return { hits: found.docs.map((doc, i) => ({ doc, score: found.scores[i] })), total: found.total };
    },

    async recent(query: { vendor?: string; updatedSince?: string; offset: number; limit: number }) {
      const { body } = await client.search({ index, body: recentBody(query) as never });
      const { docs, total } = hitsOf(body);
      return { docs, total };
    },

    /** Brand counts and how many documents mention each brand's words (what brandShare reads). */
    async brandStats(): Promise<{ brands: Map<string, number>; mentions: Map<string, number> }> {
      const first = await client.search({ index, body: brandStatsBody([]) as never });
      const brands = new Map<string, number>(
        (first.body.aggregations as any).brands.buckets.map((b: any) => [String(b.key), Number(b.doc_count)]),
      );
      const words = [...new Set([...brands.keys()].flatMap((name) => analyze(name)))];
      const mentions = new Map<string, number>();
      if (words.length) {
        const second = await client.search({ index, body: brandStatsBody(words) as never });
        for (const b of (second.body.aggregations as any).mentions.buckets)
          mentions.set(String(b.key), Number(b.doc_count));
      }
      return { brands, mentions };
    },

    close: () => client.close(),
  };
}

export type OpenSearchIndex = ReturnType<typeof openSearchIndex>;
