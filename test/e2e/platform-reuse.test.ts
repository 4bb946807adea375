// Work an authenticated call no longer repeats (lambdas/http/pipeline.ts, render.ts,
// domain/accounts/service.ts), over real HTTP: vendor pages are shaped and serialised once per
// vendor list, queries are validated once per distinct query, a key's hash is computed once. None
// of it may change an answer: pages, defaults, errors and revocation are checked here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordProductSeen } from '../../lambdas/domain/vendors/service';
import { serializedOnce } from '../../lambdas/http/render';
import { startTestService, type TestService } from './helpers/service';

let service: TestService;
let key: string;

beforeAll(async () => {
  service = await startTestService();
  key = await service.apiKey(undefined, 'reuse-org');
  for (const vendor of ['a-shop.example', 'b-shop.example', 'c-shop.example', 'd-shop.example', 'e-shop.example']) {
    await recordProductSeen(service.deps().vendors, {
      vendor,
      newProduct: true,
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
  }
});
afterAll(async () => {
  await service?.close();
});

const vendorsOf = (body: { data: { vendor: string }[] }) => body.data.map((v) => v.vendor);

describe('serialised bodies', () => {
  it('are made once per source object and variant, and again for a new source', () => {
    let builds = 0;
    const source = Object.freeze([1, 2, 3]);
    const build = () => {
      builds++;
      return { data: source, meta: {} };
    };
    const first = serializedOnce(source, 'p1', build);
    const again = serializedOnce(source, 'p1', build);
    expect(again).toBe(first);
    expect(JSON.parse(first.serialized)).toEqual(first.body);
    expect(builds).toBe(1);
    serializedOnce(source, 'p2', build);
    serializedOnce(Object.freeze([1, 2, 3]), 'p1', build);
    expect(builds).toBe(3);
  });
});

describe('vendor pages', () => {
  it('answer each page with its own items, the same bytes on a repeat', async () => {
    const first = await service.request('GET', '/v2/vendors?page=1&page_size=2', { apiKey: key });
    const repeat = await service.request('GET', '/v2/vendors?page=1&page_size=2', { apiKey: key });
    const second = await service.request('GET', '/v2/vendors?page=2&page_size=2', { apiKey: key });
    expect(first.status).toBe(200);
    expect(vendorsOf(first.body)).toEqual(['a-shop.example', 'b-shop.example']);
    expect(repeat.text).toBe(first.text);
    expect(vendorsOf(second.body)).toEqual(['c-shop.example', 'd-shop.example']);
    expect(second.body.pagination).toEqual({
      page: 2,
      page_size: 2,
      total_items: 5,
      total_pages: 3,
      has_next: true,
      has_prev: true,
    });
    // Defaults (page 1, page_size 20) whether the query is empty or names them.
    const defaults = await service.request('GET', '/v2/vendors', { apiKey: key });
    const named = await service.request('GET', '/v2/vendors?page=1&page_size=20', { apiKey: key });
    expect(defaults.text).toBe(named.text);
    expect(defaults.body.pagination.page_size).toBe(20);
    expect(vendorsOf(defaults.body)).toHaveLength(5);
    // Each response keeps its own request id.
    expect(first.headers.get('request-id')).not.toBe(repeat.headers.get('request-id'));
  });

  it('show a vendor stored through this process at once (no staleness of their own)', async () => {
    const before = await service.request('GET', '/v2/vendors?page=2&page_size=2', { apiKey: key });
    await recordProductSeen(service.deps().vendors, {
      vendor: 'bb-shop.example',
      newProduct: true,
      updatedAt: '2026-01-02T00:00:00.000Z',
    });
    const after = await service.request('GET', '/v2/vendors?page=2&page_size=2', { apiKey: key });
    expect(vendorsOf(before.body)).toEqual(['c-shop.example', 'd-shop.example']);
    expect(vendorsOf(after.body)).toEqual(['bb-shop.example', 'c-shop.example']);
    expect(after.body.pagination.total_items).toBe(6);
    const v1 = await service.request('GET', '/v1/vendors', { apiKey: key });
    const legacy = await service.request('GET', '/api/vendors', { apiKey: key });
    expect(vendorsOf(v1.body)).toContain('bb-shop.example');
    expect(legacy.body.vendors.map((v: { vendor: string }) => v.vendor)).toContain('bb-shop.example');
    expect(Object.keys(v1.body)).toEqual(['data', 'meta']);
  });
});

describe('validated queries', () => {
  it('refuse a bad query every time, after valid ones were remembered', async () => {
    for (let i = 0; i < 2; i++) {
      const ok = await service.request('GET', '/v2/vendors?page_size=3', { apiKey: key });
      expect(ok.status).toBe(200);
      expect(ok.body.pagination.page_size).toBe(3);
      const bad = await service.request('GET', '/v2/vendors?page_size=0', { apiKey: key });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('INVALID_PARAMETER');
      expect(bad.body.parameter).toBe('page_size');
    }
  });
});

describe('known keys', () => {
  it('still ask the store: a key revoked after use is refused with the exact 401 body', async () => {
    const revocable = await service.apiKey(undefined, 'reuse-revoked');
    for (let i = 0; i < 2; i++) {
      expect((await service.request('GET', '/v2/vendors', { apiKey: revocable })).status).toBe(200);
    }
    const [record] = await service.deps().accounts.listKeys('reuse-revoked');
    await service.deps().accounts.revokeKey(record.keyId, new Date().toISOString());
    const after = await service.request('GET', '/v2/vendors', { apiKey: revocable });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Invalid API key', status: 401 });
  });
});

describe('steady callers', () => {
  // From its second call a key is answered from the key cache, its organization's policy from
  // its cache and its token from a lease, without waiting on the table: the answers must be the
  // ones the waiting path gives, headers and error bodies byte for byte.
  it('get the same headers, bodies and errors on the paths answered without waiting', async () => {
    const steady = await service.apiKey(undefined, 'reuse-steady');
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await service.request('GET', '/v2/vendors?page_size=2', { apiKey: steady }));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(answers[0].text);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(answer.text)));
    }
    // The same key as a bearer token takes the same path.
    const bearer = await service.request('GET', '/v2/vendors?page_size=2', {
      headers: { authorization: `Bearer ${steady}` },
    });
    expect(bearer.text).toBe(answers[0].text);

    // A known key without the route's scope: the exact 403 of the v2 family, every time.
    const narrow = await service.apiKey(['usage'], 'reuse-narrow');
    for (let i = 0; i < 3; i++) {
      const refused = await service.request('GET', '/v2/vendors', { apiKey: narrow });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: {
          code: 'FORBIDDEN',
          message: 'This API key lacks the "catalog" scope required by GET /v2/vendors',
          request_id: refused.headers.get('request-id'),
        },
      });
    }
    // Legacy family: its own error shape for the same refusal.
    const legacy = await service.request('GET', '/api/vendors', { apiKey: narrow });
    expect(legacy.status).toBe(403);
    expect(legacy.body).toEqual({
      error: 'This API key lacks the "catalog" scope required by GET /api/vendors',
      code: 'FORBIDDEN',
    });
    // No key, and a made-up key: the 401 body of every family.
    const missing = await service.request('GET', '/v2/vendors');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      error: 'API key required (x-api-key header or Authorization: Bearer)',
      status: 401,
    });
    for (let i = 0; i < 2; i++) {
      const unknown = await service.request('GET', '/v2/vendors', { apiKey: 'made-up-key-0123456789abcdef' });
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual({ error: 'Invalid API key', status: 401 });
    }
  });
});
