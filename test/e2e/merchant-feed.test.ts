// The Google Merchant Center feed over real HTTP: products of a simulated store extracted through
// the local runtime, then GET /v2/feeds/google-merchant paged by cursor (JSON, checked against the
// served OpenAPI document, and the RSS 2.0 XML), every item checked attribute by attribute
// against the store's ground truth and the product data specification's formats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import type { SimProduct } from '../stores/catalog';
import { validatedClient } from './helpers/validated-client';

// bin/pds.mjs (the npx shim) would win an extensionless import: the module is named with its extension.
const CLI_MODULE = '../../bin/pds.ts';
const { main }: typeof import('../../bin/pds') = await import(CLI_MODULE);

const KEY = 'merchant-feed-key-org-a-01';
const OTHER_ORG_KEY = 'merchant-feed-key-org-b-01';
const NO_CATALOG_KEY = 'merchant-feed-key-org-a-02';
const STORE = 'shopify-apparel.test';
/** A store of our own whose pages lack what Merchant Center requires, one gap per product. */
const GAPS = 'merchant-gaps.test';
const GAP_PAGES: Record<string, Record<string, unknown>> = {
  '/p/no-image': { name: 'Canvas Tote Bag', brand: { '@type': 'Brand', name: 'Gapwear' }, price: '24.00' },
  '/p/long-title': {
    name: `Linen Shirt ${'with a very long marketing description in the title '.repeat(3)}`.trim(),
    brand: { '@type': 'Brand', name: 'Gapwear' },
    image: 'IMAGE',
    price: '49.00',
  },
  '/p/no-brand': { name: 'Wool Scarf', image: 'IMAGE', price: '35.00' },
  '/p/complete': { name: 'Cotton Cap', brand: { '@type': 'Brand', name: 'Gapwear' }, image: 'IMAGE', price: '19.00' },
};
const PRODUCTS = 24;
const POLL_MS = 200;
const MAX_POLLS = 300;

let service: LocalService;
let sim: StoreSimulator;
let gapStore: Server;
let doc: Record<string, any>;
const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function extract(urls: string[]): Promise<void> {
  const start = await call('POST', '/v2/extract', { urls, enable_enrichment: true });
  expect(start.status).toBe(202);
  for (let poll = 0; poll < MAX_POLLS; poll++) {
    const status = await call('GET', `/v2/extract/${start.body.execution_id}?page_size=1`);
    if (status.body.status === 'completed') return;
    expect(status.body.status).not.toBe('failed');
    await sleep(POLL_MS);
  }
  throw new Error('extraction did not complete');
}

/** Every page of the feed by cursor (bounded). */
async function allPages(vendor: string, pageSize: number, key = KEY) {
  const pages: any[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 100; n++) {
    const query = new URLSearchParams({ vendor, page_size: String(pageSize), ...(cursor ? { cursor } : {}) });
    const reply = await call('GET', `/v2/feeds/google-merchant?${query}`, undefined, key);
    expect(reply.status).toBe(200);
    pages.push(reply.body);
    cursor = reply.body.pagination.next_cursor;
    if (!cursor) return pages;
  }
  throw new Error('the feed did not end');
}

function gapPage(path: string, host: string): string | null {
  const page = GAP_PAGES[path];
  if (!page) return null;
  const { price, image, ...rest } = page;
  const product = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    ...rest,
    description: `The ${page.name} is made for everyday use.`,
    sku: path.slice(3),
    ...(image ? { image: `http://${host}/img${path}.jpg` } : {}),
    offers: { '@type': 'Offer', price, priceCurrency: 'USD', availability: 'https://schema.org/InStock' },
  };
  return `<!doctype html><html><head><title>${page.name}</title><script type="application/ld+json">${JSON.stringify(product)}</script></head><body><h1>${page.name}</h1><p>$${price}</p><button>Add to cart</button></body></html>`;
}

