// The OpenSearch adapter on the wire, against a loopback server that speaks the engine's HTTP
// API (the part the adapter uses): every request signed with SigV4 for the `es` service by the
// client's AWS signer; the stream indexer reads the items a keys-only batch names from the
// embedded DynamoDB and writes them in one NDJSON bulk request with external versions (a
// removal as a versioned delete), sends refused items again, and fails the batch on a
// rejection; a search sends the body built from the planned query, relaxes when nothing
// matches, and answers hits with their records.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { openSearchIndex } from '../../lambdas/adapters/search/opensearch';
import { openSearchIndexer } from '../../lambdas/adapters/search/opensearch-indexer';
import { openSearchProductSearch, searchPlanner } from '../../lambdas/adapters/search/opensearch-search';
import { searchBody, versionOf } from '../../lambdas/adapters/search/opensearch-query';
import { catalogChangeOf } from '../../lambdas/adapters/dynamodb/catalog-feed';
import { batchGet } from '../../lambdas/adapters/dynamodb/batch';
import { dynamoProductStore } from '../../lambdas/adapters/dynamodb/products';
import { dynamoListingStore } from '../../lambdas/adapters/dynamodb/listings';
import { catalogKey, listingAsProduct, toSearchDocument } from '../../lambdas/domain/search/document';
import { catalogStores, enrichedRecord } from '../bench/_search-catalog';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let node: string;
let engines: Engines;
let documents: DynamoDBDocumentClient;
const seen: Seen[] = [];
/** What the server answers next, per request: a function of the request. */
let answer: (request: Seen) => { status: number; body?: unknown } = () => ({ status: 404 });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  engines = await startEngines();
  documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: engines.dynamodbEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
}, 30_000);

