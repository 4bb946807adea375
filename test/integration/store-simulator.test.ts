// The store simulator over real HTTP on loopback: determinism, platform endpoints against the
// ground truth, markup per store, locale prices, non-product pages, sitemaps, hostile hosts.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSitemap } from '../../lambdas/domain/extraction/sitemap';
import { flakyFailuresFor, listProductUrls, startStoreSimulator, type StoreSimulator } from '../stores';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** GET with an explicit Host header, like a client using PDS_RESOLVE. */
function get(sim: StoreSimulator, url: string, headers: Record<string, string> = {}): Promise<Reply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port: sim.port,
        path: `${target.pathname}${target.search}`,
        headers: { host: target.host, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let bytes = Buffer.concat(chunks);
          if (res.headers['content-encoding'] === 'gzip') bytes = gunzipSync(bytes);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
  });
}

const jsonLdBlocks = (html: string) =>
  [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => m[1]);

let sim: StoreSimulator;
beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 30, seed: 7, slowDelayMs: 300 });
});
afterAll(async () => {
  await sim?.close();
});

describe('simulator basics', () => {
  it('serves every host from one loopback port and exposes resolve maps', () => {
    expect(sim.hosts.length).toBeGreaterThanOrEqual(26);
    expect(sim.hosts.every((h) => h.endsWith('.test'))).toBe(true);
    expect(sim.resolve['shopify-apparel.test']).toBe(`127.0.0.1:${sim.port}`);
    expect(sim.resolveEnv.split(',')).toContain(`woo-home.test=127.0.0.1:${sim.port}`);
  });

  it('is deterministic per seed and differs across seeds', async () => {
    const again = await startStoreSimulator({ productsPerStore: 30, seed: 7 });
    const other = await startStoreSimulator({ productsPerStore: 30, seed: 8 });
    try {
      const a = sim.store('jsonld-shop.test').product(5);
      expect(again.store('jsonld-shop.test').product(5)).toEqual(a);
      expect(other.store('jsonld-shop.test').product(5)).not.toEqual(a);
      const pageA = await get(sim, a.url);
      const pageB = await get(again, a.url);
      expect(pageA.body).toBe(pageB.body);
    } finally {
      await again.close();
      await other.close();
    }
  });

  it('answers the www. form and unknown hosts', async () => {
    const store = sim.store('jsonld-shop.test');
    expect((await get(sim, store.productUrl(1).replace('://', '://www.'))).status).toBe(200);
    expect((await get(sim, 'https://unknown.test/')).status).toBe(404);
  });

  it('generates tens of thousands of products lazily', async () => {
    const big = await startStoreSimulator({ productsPerStore: 50_000 });
    try {
      const store = big.store('shopify-apparel.test');
      const last = store.product(49_999);
      const page = await get(big, last.url);
      expect(page.status).toBe(200);
      expect(page.body).toContain(last.title);
      expect(listProductUrls(store, { offset: 49_990, limit: 50 })).toHaveLength(10);
      const index = parseSitemap((await get(big, 'https://shopify-apparel.test/sitemap.xml')).body);
      expect(index.type).toBe('sitemapindex');
      expect(index.entries.filter((e) => e.loc.includes('sitemap_products_'))).toHaveLength(10);
      const tenth = parseSitemap((await get(big, 'https://shopify-apparel.test/sitemap_products_10.xml')).body);
      expect(tenth.entries).toHaveLength(5000);
      expect(tenth.entries.at(-1)!.loc).toBe(last.url);
      expect(() => store.product(50_000)).toThrow(RangeError);
    } finally {
      await big.close();
    }
  });
});

