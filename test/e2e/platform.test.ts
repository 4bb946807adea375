// The platform surface over real HTTP: auth, scopes, family error shapes, fallback 404/405,
// body limits, validation, usage, vendors, every route answering, and every response checked
// against the served OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type Scope } from '../../lambdas/topology/routes';
import { recordProductSeen } from '../../lambdas/domain/vendors/service';
import { hourBucket } from '../../lambdas/domain/usage/periods';
import { startTestService, type TestResponse, type TestService } from './helpers/service';
import { startWorkflows } from './helpers/workflows';
import { validateResponse } from './helpers/openapi-validator';

let service: TestService;
let doc: Record<string, any>;
let fullKey: string;
const checked: string[] = [];

/** Every response in this file goes through here, so each one is checked against the document. */
async function call(
  method: string,
  path: string,
  options: Parameters<TestService['request']>[2] = {},
): Promise<TestResponse> {
  const response = await service.request(method, path, options);
  const errors = validateResponse(doc, {
    method,
    path,
    status: response.status,
    headers: response.headers,
    body: response.body,
  });
  expect(errors).toEqual([]);
  checked.push(`${method} ${path} ${response.status}`);
  return response;
}

const AUTH_REQUIRED = { error: 'API key required (x-api-key header or Authorization: Bearer)', status: 401 };
const INVALID_KEY = { error: 'Invalid API key', status: 401 };

/** A valid request for each operation (path parameters filled in). */
// Built operations that do not answer 200 to a valid call: status and cancel of an id that does
// not exist are 404.
const EXPECTED_STATUS: Record<string, number> = {
  v1ProductsStatus: 404,
  v1ProductsCancel: 404,
  v2ExtractStatus: 404,
  v2ExtractCancel: 404,
  v2AgenticSearchStart: 202,
  v2AgenticSearchStatus: 404,
  // Crawl and catalog: shop.example is never crawled successfully (it does not resolve), so its
  // listings and collections are 404; unknown crawl and extraction ids are 404.
  v1Listings: 404,
  v1Collections: 404,
  v2Listings: 404,
  v2Collections: 404,
  v1ExtractStatus: 404,
  v1ExtractCancel: 404,
  v1CrawlStatus: 404,
  v1CrawlCancel: 404,
  v2CrawlStart: 202,
  v2CrawlStatus: 404,
  v2CrawlCancel: 404,
  v2ExtractStart: 202,
  v2WebhookDeliveries: 404,
  // shop.example has no stored products (its vendor-mode extraction above grants its change feed).
  v2FeedGoogleMerchant: 404,
  v2ChangeSubscriptionDelete: 404,
  v2ChangeSubscriptionDeliveries: 404,
};

const VALID: Record<string, { path?: string; body?: unknown }> = {
  legacySearch: { body: { query: 'red shoes' } },
  legacyRegularSearch: { body: { query: 'red shoes', filters: { max_price: 50 } } },
  legacyProducts: { body: { urls: ['https://shop.example/products/a'] } },
  legacyProduct: { body: { url: 'https://shop.example/products/a' } },
  v1AgenticSearchMini: { body: { query: 'linen shirt' } },
  v1AgenticSearch: { body: { query: 'linen shirt', customer_profile: { style: { fit: 'relaxed' } } } },
  v1Listings: { body: { vendor: 'shop.example' } },
  v1Collections: { body: { vendor: 'shop.example' } },
  v1ProductsStart: { body: { urls: ['https://shop.example/products/a'] } },
  v1ProductsStatus: { path: '/v1/products/products-batch-1' },
  v1ProductsCancel: { path: '/v1/products/products-batch-1' },
  v1ExtractStart: { body: { domain: 'shop.example' } },
  v1ExtractStatus: { path: '/v1/extract/extract-shop-example-1' },
  v1ExtractCancel: { path: '/v1/extract/extract-shop-example-1' },
  v1Affiliate: { body: { urls: ['https://allbirds.com/products/x'] } },
  v1CrawlStart: { body: { domain: 'shop.example' } },
  v1CrawlStatus: { path: '/v1/crawl/crawl-shop-example-0123456789ab' },
  v1CrawlCancel: { path: '/v1/crawl/crawl-shop-example-0123456789ab' },
  v2AgenticSearchMini: { body: { query: 'linen shirt' } },
  v2AgenticSearchStart: { body: { query: 'linen shirt' } },
  v2AgenticSearchStatus: { path: '/v2/agentic-search/agentic-1' },
  v2Listings: { path: '/v2/listings?vendor=shop.example' },
  v2Collections: { path: '/v2/collections?vendor=shop.example' },
  v2Affiliate: { body: { urls: ['https://allbirds.com/products/x'] } },
  v2CrawlStart: { body: { vendor: 'shop.example' } },
  v2CrawlStatus: { path: '/v2/crawl/crawl-shop-example-0123456789ab' },
  v2CrawlCancel: { path: '/v2/crawl/crawl-shop-example-0123456789ab' },
  // Vendor mode: shop.example has no listings, so a crawl starts and the extraction waits (202).
  v2ExtractStart: { body: { vendor: 'shop.example' } },
  v2ExtractStatus: { path: '/v2/extract/extract-urls-1' },
  v2ExtractCancel: { path: '/v2/extract/extract-urls-1' },
  v2WebhookDeliveries: { path: '/v2/webhooks/deliveries?execution_id=extract-urls-1' },
  v2FeedGoogleMerchant: { path: '/v2/feeds/google-merchant?vendor=shop.example' },
  v2Changes: { path: '/v2/changes?vendor=shop.example' },
  v2ChangeSubscriptionCreate: { body: { url: 'https://hooks.example/changes', events: ['product.changed'] } },
};