afterAll(async () => {
  documents?.destroy();
  await engines?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

const credentials = async () => ({
  accessKeyId: 'AKIDWIRETEST',
  secretAccessKey: 'wire-secret',
  sessionToken: 'wire-token',
});
const engine = () => openSearchIndex({ node, region: 'eu-west-1', credentials, retryBaseMs: 1 });
const ndjson = (body: string) =>
  body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

function expectSigned(request: Seen) {
  expect(request.headers.authorization).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIDWIRETEST\/\d{8}\/eu-west-1\/es\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/,
  );
  expect(request.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
  expect(request.headers['x-amz-security-token']).toBe('wire-token');
}

const [store] = catalogStores(5);

describe('the stream indexer', () => {
  it('reads what a batch names and writes it in one signed bulk request, removals as versioned deletes', async () => {
    const p = store.product(0);
    const record = await enrichedRecord(store, p);
    await dynamoProductStore(documents, engines.tableName).put({
      url: p.url,
      country: 'us',
      vendor: store.host,
      product: record,
      flags: { enrichment: true, reviews: false, image_tags: false, similar_products: false },
      updated_at: '2026-03-01T10:00:00.000Z',
    });
    const listings = dynamoListingStore(documents, engines.tableName);
    const listedUrl = 'https://wire.test/products/kept-mug';
    const goneUrl = 'https://wire.test/products/gone-mug';
    await listings.upsert(
      'wire.test',
      'Wire',
      'crawl-wire-test-00000000000000000001',
      [listedUrl, goneUrl].map((url, order) => ({
        listing: {
          url,
          name: 'Enamel Mug',
          images: [],
          price: { currency: 'USD', current_value: 12, compare_at_value: null },
        },
        order,
      })),
      '2026-03-01T10:00:01.000Z',
    );
    await listings.removeListings('wire.test', [goneUrl]);
    // The keys a keys-only stream batch carries: every item written above (and one it ignores).
    const out = await documents.send(new ScanCommand({ TableName: engines.tableName, ProjectionExpression: 'pk, sk' }));
    const records = (out.Items ?? []).map((item) => ({
      eventName: 'INSERT',
      dynamodb: { Keys: { pk: { S: item.pk as string }, sk: { S: item.sk as string } } },
    }));
    records.push({
      eventName: 'REMOVE',
      dynamodb: { Keys: { pk: { S: `LISTING#wire.test` }, sk: { S: `U#${goneUrl}` } } },
    });

    let bulkCalls = 0;
    answer = (request) => {
      if (request.method === 'PUT' && request.url === '/_plugins/_security/api/rolesmapping/readall')
        return { status: 200, body: { status: 'OK' } };
      if (request.method === 'HEAD' && request.url === '/products') return { status: 404 };
      if (request.method === 'PUT' && request.url === '/products') return { status: 200, body: { acknowledged: true } };
      if (request.method === 'POST' && request.url === '/_bulk') {
        bulkCalls++;
        const actions = ndjson(request.body).filter((line) => line.index || line.delete);
        // The first time, the engine is busy for the first item and holds a richer copy of the second.
        return {
          status: 200,
          body: {
            errors: true,
            items: actions.map((action, i) => {
              const op = action.index ? 'index' : 'delete';
              const status = bulkCalls === 1 && i === 0 ? 429 : bulkCalls === 1 && i === 1 ? 409 : 201;
              return { [op]: { _index: 'products', _id: action[op]._id, status } };
            }),
          },
        };
      }
      return { status: 400, body: { error: { type: 'unexpected', reason: `${request.method} ${request.url}` } } };
    };

    const indexer = openSearchIndexer({
      engine: engine(),
      readerRoles: ['arn:aws:iam::123456789012:role/search-reader'],
      read: (wanted) => batchGet(documents, engines.tableName, wanted, { consistent: true }),
      changeOf: catalogChangeOf,
    });
    const result = await indexer.handle(records);

    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'PUT /_plugins/_security/api/rolesmapping/readall',
      'HEAD /products',
      'PUT /products',
      'POST /_bulk',
      'POST /_bulk',
    ]);
    for (const request of seen) expectSigned(request);
    expect(JSON.parse(seen[0].body)).toEqual({ backend_roles: ['arn:aws:iam::123456789012:role/search-reader'] });
    expect(JSON.parse(seen[2].body).mappings.properties.t_title).toEqual({
      type: 'text',
      analyzer: 'whitespace',
      similarity: 'BM25',
    });
    expect(seen[3].headers['content-type']).toMatch(/application\/(x-ndjson|json)/);

    const lines = ndjson(seen[3].body);
    const actions = lines.filter((line) => line.index || line.delete);
    const byId = new Map(actions.map((a) => [(a.index ?? a.delete)._id, a]));
    const productKey = catalogKey(p.url, store.host);
    expect(byId.get(productKey)).toEqual({
      index: {
        _index: 'products',
        _id: productKey,
        version: versionOf('extraction', '2026-03-01T10:00:00.000Z'),
        version_type: 'external_gte',
      },
    });
    expect(byId.get(catalogKey(listedUrl, 'wire.test'))?.index.version).toBe(
      versionOf('listing', '2026-03-01T10:00:01.000Z'),
    );
    const removal = byId.get(catalogKey(goneUrl, 'wire.test'));
    expect(removal?.delete).toMatchObject({ _index: 'products', version_type: 'external' });
    expect(removal?.delete.version).toBeGreaterThan(versionOf('listing', '2026-03-01T10:00:01.000Z'));
    expect(actions).toHaveLength(3);
    // The document after the product's action is the engine's form of its search document.
    const productDoc = lines[lines.indexOf(byId.get(productKey)) + 1];
    expect(productDoc.doc).toEqual(
      await toSearchDocument({
        source: 'extraction',
        url: p.url,
        vendor: store.host,
        updatedAt: '2026-03-01T10:00:00.000Z',
        country: 'us',
        product: record,
      }),
    );
    // Only the refused item went again.
    expect(ndjson(seen[4].body)[0]).toEqual(actions[0]);
    expect(ndjson(seen[4].body).filter((line) => line.index || line.delete)).toHaveLength(1);
    // Four items read: the product, its first-seen mark (not a change), the listing and the removal marker.
    expect(result).toEqual({ read: 4, written: 2, kept: 1 });
  }, 30_000);

  it('fails the batch when the engine rejects a document, and after the last attempt of a refused one', async () => {
    const doc = await toSearchDocument({
      source: 'listing',
      url: 'https://wire.test/products/x',
      vendor: 'wire.test',
      updatedAt: '2026-03-01T10:00:00.000Z',
      country: null,
      product: listingAsProduct({
        id: 'x',
        url: 'https://wire.test/products/x',
        name: 'X',
        images: [],
        price: { currency: null, current_value: null, compare_at_value: null },
        vendor: 'wire.test',
        last_updated_by_service: '2026-03-01T10:00:00.000Z',
      }),
    });
    answer = () => ({
      status: 200,
      body: {
        errors: true,
        items: [{ index: { _id: doc.key, status: 400, error: { type: 'mapper_parsing_exception', reason: 'bad' } } }],
      },
    });
    await expect(engine().write([{ doc }])).rejects.toThrow(/refused 1 writes: .*400 mapper_parsing_exception bad/);
    answer = () => ({ status: 200, body: { errors: true, items: [{ index: { _id: doc.key, status: 503 } }] } });
    seen.length = 0;
    await expect(engine().write([{ doc }])).rejects.toThrow(/still refused 1 writes after 4 attempts/);
    expect(seen.filter((r) => r.url === '/_bulk')).toHaveLength(4);
  });
});

