// The crawl stores of the simulator over real HTTP on loopback: every listing method (Shopify
// JSON, WooCommerce Store API, gzip sitemaps, paginated HTML) yields exactly the ground truth the
// crawl tests assert against; robots rules, locked JSON, 429s, removals and changes behave.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSitemap } from '../../lambdas/domain/extraction/sitemap';
import { startStoreSimulator, type StoreSimulator } from '../stores';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  bytes: Buffer;
}

/** GET with the URL's host as Host header, like a client using PDS_RESOLVE. */
function get(sim: StoreSimulator, url: string): Promise<Reply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: sim.port, path: `${target.pathname}${target.search}`, headers: { host: target.host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let bytes = Buffer.concat(chunks);
          if (res.headers['content-encoding'] === 'gzip') bytes = gunzipSync(bytes);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
        });
      },
    );
    req.on('error', reject);
  });
}
const getJson = async (sim: StoreSimulator, url: string) => {
  const reply = await get(sim, url);
  return { ...reply, json: JSON.parse(reply.body) };
};

const shopifyUrl = (host: string, handle: string) => `https://${host}/products/${handle}`;
const sorted = (list: string[]) => [...list].sort();

/** Every product of a Shopify JSON listing, page by page at `limit`, until an empty page. */
async function shopifyAll(sim: StoreSimulator, host: string, path: string, limit = 250) {
  const urls: string[] = [];
  let pages = 0;
  for (let page = 1; page <= 1000; page++) {
    const { json } = await getJson(sim, `https://${host}${path}?limit=${limit}&page=${page}`);
    pages++;
    if (json.products.length === 0) break;
    urls.push(...json.products.map((p: { handle: string }) => shopifyUrl(host, p.handle)));
  }
  return { urls, pages };
}

/** Follows rel=next from a collection's first HTML page; returns product URLs (absolute) and pages read. */
async function followHtml(sim: StoreSimulator, firstUrl: string) {
  const urls: string[] = [];
  let next: string | null = firstUrl;
  let pages = 0;
  while (next && pages < 1000) {
    const reply = await get(sim, next);
    expect(reply.status).toBe(200);
    const $ = load(reply.body);
    $('li.product-card > a').each((_, a) => void urls.push(new URL($(a).attr('href')!, next!).href));
    const rel = $('link[rel=next]').attr('href');
    next = rel ? new URL(rel, next).href : null;
    pages++;
  }
  return { urls, pages };
}

let sim: StoreSimulator;
beforeAll(async () => {
  sim = await startStoreSimulator({ seed: 3, retryAfterSeconds: 2, storeSizes: { 'shopify-huge.test': 100_000 } });
});
afterAll(async () => {
  await sim?.close();
});

describe('crawl stores: ground truth', () => {
  it('has collections of many sizes, overlapping, that together cover every listing', () => {
    const catalog = sim.catalog('shopify-collections.test');
    const sizes = catalog.collections.map((c) => c.size());
    expect(new Set(sizes).size).toBe(sizes.length);
    expect(sizes).toContain(0);
    expect(sizes).toContain(1);
    expect(sizes).toContain(250);
    expect(Math.max(...sizes)).toBeGreaterThan(500);
    const union = new Set(catalog.collections.flatMap((c) => c.productUrls()));
    expect(sorted([...union])).toEqual(sorted(catalog.listingUrls()));
    expect(catalog.listingCount()).toBe(1200);
    const multi = catalog.listingIndexes().filter((i) => catalog.collectionsOf(i).length >= 3);
    expect(multi.length).toBeGreaterThan(50);
    // Sizes agree with the member lists.
    for (const c of catalog.collections) expect(c.productUrls()).toHaveLength(c.size());
  });

  it('extraction hosts are untouched: crawl stores are listed apart and resolve like every host', () => {
    expect(sim.stores.map((s) => s.host)).not.toContain('shopify-collections.test');
    expect(sim.crawlStores.map((s) => s.host)).toEqual(
      expect.arrayContaining([
        'shopify-collections.test',
        'woo-categories.test',
        'sitemap-only.test',
        'html-only.test',
        'shopify-huge.test',
      ]),
    );
    expect(sim.resolveEnv).toContain(`html-only.test=127.0.0.1:${sim.port}`);
    expect(() => sim.catalog('shopify-apparel.test')).toThrow();
  });
});