describe('Shopify-like store', () => {
  const host = 'shopify-apparel.test';

  it('product page carries Shopify signals and the ground-truth JSON-LD', async () => {
    const product = sim.store(host).product(3);
    const page = await get(sim, product.url, { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(page.headers['x-shopid']).toBeDefined();
    expect(String(page.headers['set-cookie'])).toContain('_shopify_y');
    expect(page.body).toContain('cdn.shopify.com');
    expect(page.body).toContain('Shopify.shop');
    expect(page.body).toContain('shopify-section');
    const ld = JSON.parse(jsonLdBlocks(page.body)[0]);
    expect(ld['@type']).toBe('Product');
    expect(ld.name).toBe(product.title);
    expect(ld.sku).toBe(product.sku);
    const offers = Array.isArray(ld.offers) ? ld.offers : [ld.offers];
    expect(Math.min(...offers.map((o: { price: string }) => Number(o.price)))).toBe(product.price);
  });

  it('/products/<handle>.js has prices in cents and every variant', async () => {
    const product = sim.store(host).product(4);
    const ajax = JSON.parse((await get(sim, `${product.url}.js`)).body);
    expect(ajax.title).toBe(product.title);
    expect(ajax.price).toBe(Math.round(product.price * 100));
    expect(ajax.compare_at_price).toBe(product.compareAt === null ? null : Math.round(product.compareAt * 100));
    expect(ajax.available).toBe(product.available);
    expect(ajax.variants).toHaveLength(product.variants.length);
    expect(ajax.variants.map((v: { sku: string }) => v.sku)).toEqual(product.variants.map((v) => v.sku));
    expect(ajax.options.map((o: { name: string }) => o.name)).toEqual(product.options.map((o) => o.name));
  });

  it('/products/<handle>.json, /products.json paging and /collections.json', async () => {
    const store = sim.store(host);
    const single = JSON.parse((await get(sim, `${store.product(2).url}.json`)).body);
    expect(single.product.variants[0].price).toBe(store.product(2).variants[0].price.toFixed(2));
    const page2 = JSON.parse((await get(sim, `https://${host}/products.json?limit=5&page=2`)).body);
    expect(page2.products.map((p: { handle: string }) => p.handle)).toEqual(
      [5, 6, 7, 8, 9].map((i) => store.product(i).handle),
    );
    const beyond = JSON.parse((await get(sim, `https://${host}/products.json?limit=250&page=2`)).body);
    expect(beyond.products).toEqual([]);
    const collections = JSON.parse((await get(sim, `https://${host}/collections.json`)).body);
    expect(collections.collections[0].products_count).toBe(30);
    expect((await get(sim, `https://${host}/products/nope-999.js`)).status).toBe(404);
  });

  it('sitemap index leads to the product sitemap with every product URL', async () => {
    const index = parseSitemap((await get(sim, `https://${host}/sitemap.xml`)).body);
    expect(index.entries.map((e) => e.loc)).toContain(`https://${host}/sitemap_products_1.xml`);
    const products = parseSitemap((await get(sim, `https://${host}/sitemap_products_1.xml`)).body);
    expect(products.entries.map((e) => e.loc)).toEqual(listProductUrls(sim.store(host)));
    expect(products.entries[0].images[0].loc).toBe(sim.store(host).product(0).images[0].url);
  });
});

describe('WooCommerce-like store', () => {
  const host = 'woo-home.test';

  it('Store API lists with paging headers and minor-unit string prices', async () => {
    const store = sim.store(host);
    const reply = await get(sim, `https://${host}/wp-json/wc/store/v1/products?per_page=4&page=2`);
    expect(reply.headers['x-wp-total']).toBe('30');
    expect(reply.headers['x-wp-totalpages']).toBe('8');
    const items = JSON.parse(reply.body);
    expect(items.map((i: { slug: string }) => i.slug)).toEqual([4, 5, 6, 7].map((i) => store.product(i).handle));
    expect(items[0].prices.price).toBe(String(Math.round(store.product(4).price * 100)));
    expect(items[0].prices.currency_code).toBe('GBP');
    expect(items[0].prices.currency_minor_unit).toBe(2);
  });

  it('Store API single product and WooCommerce HTML signals', async () => {
    const store = sim.store(host);
    const single = JSON.parse((await get(sim, `https://${host}/wp-json/wc/store/v1/products/105`)).body);
    expect(single.name).toBe(store.product(5).title);
    expect(single.is_in_stock).toBe(store.product(5).available);
    expect((await get(sim, `https://${host}/wp-json/wc/store/v1/products/99999`)).status).toBe(404);
    const page = await get(sim, store.productUrl(5));
    expect(page.body).toContain('wp-content/plugins/woocommerce');
    expect(page.body).toMatch(/class="woocommerce /);
    expect(store.productUrl(5)).toMatch(/\/product\/[^/]+\/$/);
  });
});

describe('platform-flavoured stores', () => {
  const signals: Record<string, RegExp> = {
    'bigcommerce-gear.test': /BCData|cdn11\.bigcommerce\.com/,
    'magento-outfitters.test': /Mage\.Cookies|\/static\/version\d+\/frontend\//,
    'sfcc-fashion.test': /demandware\.static|\/on\/demandware\.store\//,
    'wix-crafts.test': /Wix\.com Website Builder|static\.wixstatic\.com/,
    'squarespace-studio.test': /static1\.squarespace\.com|SQUARESPACE_CONTEXT/,
    'prestashop-boutique.test': /var prestashop =|\/modules\/ps_/,
  };
  it.each(Object.entries(signals))('%s shows its platform signals and JSON-LD', async (host, signal) => {
    const store = sim.store(host);
    const product = store.product(6);
    const page = await get(sim, product.url);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(signal);
    expect(JSON.parse(jsonLdBlocks(page.body)[0]).name).toBe(product.title);
    expect(store.platform).not.toBeNull();
  });
});

describe('markup styles and locale prices', () => {
  it('ProductGroup with hasVariant matches the variants', async () => {
    const product = sim.store('productgroup-shop.test').product(0);
    const ld = JSON.parse(jsonLdBlocks((await get(sim, product.url)).body)[0]);
    expect(ld['@type']).toBe('ProductGroup');
    expect(ld.hasVariant.map((v: { sku: string }) => v.sku)).toEqual(product.variants.map((v) => v.sku));
    expect(ld.hasVariant.map((v: { offers: { price: string } }) => Number(v.offers.price))).toEqual(
      product.variants.map((v) => v.price),
    );
  });

  it('microdata-only, OpenGraph-only and DOM-only pages carry exactly their markup', async () => {
    const micro = await get(sim, sim.store('microdata-shop.test').productUrl(1));
    expect(micro.body).toContain('itemtype="https://schema.org/Product"');
    expect(jsonLdBlocks(micro.body)).toHaveLength(0);
    const og = await get(sim, sim.store('opengraph-shop.test').productUrl(1));
    expect(og.body).toContain(
      `property="product:price:amount" content="${sim.store('opengraph-shop.test').product(1).price.toFixed(2)}"`,
    );
    expect(jsonLdBlocks(og.body)).toHaveLength(0);
    const dom = await get(sim, sim.store('dom-shop.test').productUrl(1));
    expect(jsonLdBlocks(dom.body)).toHaveLength(0);
    expect(dom.body).not.toContain('itemprop');
    expect(dom.body).not.toContain('og:');
    expect(dom.body).toContain(
      sim.store('dom-shop.test').priceStyle.format(sim.store('dom-shop.test').product(1).price),
    );
  });

  it('European and Swiss stores print locale prices', async () => {
    const euro = await get(sim, sim.store('euro-shop.test').productUrl(2));
    expect(euro.body).toMatch(/class="price price-current">\d{1,3}(\.\d{3})*,\d{2}\u00a0€</);
    const swiss = await get(sim, sim.store('swiss-shop.test').productUrl(2));
    expect(swiss.body).toMatch(/class="price price-current">CHF \d{1,3}('\d{3})*,\d{2}</);
    expect(sim.store('euro-shop.test').product(2).currency).toBe('EUR');
    expect(sim.store('swiss-shop.test').priceStyle.format(1049.95)).toBe("CHF 1'049,95");
    expect(sim.store('euro-shop.test').priceStyle.format(1299.99)).toBe('1.299,99\u00a0€');
  });

  it('stale-price store: JSON-LD price differs from the shown sale price', async () => {
    const store = sim.store('stale-price.test');
    const product = store.product(3);
    const page = await get(sim, product.url);
    const ld = JSON.parse(jsonLdBlocks(page.body)[0]);
    const offers = Array.isArray(ld.offers) ? ld.offers : [ld.offers];
    expect(Number(offers[0].price)).not.toBe(product.price);
    expect(page.body).toContain(`class="price price-current">${store.priceStyle.format(product.price)}<`);
    expect(product.compareAt).toBeGreaterThan(product.price);
  });

  it('malformed store: JSON-LD has comments and trailing commas', async () => {
    const page = await get(sim, sim.store('malformed-shop.test').productUrl(0));
    const block = jsonLdBlocks(page.body)[0];
    expect(() => JSON.parse(block)).toThrow();
    expect(block).toContain('//');
    expect(block).toMatch(/,\s*}/);
  });
});

describe('non-product pages', () => {
  it.each(['shopify-apparel.test', 'woo-home.test', 'magento-outfitters.test', 'jsonld-shop.test'])(
    '%s serves home, category, blog, search and cart',
    async (host) => {
      const store = sim.store(host);
      for (const [kind, url] of Object.entries(store.nonProductUrls)) {
        const page = await get(sim, url);
        expect(page.status, `${kind} ${url}`).toBe(200);
        expect(page.body).not.toMatch(/"@type":\s*"Product"/);
      }
      expect((await get(sim, `https://${host}/definitely-missing`)).status).toBe(404);
    },
  );
});

describe('hostile hosts', () => {
  it('robots-blocked disallows everything', async () => {
    expect((await get(sim, 'https://robots-blocked.test/robots.txt')).body).toContain('Disallow: /');
  });

  it('bot-wall answers 403 with a captcha page', async () => {
    const page = await get(sim, 'https://bot-wall.test/products/x');
    expect(page.status).toBe(403);
    expect(page.body.toLowerCase()).toContain('are you a robot');
    expect((await get(sim, 'https://bot-wall.test/challenge-200')).status).toBe(200);
  });

  it('rate-limited answers 429 with Retry-After once per URL, then the page', async () => {
    const url = sim.store('rate-limited.test').productUrl(1);
    const first = await get(sim, url);
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('1');
    expect((await get(sim, url)).status).toBe(200);
  });

  it('flaky fails a fixed number of times per URL', async () => {
    const store = sim.store('flaky.test');
    const index = [...Array(30).keys()].find((i) => flakyFailuresFor(store.productPath(i)) === 2)!;
    const url = store.productUrl(index);
    expect((await get(sim, url)).status).toBe(503);
    expect((await get(sim, url)).status).toBe(503);
    expect((await get(sim, url)).status).toBe(200);
  });

  it('redirect chain has three hops to the product', async () => {
    const first = await get(sim, 'https://redirect-chain.test/start/4');
    expect(first.status).toBe(301);
    const second = await get(sim, `https://redirect-chain.test${first.headers.location}`);
    expect(second.status).toBe(302);
    const third = await get(sim, String(second.headers.location));
    expect(third.status).toBe(307);
    expect(third.headers.location).toBe(sim.store('redirect-chain.test').productPath(4));
  });

  it('redirect-private points at the metadata address', async () => {
    const reply = await get(sim, 'https://redirect-private.test/to-metadata');
    expect(reply.status).toBe(302);
    expect(reply.headers.location).toContain('169.254.169.254');
  });

  it('non-html serves a PDF and huge-page streams past 5 MB', async () => {
    const pdf = await get(sim, 'https://non-html.test/catalog.pdf');
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.body.startsWith('%PDF')).toBe(true);
    const huge = await get(sim, sim.store('huge-page.test').productUrl(0));
    expect(huge.body.length).toBeGreaterThan(5 * 1024 * 1024);
  });

  it('slow answers only after its delay', async () => {
    const before = sim.hits('slow.test', '/?delay_ms=50');
    expect((await get(sim, 'https://slow.test/?delay_ms=50')).status).toBe(200);
    expect(sim.hits('slow.test', '/?delay_ms=50')).toBe(before + 1);
  });
});
