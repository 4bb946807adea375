// Rate limiting over real HTTP with concurrent requests. A refill of one token per 100 s keeps
// the count deterministic even on a heavily loaded machine: within the test only the burst can
// be admitted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers/service';
import { validateResponse } from './helpers/openapi-validator';
import { clearOrganizationCache } from '../../lambdas/http/pipeline';

let service: TestService;
let doc: Record<string, any>;

beforeAll(async () => {
  service = await startTestService({ env: { PDS_RATE_LIMIT: '0.01:5' } });
  doc = (await service.request('GET', '/openapi.json')).body;
});
afterAll(async () => service?.close());

async function burst(path: string, key: string, count: number) {
  const responses = await Promise.all(
    Array.from({ length: count }, () => service.request('GET', path, { apiKey: key })),
  );
  for (const r of responses)
    expect(validateResponse(doc, { method: 'GET', path, status: r.status, headers: r.headers, body: r.body })).toEqual(
      [],
    );
  return responses;
}

describe('rate limits', () => {
  it('admits exactly the burst of concurrent requests per key and answers 429 with Retry-After', async () => {
    const key = await service.apiKey(undefined, 'rl-org');
    const responses = await burst('/v2/vendors', key, 20);
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(limited).toHaveLength(15);
    for (const r of limited) {
      expect(r.body.error.code).toBe('RATE_LIMITED');
      expect(r.body.error.request_id).toBe(r.headers.get('request-id'));
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(100);
    }
    // Legacy shape for the same key, still limited.
    const legacy = await service.request('GET', '/api/vendors', { apiKey: key });
    expect(legacy.status).toBe(429);
    expect(legacy.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(legacy.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('keeps one bucket per key', async () => {
    const first = await service.apiKey(undefined, 'rl-two-keys');
    const second = await service.apiKey(undefined, 'rl-two-keys');
    const a = await burst('/v1/vendors', first, 8);
    const b = await burst('/v1/vendors', second, 8);
    expect(a.filter((r) => r.status === 200)).toHaveLength(5);
    expect(b.filter((r) => r.status === 200)).toHaveLength(5);
  });

  it('applies the per-organization override stored on the organization', async () => {
    const key = await service.apiKey(undefined, 'rl-override');
    await service.deps().accounts.setOrganizationRateLimit('rl-override', { ratePerSecond: 0.01, burst: 2 });
    clearOrganizationCache();
    const responses = await burst('/api/vendors', key, 10);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(2);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(8);
  });

  it('meters refused calls too', async () => {
    const key = await service.apiKey(undefined, 'rl-usage');
    await burst('/v2/vendors', key, 7);
    const usage = await service.deps().usage.read('rl-usage', null);
    expect(usage.filter((u) => u.path === '/v2/vendors').reduce((n, u) => n + u.calls, 0)).toBe(7);
  });
});
