// Affiliate links over real HTTP through the local runtime (embedded engines, persistent data
// dir): both families, merchant matching, stand-down, malformed entries, limits, scopes, device
// ids per organization that survive a restart, and affiliate_link in extracted records (store
// simulator). Every response is checked against the served OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { createClients } from '../../lambdas/adapters/clients';
import { dynamoAccountStore } from '../../lambdas/adapters/dynamodb/accounts';
import { dynamoAffiliateDeviceStore } from '../../lambdas/adapters/dynamodb/affiliate-devices';
import { loadConfig } from '../../lambdas/config';
import { validatedClient } from './helpers/validated-client';

const KEY_A = 'affiliate-key-org-a-000001';
const KEY_A2 = 'affiliate-key-org-a-000002';
const KEY_B = 'affiliate-key-org-b-000001';
const KEY_NO_SCOPE = 'affiliate-key-org-a-noscope';
const LINK_HOST = 'go.links.example';

let service: LocalService;
let sim: StoreSimulator;
let doc: Record<string, any>;
let dataDir: string;
let serviceOptions: Parameters<typeof startLocalService>[0];

const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY_A);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The organization's device id as an affiliate call of either family reports it. */
async function deviceOf(key: string, path = '/v1/affiliate') {
  const reply = await call('POST', path, { urls: ['https://allbirds.com/products/x'] }, key);
  return path === '/v1/affiliate' ? reply.body.results[0].device_id : reply.body.data[0].device_id;
}

/** The deep link a network link carries, and its merchant and device ids. */
function parts(link: string) {
  const url = new URL(link);
  expect(url.host).toBe(LINK_HOST);
  return { merchant: url.searchParams.get('m'), device: url.pathname.split('/')[2], url: url.searchParams.get('to') };
}

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 20 });
  dataDir = mkdtempSync(join(tmpdir(), 'pds-affiliate-'));
  const merchantsFile = join(dataDir, 'merchants.json');
  writeFileSync(
    merchantsFile,
    JSON.stringify([
      { domain: 'allbirds.com', id: 5001, alternate_domains: ['allbirds.co.uk'] },
      { domain: 'gymshark.com', id: 'gs', alternate_domains: ['uk.gymshark.com'] },
      { domain: 'shopify-apparel.test', id: 'apparel' },
    ]),
  );
  serviceOptions = {
    port: 0,
    dataDir,
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_AFFILIATE_MERCHANTS: merchantsFile,
      // Another layout than the default: the setting is what shapes every link.
      PDS_AFFILIATE_LINK_TEMPLATE: `https://${LINK_HOST}/d/{device_id}?m={merchant_id}&to={url}`,
    },
    bootstrapKeys: `${KEY_A}:org-a,${KEY_A2}:org-a,${KEY_B}:org-b,${KEY_NO_SCOPE}:org-a:extract`,
    queueRetrySeconds: 1,
    log: () => undefined,
  };
  service = await startLocalService(serviceOptions);
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
});

describe('documented', () => {
  it('records the reasons and drops the 501', () => {
    for (const path of ['/v1/affiliate', '/v2/affiliate']) {
      const operation = doc.paths[path].post;
      expect(operation.responses['501']).toBeUndefined();
      expect(operation.description).toContain('merchant_not_in_network');
    }
    const text = JSON.stringify(doc.components.schemas.AffiliateLinkResult);
    for (const reason of ['merchant_not_in_network', 'malformed_url', 'stand_down']) expect(text).toContain(reason);
  });
});