beforeAll(async () => {
  service = await startTestService({ extras: startWorkflows });
  const served = await service.request('GET', '/openapi.json');
  expect(served.status).toBe(200);
  doc = served.body;
  fullKey = await service.apiKey();
});

afterAll(async () => {
  await service?.close();
});

describe('public routes and the document', () => {
  it('serves /health and an OpenAPI 3.1 document of all 50 operations', async () => {
    const health = await call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((p) => Object.values(p));
    expect(operations).toHaveLength(52);
    expect(operations.filter((op) => op.security?.length !== 0)).toHaveLength(50);
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer');
    expect(doc.paths['/v2/extract'].post.responses['501']).toBeUndefined();
    expect(doc.paths['/v2/vendors'].get.responses['501']).toBeUndefined();
  });
});

describe('authentication', () => {
  it.each(['/api/vendors', '/v1/vendors', '/v2/vendors'])('answers the exact 401 bodies on %s', async (path) => {
    const missing = await call('GET', path);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual(AUTH_REQUIRED);
    const invalid = await call('GET', path, { apiKey: 'pds_not-a-real-key-0000000000' });
    expect(invalid.status).toBe(401);
    expect(invalid.body).toEqual(INVALID_KEY);
    const badBearer = await call('GET', path, { headers: { authorization: 'Bearer pds_wrong-wrong-wrong-wrong' } });
    expect(badBearer.body).toEqual(INVALID_KEY);
    expect(missing.headers.get('request-id')).toMatch(/\S{8,}/);
  });

  it('accepts the key in x-api-key and as Authorization: Bearer', async () => {
    expect((await call('GET', '/v2/vendors', { apiKey: fullKey })).status).toBe(200);
    expect((await call('GET', '/v2/vendors', { headers: { authorization: `Bearer ${fullKey}` } })).status).toBe(200);
    expect((await call('GET', '/v2/vendors', { headers: { Authorization: `bearer   ${fullKey}` } })).status).toBe(200);
  });

  it('rejects a revoked key', async () => {
    const key = await service.apiKey(undefined, 'revoked-org');
    expect((await call('GET', '/v1/vendors', { apiKey: key })).status).toBe(200);
    const [record] = await service.deps().accounts.listKeys('revoked-org');
    await service.deps().accounts.revokeKey(record.keyId, new Date().toISOString());
    const after = await call('GET', '/v1/vendors', { apiKey: key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(INVALID_KEY);
  });

  const scopeProbe: Record<Scope, string> = {
    search: 'legacyFeed',
    catalog: 'v2Vendors',
    extract: 'v1ProductsList',
    crawl: 'v2CrawlList',
    affiliate: 'v2Affiliate',
    usage: 'legacyUsage',
  };
  it.each(Object.entries(scopeProbe))(
    'answers 403 FORBIDDEN when the key lacks the %s scope',
    async (scope, operationId) => {
      const route = ROUTES.find((r) => r.operationId === operationId)!;
      const others = (['search', 'catalog', 'extract', 'crawl', 'affiliate', 'usage'] as Scope[]).filter(
        (s) => s !== scope,
      );
      const key = await service.apiKey(others, 'scoped-org');
      const valid = VALID[operationId] ?? {};
      const response = await call(route.method, valid.path ?? route.path, { apiKey: key, body: valid.body });
      expect(response.status).toBe(403);
      if (route.family === 'v2') {
        expect(response.body.error.code).toBe('FORBIDDEN');
        expect(response.body.error.request_id).toBe(response.headers.get('request-id'));
      } else {
        expect(response.body.code).toBe('FORBIDDEN');
      }
      expect(JSON.stringify(response.body)).toContain(scope);
    },
  );
});

describe('error shapes, fallback and request limits', () => {
  it('renders legacy and v1 errors as {error, details?, code} and v2 as {error:{code,message,request_id}}', async () => {
    const legacy = await call('GET', '/api/usage?period=1y', { apiKey: fullKey });
    expect(legacy.status).toBe(400);
    expect(legacy.body).toEqual({ error: expect.stringContaining('period'), code: 'INVALID_PARAMETER' });
    expect(legacy.body.error).toBe('period must be one of 24h, 7d, 30d, 90d, all');
    const v1 = await call('POST', '/v1/listings', {
      apiKey: fullKey,
      body: { vendor: 'shop.example', page_size: 500 },
    });
    expect(v1.status).toBe(400);
    expect(v1.body.code).toBe('INVALID_PARAMETER');
    expect(v1.body.error).toBe('page_size must be an integer from 1 to 100');
    const v2 = await call('GET', '/v2/usage?period=1y', { apiKey: fullKey });
    expect(v2.status).toBe(400);
    expect(v2.body.error).toEqual({
      code: 'INVALID_PARAMETER',
      message: expect.stringContaining('period'),
      request_id: v2.headers.get('request-id'),
    });
  });

  it.each([
    ['/api/nothing', 'legacy'],
    ['/v1/nothing', 'v1'],
    ['/v2/nothing', 'v2'],
  ])('answers 404 NOT_FOUND for unknown %s in the %s shape', async (path, family) => {
    const response = await call('GET', path, { apiKey: fullKey });
    expect(response.status).toBe(404);
    if (family === 'v2') {
      expect(response.body.error.code).toBe('NOT_FOUND');
      expect(response.body.error.request_id).toBe(response.headers.get('request-id'));
    } else expect(response.body.code).toBe('NOT_FOUND');
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const put = await call('PUT', '/v2/vendors', { apiKey: fullKey });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET');
    expect(put.body.error.code).toBe('METHOD_NOT_ALLOWED');
    const patch = await call('PATCH', '/v1/products/abc', { apiKey: fullKey });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, DELETE');
    expect(patch.body.code).toBe('METHOD_NOT_ALLOWED');
    const getSearch = await call('GET', '/api/search');
    expect(getSearch.headers.get('allow')).toBe('POST');
  });

  it('answers 413 over the body cap, before and inside the pipeline', async () => {
    const big = JSON.stringify({ urls: ['https://shop.example/' + 'a'.repeat(1_100_000)] });
    const response = await call('POST', '/v2/extract', {
      apiKey: fullKey,
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const huge = await call('POST', '/v1/products', {
      apiKey: fullKey,
      rawBody: Buffer.alloc(7 * 1024 * 1024, 32),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 415 for a POST body that is not JSON', async () => {
    const form = await call('POST', '/v2/crawl', {
      apiKey: fullKey,
      rawBody: 'vendor=shop.example',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const none = await call('POST', '/api/search', { apiKey: fullKey, rawBody: '{"query":"x"}' });
    expect(none.status).toBe(415);
    expect(none.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 400 INVALID_PARAMETER for malformed JSON, wrong types, missing fields and paging out of range', async () => {
    const malformed = await call('POST', '/v2/extract', {
      apiKey: fullKey,
      rawBody: '{"urls": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/^Malformed JSON/);

    const wrongType = await call('POST', '/v1/listings', {
      apiKey: fullKey,
      body: { vendor: 'shop.example', page: '2' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toContain('page');

    const missing = await call('POST', '/api/search', { apiKey: fullKey, body: { filters: {} } });
    expect(missing.body).toMatchObject({ error: 'query is required', code: 'INVALID_PARAMETER' });

    const notObject = await call('POST', '/v2/crawl', { apiKey: fullKey, body: ['shop.example'] });
    expect(notObject.body.error.message).toBe('request body must be a JSON object');

    const both = await call('POST', '/v2/extract', {
      apiKey: fullKey,
      body: { urls: ['https://a.example/p'], vendor: 'a.example' },
    });
    expect(both.body.error.message).toBe('exactly one of urls and vendor is required');

    for (const query of ['page=0', 'page=abc', 'page_size=0', 'page_size=101', 'page=1.5']) {
      const response = await call('GET', `/v2/vendors?${query}`, { apiKey: fullKey });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toContain(query.split('=')[0]);
    }
    const limit = await call('GET', '/v1/products?limit=1000', { apiKey: fullKey });
    expect(limit.body).toMatchObject({ error: 'limit must be an integer from 1 to 100', code: 'INVALID_PARAMETER' });
  });
});

describe('every route answers', () => {
  it('every route answers a valid call with its documented success status', async () => {
    const key = await service.apiKey(undefined, 'every-route-org');
    for (const route of ROUTES) {
      const valid = VALID[route.operationId] ?? {};
      const response = await call(route.method, valid.path ?? route.path, {
        apiKey: route.scope ? key : undefined,
        body: valid.body,
      });
      expect(doc.paths[route.path][route.method.toLowerCase()].responses['501'], route.operationId).toBeUndefined();
      expect(response.status, route.operationId).toBe(EXPECTED_STATUS[route.operationId] ?? 200);
      expect(response.headers.get('request-id')).toBeTruthy();
    }
    // Every operation was metered once for this organization, under its route template.
    const usage = await call('GET', '/api/usage?period=24h', { apiKey: key });
    const paths = new Map(usage.body.usage.map((u: { path: string; total_calls: number }) => [u.path, u.total_calls]));
    const expected = ROUTES.filter((r) => r.scope && r.operationId !== 'legacyUsage');
    for (const route of expected) expect(paths.has(route.path), route.path).toBe(true);
  });
});

describe('usage', () => {
  it('counts every authenticated call once per route template, over five periods, highest first, with paging', async () => {
    const key = await service.apiKey(undefined, 'usage-org');
    const noUsage = await service.apiKey(['catalog', 'search'], 'usage-org');
    for (let i = 0; i < 3; i++) await call('GET', `/v2/extract/extract-urls-${i}`, { apiKey: key });
    await call('GET', '/v2/vendors', { apiKey: key });
    await call('GET', '/v2/vendors?page=0', { apiKey: key }); // 400 still counts
    await call('GET', '/api/usage', { apiKey: noUsage }); // 403 counts for the org
    await call('GET', '/v2/vendors', { apiKey: 'pds_unknown-key-unknown-key' }); // 401 does not
    // Older buckets: 3 days, 60 days and 200 days ago.
    const now = Date.now();
    const usage = service.deps().usage;
    for (const [daysAgo, calls] of [
      [3, 4],
      [60, 5],
      [200, 6],
    ] as const) {
      for (let i = 0; i < calls; i++)
        await usage.increment('usage-org', '/v2/crawl', hourBucket(new Date(now - daysAgo * 86_400_000)));
    }

    const totals = async (period: string) => {
      const response = await call('GET', `/api/usage?period=${period}`, { apiKey: key });
      expect(response.body.period).toBe(period);
      const list = response.body.usage as Array<{ path: string; total_calls: number }>;
      expect([...list].sort((a, b) => b.total_calls - a.total_calls)).toEqual(list);
      return Object.fromEntries(list.map((u) => [u.path, u.total_calls]));
    };
    const day = await totals('24h');
    expect(day['/v2/extract/{execution_id}']).toBe(3);
    expect(day['/v2/vendors']).toBe(2);
    expect(day['/api/usage']).toBe(2); // the 403 call and this call itself
    expect(day['/v2/crawl']).toBeUndefined();
    expect((await totals('7d'))['/v2/crawl']).toBe(4);
    expect((await totals('30d'))['/v2/crawl']).toBe(4);
    expect((await totals('90d'))['/v2/crawl']).toBe(9);
    expect((await totals('all'))['/v2/crawl']).toBe(15);
    const byDefault = await call('GET', '/api/usage', { apiKey: key });
    expect(byDefault.body.period).toBe('30d');

    const page1 = await call('GET', '/v2/usage?period=all&page_size=2', { apiKey: key });
    expect(page1.body.meta).toEqual({ period: 'all' });
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.data[0]).toEqual({ path: '/v2/crawl', total_calls: 15 });
    expect(page1.body.pagination).toMatchObject({ page: 1, page_size: 2, has_prev: false, has_next: true });
    // Each call counts itself before it reads, so the totals hold still between the two pages.
    const { total_items, total_pages } = page1.body.pagination;
    const last = await call('GET', `/v2/usage?period=all&page_size=2&page=${total_pages}`, { apiKey: key });
    expect(last.body.pagination).toMatchObject({
      total_items,
      total_pages,
      page: total_pages,
      has_next: false,
      has_prev: true,
    });
    expect(last.body.data.length).toBe(total_items - 2 * (total_pages - 1));
    const defaults = await call('GET', '/v2/usage', { apiKey: key });
    expect(defaults.body.meta.period).toBe('30d');
    expect(defaults.body.pagination.page_size).toBe(20);
  });
});

describe('vendors', () => {
  it('lists vendor summaries in all three families', async () => {
    const deps = service.deps();
    await recordProductSeen(deps.vendors, {
      vendor: 'www.Allbirds.com',
      displayName: 'Allbirds',
      newProduct: true,
      updatedAt: '2026-01-02T10:00:00.000Z',
    });
    await recordProductSeen(deps.vendors, {
      vendor: 'allbirds.com',
      newProduct: true,
      updatedAt: '2026-01-01T10:00:00.000Z',
    });
    await recordProductSeen(deps.vendors, {
      vendor: 'https://allbirds.com/products/x',
      newProduct: false,
      updatedAt: '2026-01-03T10:00:00.000Z',
    });
    await recordProductSeen(deps.vendors, {
      vendor: 'tiny-shop.example',
      newProduct: true,
      updatedAt: new Date('2026-02-01T00:00:00Z'),
    });
    await recordProductSeen(deps.vendors, {
      vendor: 'zzz-shop.example',
      newProduct: true,
      updatedAt: '2026-02-02T00:00:00Z',
    });

    const expected = [
      {
        vendor: 'allbirds.com',
        latest_product_update_by_service: '2026-01-03T10:00:00.000Z',
        product_count: 2,
        in_affiliate_network: true,
      },
      {
        vendor: 'tiny-shop.example',
        latest_product_update_by_service: '2026-02-01T00:00:00.000Z',
        product_count: 1,
        in_affiliate_network: false,
      },
      {
        vendor: 'zzz-shop.example',
        latest_product_update_by_service: '2026-02-02T00:00:00.000Z',
        product_count: 1,
        in_affiliate_network: false,
      },
    ];
    const legacy = await call('GET', '/api/vendors', { apiKey: fullKey });
    expect(legacy.body).toEqual({ vendors: expected });
    const v1 = await call('GET', '/v1/vendors', { apiKey: fullKey });
    expect(v1.body).toEqual({ data: expected, meta: {} });
    const v2 = await call('GET', '/v2/vendors?page=2&page_size=2', { apiKey: fullKey });
    expect(v2.status).toBe(200);
    expect(v2.headers.get('request-id')).toBeTruthy();
    expect(v2.body).toEqual({
      data: [expected[2]],
      pagination: { page: 2, page_size: 2, total_items: 3, total_pages: 2, has_next: false, has_prev: true },
      meta: {},
    });
    const beyond = await call('GET', '/v2/vendors?page=9', { apiKey: fullKey });
    expect(beyond.body.data).toEqual([]);
  });
});

describe('request logs', () => {
  it('writes one structured line per request with requestId, operationId, status, ms and org', async () => {
    const response = await call('GET', '/v2/vendors', { apiKey: fullKey });
    const line = service.logs.find((l) => l.requestId === response.headers.get('request-id'));
    expect(line).toMatchObject({
      operationId: 'v2Vendors',
      status: 200,
      org: 'test-org',
      method: 'GET',
      path: '/v2/vendors',
    });
    expect(typeof line!.ms).toBe('number');
    expect(checked.length).toBeGreaterThan(60);
  });
});