beforeAll(async () => {
  gapStore = createServer((req, res) => {
    const html = gapPage(req.url ?? '', GAPS);
    res.writeHead(html ? 200 : 404, { 'content-type': html ? 'text/html; charset=utf-8' : 'text/plain' });
    res.end(html ?? (req.url === '/robots.txt' ? '' : 'not found'));
  });
  await new Promise<void>((resolve) => gapStore.listen(0, '127.0.0.1', resolve));
  const gapAddress = `${GAPS}=127.0.0.1:${(gapStore.address() as AddressInfo).port}`;
  sim = await startStoreSimulator({ productsPerStore: 40 });
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-merchant-feed-')),
    env: {
      PDS_RESOLVE: `${sim.resolveEnv},${gapAddress}`,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
    },
    bootstrapKeys: `${KEY}:org-a,${OTHER_ORG_KEY}:org-b,${NO_CATALOG_KEY}:org-a:extract`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
  const store = sim.store(STORE);
  await extract([
    ...Array.from({ length: PRODUCTS }, (_, i) => store.productUrl(i)),
    ...Object.keys(GAP_PAGES).map((path) => `http://${GAPS}${path}`),
  ]);
}, 120_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
  await new Promise((resolve) => gapStore?.close(resolve));
});

const money = (amount: number, currency: string) => `${amount.toFixed(2)} ${currency}`;