describe('Shopify-like store', () => {
  const host = 'shopify-collections.test';

  it('/collections.json gives every collection with its exact products_count', async () => {
    const { json } = await getJson(sim, `https://${host}/collections.json?limit=250`);
    const catalog = sim.catalog(host);
    expect(
      json.collections.map((c: { handle: string; products_count: number }) => [c.handle, c.products_count]),
    ).toEqual(catalog.collections.map((c) => [c.handle, c.size()]));
    // Paged like Shopify: past the end is empty.
    expect((await getJson(sim, `https://${host}/collections.json?limit=250&page=2`)).json.collections).toEqual([]);
  });

  it('/collections/<handle>/products.json pages at 250 to exactly the members, then an empty page', async () => {
    const catalog = sim.catalog(host);
    for (const collection of catalog.collections) {
      const { urls, pages } = await shopifyAll(sim, host, `/collections/${collection.handle}/products.json`);
      expect(urls).toEqual(collection.productUrls());
      expect(pages).toBe(Math.ceil(collection.size() / 250) + 1);
    }
    expect((await get(sim, `https://${host}/collections/no-such/products.json`)).status).toBe(404);
  });

  it('/products.json pages every listing; limit is capped at 250; products carry image sizes', async () => {
    const { urls } = await shopifyAll(sim, host, '/products.json');
    expect(urls).toEqual(sim.catalog(host).listingUrls());
    const big = await getJson(sim, `https://${host}/products.json?limit=1000&page=1`);
    expect(big.json.products).toHaveLength(250);
    const image = big.json.products[0].images[0];
    expect(image).toMatchObject({ width: 1200, height: 1200, position: 1 });
    const p = sim.store(host).product(0);
    expect(big.json.products[0].variants[0].price).toBe(p.variants[0].price.toFixed(2));
  });

  it('home links every collection; collection HTML pages follow rel=next to exactly the members', async () => {
    const catalog = sim.catalog(host);
    const $ = load((await get(sim, `https://${host}/`)).body);
    const linked = new Set(
      $('a')
        .map((_, a) => new URL($(a).attr('href')!, `https://${host}/`).href)
        .get(),
    );
    for (const c of catalog.collections) expect(linked.has(c.url)).toBe(true);
    const sale = catalog.collection('sale')!;
    const { urls, pages } = await followHtml(sim, sale.url);
    expect(urls).toEqual(sale.productUrls());
    expect(pages).toBe(Math.ceil(sale.size() / catalog.htmlPageSize));
    // Shopify answers an empty grid past the end.
    const past = await get(sim, `${sale.url}?page=${pages + 5}`);
    expect(past.status).toBe(200);
    expect(load(past.body)('li.product-card')).toHaveLength(0);
  });

  it('product pages, .js and sitemaps serve listed products', async () => {
    const catalog = sim.catalog(host);
    const url = catalog.listingUrls({ offset: 7, limit: 1 })[0];
    expect((await get(sim, url)).status).toBe(200);
    expect((await get(sim, `${url}.js`)).status).toBe(200);
    const index = parseSitemap((await get(sim, `https://${host}/sitemap.xml`)).body);
    const locs = index.entries.map((e) => e.loc);
    expect(locs).toContain(`https://${host}/sitemap_collections_1.xml`);
    const products: string[] = [];
    for (const loc of locs.filter((l) => l.includes('sitemap_products_')))
      products.push(...parseSitemap((await get(sim, loc)).body).entries.map((e) => e.loc));
    // Shopify's first product sitemap lists the home page before the products.
    expect(products).toEqual([`https://${host}/`, ...catalog.listingUrls()]);
    const collections = parseSitemap((await get(sim, `https://${host}/sitemap_collections_1.xml`)).body).entries.map(
      (e) => e.loc,
    );
    expect(collections).toEqual(catalog.collections.map((c) => c.url));
  });
});