describe('search through the engine', () => {
  it('sends the planned body, relaxes when nothing matches all words, and reads the records of the hits', async () => {
    const p = store.product(1);
    const record = await enrichedRecord(store, p);
    const doc = await toSearchDocument({
      source: 'extraction',
      url: p.url,
      vendor: store.host,
      updatedAt: '2026-03-01T10:00:00.000Z',
      country: 'us',
      product: record,
    });
    let searches = 0;
    answer = (request) => {
      if (request.url === '/products/_search' && request.method === 'POST') {
        const body = JSON.parse(request.body);
        if (body.aggs)
          return {
            status: 200,
            body: { hits: { total: { value: 0 }, hits: [] }, aggregations: { brands: { buckets: [] } } },
          };
        searches++;
        const hits = searches === 1 ? [] : [{ _id: doc.key, _score: 4.25, _source: { doc } }];
        return { status: 200, body: { hits: { total: { value: hits.length, relation: 'eq' }, hits } } };
      }
      return { status: 400 };
    };
    const requested: string[] = [];
    const search = openSearchProductSearch({
      engine: engine(),
      records: {
        get: async (ref) => {
          requested.push(ref.url);
          return { product: record, updatedAt: doc.updatedAt };
        },
      },
    });
    const request = { query: 'organic cotton hoodie zebra', mode: 'understand' as const, offset: 0, limit: 5 };
    const result = await search.search(request);

    const planned = await searchPlanner(() => ({ brandShare: () => 0 })).plan(request);
    const bodies = seen.filter((r) => r.url === '/products/_search').map((r) => JSON.parse(r.body));
    expect(bodies[0].aggs).toBeDefined();
    const queries = bodies.filter((b) => !b.aggs);
    expect(queries).toHaveLength(2);
    expect(queries[0]).toEqual(JSON.parse(JSON.stringify(searchBody(planned.query))));
    expect(queries[1]).toEqual(JSON.parse(JSON.stringify(searchBody(planned.query, planned.query.groups.length - 1))));
    for (const r of seen) expectSigned(r);
    expect(result.total).toBe(1);
    expect(result.hits).toEqual([
      { item: expect.objectContaining({ key: doc.key, url: p.url, product: record }), score: 4.25 },
    ]);
    expect(result.understood).toEqual(planned.understood);
    expect(requested).toEqual([p.url]);
  });
});