/** The item the specification asks for, attribute by attribute, from the store's ground truth. */
function checkItem(item: any, product: SimProduct) {
  const variant = product.variants.find((v) => item.link.includes(v.id)) ?? product.variants[0]!;
  const grouped = product.variants.length > 1;
  expect(item.id.length).toBeLessThanOrEqual(50);
  expect(item.title.startsWith(product.title)).toBe(true);
  if (grouped) {
    expect(item.title).toContain(variant.title);
    expect(item.item_group_id).toBeTruthy();
  } else expect(item.item_group_id).toBeUndefined();
  expect(item.title.length).toBeLessThanOrEqual(150);
  expect(item.description).toContain(product.description.slice(0, 40));
  expect(item.description.length).toBeLessThanOrEqual(5000);
  expect(item.link).toMatch(/^https?:\/\//);
  expect(item.link.startsWith(product.url)).toBe(true);
  expect(item.image_link).toMatch(/^https?:\/\//);
  expect(product.images.map((i) => i.url)).toContain(item.image_link.replace(/^http:/, 'https:'));
  expect((item.additional_image_link ?? []).length).toBeLessThanOrEqual(10);
  if (variant.compareAt !== null && variant.compareAt > variant.price) {
    expect(item.price).toBe(money(variant.compareAt, product.currency));
    expect(item.sale_price).toBe(money(variant.price, product.currency));
  } else {
    expect(item.price).toBe(money(variant.price, product.currency));
    expect(item.sale_price).toBeUndefined();
  }
  expect(item.availability).toBe(variant.available ? 'in_stock' : 'out_of_stock');
  expect(item.brand).toBe(product.brand);
  expect(item.condition).toBe('new');
  expect(item.identifier_exists).toBe('no');
  expect(item.google_product_category === undefined || !item.google_product_category.includes('>')).toBe(true);
  const color = product.options.findIndex((o) => o.name === 'Color');
  if (color >= 0) expect(item.color).toBe(variant.optionValues[color]);
  const size = product.options.findIndex((o) => o.name === 'Size');
  if (size >= 0) expect(item.size).toBe(variant.optionValues[size]);
}

describe('GET /v2/feeds/google-merchant', () => {
  it("lists every variant of the store's extracted products once, attribute by attribute, across cursor pages", async () => {
    const store = sim.store(STORE);
    const pages = await allPages(STORE, 5);
    expect(pages.length).toBe(Math.ceil(PRODUCTS / 5));
    const items = pages.flatMap((p) => p.data);
    const byUrl = new Map(Array.from({ length: PRODUCTS }, (_, i) => [store.product(i).url, store.product(i)]));
    const expected = [...byUrl.values()].reduce((n, p) => n + p.variants.length, 0);
    expect(items.length + pages.flatMap((p) => p.refused).length).toBe(expected);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    for (const item of items) {
      const product = [...byUrl.values()].find((p) => item.link.startsWith(p.url));
      expect(product, item.link).toBeDefined();
      checkItem(item, product!);
    }
    expect(pages.flatMap((p) => p.refused)).toEqual([]);
    expect(pages.reduce((n, p) => n + p.meta.products, 0)).toBe(PRODUCTS);
  });

  it('lists the items Merchant Center would refuse apart, with the rule each breaks', async () => {
    const [page] = await allPages(GAPS, 100);
    const reasonsOf = (path: string) =>
      page.refused
        .find((entry: any) => entry.product_url === `http://${GAPS}${path}`)
        ?.reasons.map((r: any) => `${r.attribute}:${r.code}`);
    expect(reasonsOf('/p/no-image')).toEqual(['image_link:missing_image_link']);
    expect(reasonsOf('/p/long-title')).toEqual(['title:title_too_long']);
    expect(reasonsOf('/p/no-brand')).toEqual(['brand:missing_brand']);
    expect(page.refused).toHaveLength(3);
    expect(page.meta.refused_count).toBe(3);
    expect(page.data.map((item: any) => item.title)).toEqual(['Cotton Cap']);
    expect(page.data[0]).toMatchObject({
      price: '19.00 USD',
      availability: 'in_stock',
      brand: 'Gapwear',
      condition: 'new',
      link: `http://${GAPS}/p/complete`,
      image_link: `http://${GAPS}/img/p/complete.jpg`,
    });
  });

  it('answers the RSS 2.0 document with the g: namespace, the next page in a Link header', async () => {
    const first = await fetch(`${service.url}/v2/feeds/google-merchant?vendor=${STORE}&format=xml&page_size=10`, {
      headers: { 'x-api-key': KEY },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('application/xml');
    const xml = await first.text();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toContain('<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">');
    const json = await call('GET', `/v2/feeds/google-merchant?vendor=${STORE}&page_size=10`);
    expect((xml.match(/<item>/g) ?? []).length).toBe(json.body.data.length);
    for (const item of json.body.data) {
      expect(xml).toContain(`<g:id>${item.id}</g:id>`);
      expect(xml).toContain(`<g:price>${item.price}</g:price>`);
    }
    const link = first.headers.get('link')!;
    expect(link).toMatch(/^<\/v2\/feeds\/google-merchant\?.*cursor=.*>; rel="next"$/);
    const next = await fetch(`${service.url}${link.slice(1, link.indexOf('>'))}`, { headers: { 'x-api-key': KEY } });
    expect(next.status).toBe(200);
    const nextXml = await next.text();
    const firstIds = new Set([...xml.matchAll(/<g:id>([^<]+)<\/g:id>/g)].map((m) => m[1]));
    for (const [, id] of nextXml.matchAll(/<g:id>([^<]+)<\/g:id>/g)) expect(firstIds.has(id)).toBe(false);
  });

  it('shows another organization the same feed, needs the catalog scope, and refuses unknown vendors and bad cursors', async () => {
    const mine = await call('GET', `/v2/feeds/google-merchant?vendor=${STORE}`);
    const theirs = await call('GET', `/v2/feeds/google-merchant?vendor=${STORE}`, undefined, OTHER_ORG_KEY);
    expect(theirs.body.data).toEqual(mine.body.data);
    const forbidden = await call('GET', `/v2/feeds/google-merchant?vendor=${STORE}`, undefined, NO_CATALOG_KEY);
    expect(forbidden.status).toBe(403);
    const unknown = await call('GET', '/v2/feeds/google-merchant?vendor=never-seen.test');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const bad = await call('GET', `/v2/feeds/google-merchant?vendor=${STORE}&cursor=not-a-cursor`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_PARAMETER');
    const tooBig = await call('GET', `/v2/feeds/google-merchant?vendor=${STORE}&page_size=501`);
    expect(tooBig.status).toBe(400);
  });

  it('pds feed writes one RSS document of every page and reports the refused items', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'pds-feed-cli-')), 'feed.xml');
    const code = await main([
      'feed',
      GAPS,
      '--base-url',
      service.url,
      '--api-key',
      KEY,
      '--page-size',
      '1',
      '--out',
      out,
    ]);
    expect(code).toBe(0);
    const xml = readFileSync(out, 'utf8');
    expect(xml).toContain('xmlns:g="http://base.google.com/ns/1.0"');
    expect([...xml.matchAll(/<g:title>([^<]+)<\/g:title>/g)].map((m) => m[1])).toEqual(['Cotton Cap']);
  });
});