describe('WooCommerce-like store', () => {
  const host = 'woo-categories.test';
  const api = `https://${host}/wp-json/wc/store/v1/products`;

  it('lists categories with exact counts', async () => {
    const catalog = sim.catalog(host);
    const { json } = await getJson(sim, `${api}/categories`);
    expect(json.map((c: { id: number; count: number; permalink: string }) => [c.id, c.count, c.permalink])).toEqual(
      catalog.collections.map((c) => [c.id, c.size(), c.url]),
    );
  });

  it('pages the Store API at 100 with X-WP-Total / X-WP-TotalPages, per category and overall', async () => {
    const catalog = sim.catalog(host);
    for (const collection of [...catalog.collections.slice(0, 3), catalog.collection('archive')!]) {
      const first = await getJson(sim, `${api}?category=${collection.id}&per_page=100&page=1`);
      expect(Number(first.headers['x-wp-total'])).toBe(collection.size());
      const totalPages = Number(first.headers['x-wp-totalpages']);
      expect(totalPages).toBe(Math.ceil(collection.size() / 100));
      const urls: string[] = first.json.map((p: { permalink: string }) => p.permalink);
      for (let page = 2; page <= totalPages; page++) {
        urls.push(
          ...(await getJson(sim, `${api}?category=${collection.id}&per_page=100&page=${page}`)).json.map(
            (p: { permalink: string }) => p.permalink,
          ),
        );
      }
      expect(urls).toEqual(collection.productUrls());
    }
    const all: string[] = [];
    const first = await getJson(sim, `${api}?per_page=100&page=1`);
    expect(first.headers.link).toContain('page=2');
    for (let page = 1; page <= Number(first.headers['x-wp-totalpages']); page++) {
      all.push(
        ...(await getJson(sim, `${api}?per_page=100&page=${page}`)).json.map((p: { permalink: string }) => p.permalink),
      );
    }
    expect(all).toEqual(catalog.listingUrls());
    expect((await getJson(sim, `${api}?per_page=100&page=99`)).json).toEqual([]);
  });

  it('refuses per_page above 100 like WordPress, and products name their categories', async () => {
    const refused = await getJson(sim, `${api}?per_page=250`);
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('rest_invalid_param');
    const catalog = sim.catalog(host);
    const { json } = await getJson(sim, `${api}?per_page=5&page=1`);
    expect(json[1].categories.map((c: { id: number }) => c.id)).toEqual(catalog.collectionsOf(1).map((c) => c.id));
  });

  it('category HTML pages paginate with /page/N/ and 404 past the end', async () => {
    const catalog = sim.catalog(host);
    const tops = catalog.collection('tops')!;
    const { urls, pages } = await followHtml(sim, tops.url);
    expect(urls).toEqual(tops.productUrls());
    expect((await get(sim, `${tops.url}page/${pages + 1}/`)).status).toBe(404);
    expect((await get(sim, `${tops.url}page/2/`)).status).toBe(200);
  });
});

describe('sitemap-only store', () => {
  const host = 'sitemap-only.test';

  it('robots.txt names a sitemap index whose gzip children list exactly the listings and collections', async () => {
    const catalog = sim.catalog(host);
    const robots = (await get(sim, `https://${host}/robots.txt`)).body;
    const sitemapUrl = /^Sitemap: (\S+)$/m.exec(robots)![1];
    const index = parseSitemap((await get(sim, sitemapUrl)).body);
    expect(index.type).toBe('sitemapindex');
    const children = index.entries.map((e) => e.loc);
    expect(children.filter((c) => c.includes('/products-'))).toHaveLength(Math.ceil(1200 / catalog.sitemapChildSize));
    const products: string[] = [];
    const collections: string[] = [];
    for (const child of children) {
      const reply = await get(sim, child);
      if (child.endsWith('.gz')) {
        expect(reply.headers['content-type']).toBe('application/x-gzip');
        expect(reply.bytes[0]).toBe(0x1f);
        expect(gunzipSync(reply.bytes).toString('utf8')).toContain('<urlset');
      }
      const entries = parseSitemap(reply.bytes).entries.map((e) => e.loc);
      if (child.includes('/products-')) products.push(...entries);
      if (child.includes('/collections-')) collections.push(...entries);
    }
    expect(products).toEqual(catalog.listingUrls());
    expect(collections).toEqual(catalog.collections.map((c) => c.url));
  });

  it('has no platform API; its collection pages paginate with rel=next', async () => {
    expect((await get(sim, `https://${host}/products.json`)).status).toBe(404);
    expect((await get(sim, `https://${host}/collections.json`)).status).toBe(404);
    expect((await get(sim, `https://${host}/wp-json/wc/store/v1/products`)).status).toBe(404);
    const c = sim.catalog(host).collection('bestsellers')!;
    const { urls } = await followHtml(sim, c.url);
    expect(urls).toEqual(c.productUrls());
    expect((await get(sim, `${c.url}?page=99`)).status).toBe(404);
  });
});