describe('POST /v1/affiliate', () => {
  it('links a supported URL with the merchant id, the device id and the encoded deep link', async () => {
    const url = 'https://www.allbirds.com/products/mens-wool-runners?size=10&color=grey';
    const reply = await call('POST', '/v1/affiliate', { urls: [url] });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ total_processed: 1, successful: 1, failed: 0 });
    const [result] = reply.body.results;
    expect(result).toMatchObject({ original_url: url, success: true });
    expect(result).not.toHaveProperty('reason');
    const link = parts(result.network_link);
    expect(link).toEqual({ merchant: '5001', device: result.device_id, url });
    expect(result.network_link).toContain(encodeURIComponent(url));
    expect(result.device_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('matches alternates, www., subdomains, scheme variants and letter case', async () => {
    const urls = [
      'https://allbirds.co.uk/products/a',
      'https://www.allbirds.co.uk/products/a',
      'https://uk.gymshark.com/products/b',
      'https://shop.gymshark.com/products/b',
      'http://allbirds.com/products/c',
      'allbirds.com/products/c',
      'HTTPS://WWW.ALLBIRDS.COM/products/c',
    ];
    const reply = await call('POST', '/v1/affiliate', { urls });
    expect(reply.body).toMatchObject({ total_processed: 7, successful: 7, failed: 0 });
    expect(reply.body.results.map((r: any) => parts(r.network_link).merchant)).toEqual([
      '5001',
      '5001',
      'gs',
      'gs',
      '5001',
      '5001',
      '5001',
    ]);
    expect(reply.body.results.map((r: any) => r.original_url)).toEqual(urls);
    // No scheme: the deep link is the https form.
    expect(parts(reply.body.results[5].network_link).url).toBe('https://allbirds.com/products/c');
  });

  it('says why for unsupported, stand-down and malformed strings among good ones, never failing the request', async () => {
    const urls = [
      'https://www.allbirds.com/products/good-1',
      'https://notallbirds.com/products/x',
      'https://allbirds.com.evil.example/products/x',
      'https://allbirds.com/products/x?afsrc=1',
      'https://allbirds.com/products/x?affsource=other-network',
      'https://click.linksynergy.com/deeplink?id=1&murl=https%3A%2F%2Fallbirds.com%2Fp',
      `https://${LINK_HOST}/d/abc?m=5001&to=https%3A%2F%2Fallbirds.com%2Fp`,
      'not a url at all',
      '',
      'ftp://allbirds.com/products/x',
      'https://allbirds/products/x',
      'https://www.allbirds.com/products/good-2',
    ];
    const reply = await call('POST', '/v1/affiliate', { urls });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ total_processed: 12, successful: 2, failed: 10 });
    const deviceId = reply.body.results[0].device_id;
    expect(reply.body.results.map((r: any) => (r.success ? 'ok' : r.reason))).toEqual([
      'ok',
      'merchant_not_in_network',
      'merchant_not_in_network',
      'stand_down',
      'stand_down',
      'stand_down',
      'stand_down',
      'malformed_url',
      'malformed_url',
      'malformed_url',
      'malformed_url',
      'ok',
    ]);
    reply.body.results.forEach((result: any, i: number) => {
      expect(result.original_url).toBe(urls[i]);
      expect(result.device_id).toBe(deviceId);
      if (!result.success) expect(result.network_link).toBeNull();
    });
  });

  it('answers 400 in the v1 shape for 101 URLs, an empty list, a non-string entry and a missing list', async () => {
    const good = 'https://allbirds.com/products/x';
    expect(await call('POST', '/v1/affiliate', { urls: Array.from({ length: 101 }, () => good) })).toEqual({
      status: 400,
      body: { error: 'urls must contain at most 100 URLs', code: 'INVALID_PARAMETER' },
    });
    expect(await call('POST', '/v1/affiliate', { urls: [] })).toEqual({
      status: 400,
      body: { error: 'urls must contain at least 1 URL', code: 'INVALID_PARAMETER' },
    });
    const notString = await call('POST', '/v1/affiliate', { urls: [good, 42] });
    expect(notString.status).toBe(400);
    expect(notString.body.code).toBe('INVALID_PARAMETER');
    expect((await call('POST', '/v1/affiliate', {})).body).toEqual({
      error: 'urls is required',
      code: 'INVALID_PARAMETER',
    });
    // Exactly 100 is fine.
    const hundred = await call('POST', '/v1/affiliate', { urls: Array.from({ length: 100 }, () => good) });
    expect(hundred.body).toMatchObject({ total_processed: 100, successful: 100, failed: 0 });
  });

  it('needs the affiliate scope', async () => {
    const reply = await call('POST', '/v1/affiliate', { urls: ['https://allbirds.com/p'] }, KEY_NO_SCOPE);
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('FORBIDDEN');
  });
});