describe('HTML-only store', () => {
  const host = 'html-only.test';

  it('has no sitemap and robots.txt names none', async () => {
    expect((await get(sim, `https://${host}/robots.txt`)).body).not.toMatch(/sitemap/i);
    expect((await get(sim, `https://${host}/sitemap.xml`)).status).toBe(404);
    expect((await get(sim, `https://${host}/sitemap_products_1.xml`)).status).toBe(404);
  });

  it('home links every category; ?page=N pages with rel=next cover exactly each category', async () => {
    const catalog = sim.catalog(host);
    const $ = load((await get(sim, `https://${host}/`)).body);
    const linked = new Set(
      $('a')
        .map((_, a) => new URL($(a).attr('href')!, `https://${host}/`).href)
        .get(),
    );
    const found = new Set<string>();
    for (const c of catalog.collections) {
      expect(linked.has(c.url)).toBe(true);
      const { urls, pages } = await followHtml(sim, c.url);
      expect(urls).toEqual(c.productUrls());
      expect(pages).toBe(Math.max(1, Math.ceil(c.size() / catalog.htmlPageSize)));
      for (const u of urls) found.add(u);
    }
    expect(sorted([...found])).toEqual(sorted(catalog.listingUrls()));
    const tops = catalog.collection('tops')!;
    expect((await get(sim, `${tops.url}?page=2`)).body).toContain('rel="prev"');
    expect((await get(sim, `${tops.url}?page=999`)).status).toBe(404);
  });
});

describe('HTML store paged by numbered /page/N/ links', () => {
  const host = 'html-numbered.test';

  it('has no rel=next and no "Next" label; the numbered links cover exactly each category', async () => {
    const catalog = sim.catalog(host);
    const tops = catalog.collection('tops')!;
    const first = await get(sim, tops.url);
    expect(first.body).not.toMatch(/rel="next"|>Next</);
    const urls: string[] = [];
    const pages = Math.ceil(tops.size() / catalog.htmlPageSize);
    expect(pages).toBeGreaterThan(2);
    for (let n = 1; n <= pages; n++) {
      const url = n === 1 ? tops.url : `${tops.url}/page/${n}/`;
      const $ = load((await get(sim, url)).body);
      if (n < pages) expect($(`a[href="/category/tops/page/${n + 1}/"]`).length).toBeGreaterThan(0);
      $('li.product-card > a').each((_, a) => void urls.push(new URL($(a).attr('href')!, url).href));
    }
    expect(urls).toEqual(tops.productUrls());
    expect((await get(sim, `${tops.url}/page/${pages + 1}/`)).status).toBe(404);
  });
});

describe('robots rules, locked JSON and 429s', () => {
  it('robots.txt of the robots stores forbids the fast paths; violations are counted', async () => {
    const shop = sim.catalog('shopify-robots.test');
    const robots = (await get(sim, 'https://shopify-robots.test/robots.txt')).body;
    expect(robots).toMatch(/^Disallow: \/products\.json$/m);
    expect(robots).toMatch(/^Disallow: \/collections\/\*\/products\.json$/m);
    expect(shop.isDisallowed('/collections/tops/products.json?limit=250&page=1')).toBe(true);
    expect(shop.isDisallowed('/collections/tops?sort_by=price')).toBe(true);
    expect(shop.isDisallowed('/collections/tops')).toBe(false);
    expect(shop.isDisallowed('/sitemap.xml')).toBe(false);
    sim.resetRequestCounts('shopify-robots.test');
    await get(sim, 'https://shopify-robots.test/sitemap.xml');
    expect(sim.robotsViolations('shopify-robots.test').count).toBe(0);
    await get(sim, 'https://shopify-robots.test/products.json?limit=250');
    expect(sim.robotsViolations('shopify-robots.test')).toEqual({ count: 1, paths: ['/products.json?limit=250'] });

    const woo = (await get(sim, 'https://woo-robots.test/robots.txt')).body;
    expect(woo).toMatch(/^Disallow: \/wp-json\/$/m);
    expect(woo).toMatch(/^Sitemap: https:\/\/woo-robots\.test\/sitemap\.xml$/m);
    const products = parseSitemap((await get(sim, 'https://woo-robots.test/product-sitemap.xml')).body).entries.map(
      (e) => e.loc,
    );
    // Yoast's product sitemap lists the shop archive before the products.
    expect(products).toEqual(['https://woo-robots.test/shop/', ...sim.catalog('woo-robots.test').listingUrls()]);
  });

  it('a Shopify-like store whose JSON answers 401/404 still has sitemaps and HTML', async () => {
    const host = 'shopify-locked.test';
    expect((await get(sim, `https://${host}/products.json?limit=250&page=1`)).status).toBe(401);
    expect((await get(sim, `https://${host}/collections.json`)).status).toBe(404);
    expect((await get(sim, `https://${host}/collections/tops/products.json`)).status).toBe(401);
    const catalog = sim.catalog(host);
    const first = catalog.listingUrls({ offset: 0, limit: 1 })[0];
    expect((await get(sim, `${first}.js`)).status).toBe(401);
    const page = await get(sim, first);
    expect(page.status).toBe(200);
    expect(page.headers['x-shopid']).toBeDefined();
    const products = parseSitemap((await get(sim, `https://${host}/sitemap_products_1.xml`)).body).entries.map(
      (e) => e.loc,
    );
    expect(products).toEqual([`https://${host}/`, ...catalog.listingUrls()]);
  });

  it('the repeating store serves its last page again past the end (a crawl must stop on no new ids)', async () => {
    const host = 'shopify-repeating.test';
    const catalog = sim.catalog(host);
    const handles = async (path: string) =>
      (await getJson(sim, `https://${host}${path}`)).json.products.map((p: { handle: string }) => p.handle);
    const last = await handles('/products.json?limit=250&page=3');
    expect(last).toHaveLength(100);
    expect(await handles('/products.json?limit=250&page=4')).toEqual(last);
    expect(await handles('/products.json?limit=250&page=40')).toEqual(last);
    const tops = catalog.collection('tops')!;
    const topsLast = await handles('/collections/tops/products.json?limit=250&page=2');
    expect(topsLast).toHaveLength(tops.size() - 250);
    expect(await handles('/collections/tops/products.json?limit=250&page=3')).toEqual(topsLast);
    // An empty collection stays empty.
    expect(await handles('/collections/archive/products.json?limit=250&page=2')).toEqual([]);
  });

  it('throttled listing endpoints answer 429 + Retry-After once per URL, then the page', async () => {
    const host = 'shopify-throttled.test';
    sim.resetRequestCounts(host);
    const first = await get(sim, `https://${host}/products.json?limit=250&page=2`);
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('2');
    const second = await getJson(sim, `https://${host}/products.json?limit=250&page=2`);
    expect(second.status).toBe(200);
    expect(second.json.products).toHaveLength(250);
    expect((await get(sim, `https://${host}/collections.json`)).status).toBe(429);
    // Product pages are not throttled.
    expect((await get(sim, sim.catalog(host).listingUrls({ limit: 1 })[0])).status).toBe(200);
    const counts = sim.requestCounts(host);
    expect(counts).toMatchObject({ total: 4, api: 3, product: 1, throttled: 2 });
  });
});