describe('POST /v2/affiliate', () => {
  it('returns the same results in the v2 envelope with counts in meta', async () => {
    const urls = ['https://www.allbirds.com/products/a', 'https://unknown.example/p', 'nope'];
    const v2 = await call('POST', '/v2/affiliate', { urls });
    expect(v2.status).toBe(200);
    expect(v2.body.meta).toEqual({ total_processed: 3, successful: 1, failed: 2 });
    expect(v2.body.pagination).toEqual({
      page: 1,
      page_size: 3,
      total_items: 3,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    const v1 = await call('POST', '/v1/affiliate', { urls });
    expect(v2.body.data).toEqual(v1.body.results);
    expect(v2.body.data[1]).toEqual({
      original_url: urls[1],
      success: false,
      network_link: null,
      device_id: v1.body.results[0].device_id,
      reason: 'merchant_not_in_network',
    });
  });

  it('answers 400 in the v2 shape for 101 URLs and an empty list', async () => {
    const tooMany = await call('POST', '/v2/affiliate', {
      urls: Array.from({ length: 101 }, (_, i) => `https://allbirds.com/p/${i}`),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'urls must contain at most 100 URLs',
    });
    expect(tooMany.body.error.request_id).toBeTruthy();
    const empty = await call('POST', '/v2/affiliate', { urls: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 'INVALID_PARAMETER', message: 'urls must contain at least 1 URL' });
  });
});

describe('device ids', () => {
  it('one per organization: every key and family of an organization shares it, another organization differs', async () => {
    const a = await deviceOf(KEY_A);
    expect(await deviceOf(KEY_A2)).toBe(a);
    expect(await deviceOf(KEY_A, '/v2/affiliate')).toBe(a);
    const b = await deviceOf(KEY_B);
    expect(b).not.toBe(a);
    expect(b).toMatch(/^[0-9a-f]{32}$/);
  });

  it('survives a restart of the service on the same data', async () => {
    const before = { a: await deviceOf(KEY_A), b: await deviceOf(KEY_B) };
    await service.stop(1000);
    service = await startLocalService({ ...serviceOptions, bootstrapKeys: undefined });
    expect({ a: await deviceOf(KEY_A), b: await deviceOf(KEY_B, '/v2/affiliate') }).toEqual(before);
  }, 60_000);
});

describe('device ids on the table', () => {
  it('concurrent first calls agree on one id (a conditional write), and the organization item keeps its fields', async () => {
    const clients = createClients({ ...loadConfig({}), endpoints: { dynamodb: service.dynamodbEndpoint } });
    try {
      const store = dynamoAffiliateDeviceStore(clients.documents, service.tableName);
      expect(await store.get('org-race')).toBeNull();
      const winners = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.create('org-race', `candidate-${i}`, new Date().toISOString())),
      );
      expect(new Set(winners).size).toBe(1);
      expect(winners[0]).toMatch(/^candidate-\d+$/);
      expect(await store.get('org-race')).toBe(winners[0]);
      // The id served over HTTP is the one on org-a's item, and that item is still an organization.
      expect(await store.get('org-a')).toBe(await deviceOf(KEY_A));
      expect(await dynamoAccountStore(clients.documents, service.tableName).getOrganization('org-a')).toMatchObject({
        org: 'org-a',
        createdAt: expect.any(String),
      });
    } finally {
      clients.dynamodb.destroy();
    }
  });
});

describe('extracted records', () => {
  it('carry affiliate links on the product and its variants for merchants, null otherwise, with the caller’s device id', async () => {
    const merchantUrl = sim.store('shopify-apparel.test').productUrl(3);
    const otherUrl = sim.store('jsonld-shop.test').productUrl(4);
    const started = await call('POST', '/v2/extract', { urls: [merchantUrl, otherUrl] });
    expect(started.status).toBe(202);
    const path = `/v2/extract/${started.body.execution_id}`;
    let body: any;
    for (let i = 0; i < 300; i++) {
      body = (await call('GET', path)).body;
      if (body.status === 'completed' || body.status === 'failed') break;
      await sleep(150);
    }
    expect(body.status).toBe('completed');
    const [merchant, other] = body.data;
    expect(merchant.success).toBe(true);
    expect(other.success).toBe(true);
    const deviceA = await deviceOf(KEY_A);
    const productLink = parts(merchant.product.affiliate_link);
    expect(productLink).toEqual({ merchant: 'apparel', device: deviceA, url: merchant.product.url });
    expect(merchant.product.variants.length).toBeGreaterThan(0);
    for (const variant of merchant.product.variants) {
      const link = parts(variant.affiliate_link);
      expect(link.device).toBe(deviceA);
      expect(link.url).toBe(variant.url ?? merchant.product.url);
    }
    expect(other.product.affiliate_link).toBeNull();
    for (const variant of other.product.variants) expect(variant.affiliate_link).toBeNull();

    // v1 status of the same kind of work carries the same links.
    const v1 = await call('POST', '/v1/products', { urls: [merchantUrl] });
    let v1Body: any;
    for (let i = 0; i < 300; i++) {
      v1Body = (await call('GET', `/v1/products/${v1.body.execution_id}`)).body;
      if (v1Body.status === 'completed' || v1Body.status === 'failed') break;
      await sleep(150);
    }
    expect(v1Body.status).toBe('completed');
    expect(v1Body.results.products[0].product.affiliate_link).toBe(merchant.product.affiliate_link);
  }, 90_000);

  it('vendor summaries say which vendors are in the network, by the same directory', async () => {
    const vendors = await call('GET', '/v2/vendors');
    const byVendor = Object.fromEntries(vendors.body.data.map((v: any) => [v.vendor, v.in_affiliate_network]));
    expect(byVendor['shopify-apparel.test']).toBe(true);
    expect(byVendor['jsonld-shop.test']).toBe(false);
  });
});