describe('the 100,000-product store', () => {
  const host = 'shopify-huge.test';

  it('answers any page without materialising the catalog', async () => {
    const catalog = sim.catalog(host);
    expect(catalog.listingCount()).toBe(100_000);
    const last = await getJson(sim, `https://${host}/products.json?limit=250&page=400`);
    expect(last.json.products).toHaveLength(250);
    expect(shopifyUrl(host, last.json.products.at(-1).handle)).toBe(sim.store(host).productUrl(99_999));
    expect((await getJson(sim, `https://${host}/products.json?limit=250&page=401`)).json.products).toEqual([]);
    const { json } = await getJson(sim, `https://${host}/collections.json`);
    const tops = json.collections.find((c: { handle: string }) => c.handle === 'tops');
    expect(tops.products_count).toBe(55_000);
    const deep = await getJson(sim, `https://${host}/collections/sale/products.json?limit=250&page=100`);
    expect(deep.json.products.map((p: { handle: string }) => shopifyUrl(host, p.handle))).toEqual(
      catalog
        .collection('sale')!
        .productIndexes(99 * 250, 250)
        .map((i) => sim.store(host).productUrl(i)),
    );
  });
});

describe('re-crawl support: removals and changes', () => {
  it('a removed product leaves every listing surface; a changed one shows its new price and date', async () => {
    const host = 'woo-categories.test';
    const shop = 'shopify-collections.test';
    const catalog = sim.catalog(shop);
    const tops = catalog.collection('tops')!;
    const before = tops.size();
    const gone = catalog.listingUrls({ offset: 3, limit: 1 })[0];
    try {
      catalog.remove([3, 4]);
      catalog.change(10, { price: 1.5 });
      expect(catalog.listingCount()).toBe(1198);
      expect(tops.size()).toBe(before - 2);
      const { urls } = await shopifyAll(sim, shop, '/products.json');
      expect(urls).toEqual(catalog.listingUrls());
      expect(urls).not.toContain(gone);
      expect((await shopifyAll(sim, shop, '/collections/tops/products.json')).urls).toEqual(tops.productUrls());
      const counts = (await getJson(sim, `https://${shop}/collections.json`)).json.collections;
      expect(counts.find((c: { handle: string }) => c.handle === 'tops').products_count).toBe(before - 2);
      expect((await get(sim, gone)).status).toBe(404);
      expect((await get(sim, `${gone}.json`)).status).toBe(404);
      const sitemap = parseSitemap((await get(sim, `https://${shop}/sitemap_products_1.xml`)).body).entries.map(
        (e) => e.loc,
      );
      expect(sitemap).not.toContain(gone);
      const page1 = (await getJson(sim, `https://${shop}/products.json?limit=20&page=1`)).json.products;
      const changed = page1.find((p: { handle: string }) => p.handle === sim.store(shop).product(10).handle);
      expect(Number(changed.variants[0].price)).toBeCloseTo(
        1.5 + (sim.store(shop).product(10).variants[0].price - 1.5),
        2,
      );
      expect(Math.min(...changed.variants.map((v: { price: string }) => Number(v.price)))).toBeCloseTo(1.5, 2);
      expect(changed.updated_at).toMatch(/^2024-06-01/);
      const woo = sim.catalog(host);
      woo.remove([0]);
      expect(
        (await getJson(sim, `https://${host}/wp-json/wc/store/v1/products?per_page=100`)).headers['x-wp-total'],
      ).toBe(String(449));
      expect((await get(sim, `https://${host}/wp-json/wc/store/v1/products/100`)).status).toBe(404);
    } finally {
      catalog.reset();
      sim.catalog(host).reset();
    }
    expect(catalog.listingCount()).toBe(1200);
    expect((await get(sim, gone)).status).toBe(200);
  });
});

describe('request counting and fixed-host origins', () => {
  it('counts requests per host by kind, and listenAs serves one host without a Host header', async () => {
    const host = 'html-only.test';
    sim.resetRequestCounts(host);
    const origin = await sim.listenAs(host);
    const home = await fetch(`${origin}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('HTML Only');
    const product = sim.catalog(host).listingUrls({ limit: 1 })[0];
    expect((await fetch(`${origin}${new URL(product).pathname}`)).status).toBe(200);
    await fetch(`${origin}/robots.txt`);
    await fetch(`${origin}/category/tops?page=2`);
    expect(sim.requestCounts(host)).toMatchObject({ total: 4, listing: 2, product: 1, robots: 1 });
  });
});
