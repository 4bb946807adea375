// The store simulator: one HTTP server on 127.0.0.1 (port 0) serving every simulated store as a
// virtual host chosen by the Host header. Point the fetcher at it with PDS_RESOLVE / `resolve`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import {
  buildStore,
  flakyFailuresFor,
  listProductUrls,
  STORE_SPECS,
  type SimProduct,
  type StoreModel,
} from './catalog';
import { buildCrawlStore, CRAWL_STORE_SPECS, type CrawlCatalog } from './crawl-catalog';
import { crawlRoute } from './crawl-routes';
import { QUALITY_HOSTS, QUALITY_STORE_SPECS, qualityRoute } from './quality-pages';
import { type Canary, RENDERED_HOSTS, RENDERED_STORE_SPECS, renderedRoute, startCanary } from './rendered-pages';
import {
  botWallPage,
  pagesSitemap,
  PDF_BYTES,
  PIXEL_PNG,
  productSitemap,
  renderBlogPost,
  renderCart,
  renderListingPage,
  renderNotFound,
  renderProductPage,
  robotsTxt,
  shopifyAjaxProduct,
  shopifyJsonProduct,
  sitemapIndex,
  wooProduct,
} from './pages';

export interface StoreSimulatorOptions {
  /** Products per store (default 40). Generated lazily: tens of thousands cost no memory. */
  productsPerStore?: number;
  /** Changes every generated value (default 1). */
  seed?: number;
  /** How long the slow host waits before answering (default 5000 ms; `?delay_ms=` overrides). */
  slowDelayMs?: number;
  /** Retry-After seconds the rate-limited host sends (default 1; `?retry_after=` overrides). */
  retryAfterSeconds?: number;
  /** Size of the huge page (default 8 MB). */
  hugePageBytes?: number;
  /** Products of the crawl stores by host (each has its own default; `productsPerStore` does not apply to them). */
  storeSizes?: Record<string, number>;
}

/** Requests one host has seen, by kind of path. */
export interface RequestCounts {
  total: number;
  robots: number;
  sitemap: number;
  /** Platform JSON: Shopify .json/.js, WooCommerce /wp-json/. */
  api: number;
  /** Home, collection and category pages. */
  listing: number;
  product: number;
  asset: number;
  other: number;
  /** Requests answered 429. */
  throttled: number;
}

export interface StoreSimulator {
  port: number;
  origin: string;
  hosts: string[];
  /** host -> "127.0.0.1:port", for createHttpFetcher({ resolve }). */
  resolve: Record<string, string>;
  /** PDS_RESOLVE value: "host=127.0.0.1:port,...". */
  resolveEnv: string;
  /** The extraction stores (the crawl stores are in `crawlStores`). */
  stores: StoreModel[];
  /** Stores whose products only render in a browser (rendered-pages.ts); in `hosts`, not in `stores`. */
  renderedStores: StoreModel[];
  /** The loopback listener the hostile rendered store's scripts try to reach: it counts connections. */
  canary: Canary;
  /** Stores with collections for crawls; ground truth in `catalog(host)`. */
  crawlStores: StoreModel[];
  store(host: string): StoreModel;
  /** Ground truth of a crawl store: its listings, collections and their exact members. */
  catalog(host: string): CrawlCatalog;
  /** Requests a host has seen since start or the last reset, by kind. */
  requestCounts(host: string): RequestCounts;
  resetRequestCounts(host?: string): void;
  /** Requests to a crawl store that its robots.txt forbids (first 20 paths and the count). */
  robotsViolations(host: string): { count: number; paths: string[] };
  /**
   * An extra loopback origin that serves only `host`, whatever the Host header says: for clients
   * that cannot send a Host header of their own (a crawler started at this origin).
   */
  listenAs(host: string): Promise<string>;
  /** How many requests the simulator has seen for host + path (with query). */
  hits(host: string, pathAndQuery: string): number;
  /** Most requests one host has had in flight at the same time. */
  peakConcurrency(host: string): number;
  close(): Promise<void>;
}

type Reply = {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** A long poll's answer: sent after this long. */
  holdMs?: number;
};

const html = (body: string, status = 200, headers: Record<string, string | string[]> = {}): Reply => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body,
});
const json = (value: unknown, headers: Record<string, string> = {}): Reply => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(value),
});
const xml = (body: string): Reply => ({
  status: 200,
  headers: { 'content-type': 'application/xml; charset=utf-8' },
  body,
});
const redirect = (status: number, location: string): Reply => ({ status, headers: { location }, body: '' });

export async function startStoreSimulator(options: StoreSimulatorOptions = {}): Promise<StoreSimulator> {
  const productsPerStore = Math.max(1, options.productsPerStore ?? 40);
  const seed = options.seed ?? 1;
  const slowDelayMs = options.slowDelayMs ?? 5000;
  const retryAfterSeconds = options.retryAfterSeconds ?? 1;
  const hugePageBytes = options.hugePageBytes ?? 8 * 1024 * 1024;
  const stores = STORE_SPECS.map((spec) => buildStore(spec, productsPerStore, seed));
  const catalogs = CRAWL_STORE_SPECS.map((spec) =>
    buildCrawlStore(spec, Math.max(1, options.storeSizes?.[spec.host] ?? spec.defaultSize), seed),
  );
  const catalogByHost = new Map(catalogs.map((c) => [c.host, c]));
  const crawlStores = catalogs.map((c) => c.store);
  // Extraction-quality hosts (quality-pages.ts): reachable and in `hosts`, not in `stores`.
  const qualityStores = QUALITY_STORE_SPECS.map((spec) => buildStore(spec, productsPerStore, seed));
  const renderedStores = RENDERED_STORE_SPECS.map((spec) => buildStore(spec, productsPerStore, seed));
  const canary = await startCanary();
  const byHost = new Map([...stores, ...crawlStores, ...qualityStores, ...renderedStores].map((s) => [s.host, s]));
  const counts = new Map<string, RequestCounts>();
  const violations = new Map<string, { count: number; paths: string[] }>();
  const extraServers: http.Server[] = [];
  const hitCounts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  let port = 0;

  const countHit = (key: string) => {
    if (hitCounts.size > 100_000) hitCounts.clear();
    const n = (hitCounts.get(key) ?? 0) + 1;
    hitCounts.set(key, n);
    return n;
  };

  const related = (store: StoreModel, index: number): SimProduct[] =>
    [1, 2]
      .map((k) => (index + k) % store.productCount)
      .filter((i) => i !== index)
      .map((i) => store.product(i));

  /** Product index for a path, verified against the store's own URL layout. */
  function productIndexFor(store: StoreModel, pathname: string): number | null {
    for (const match of pathname.matchAll(/-(\d+)(?=[/.]|$)/g)) {
      const index = Number(match[1]);
      if (index < store.productCount && store.productPath(index).replace(/\?.*$/, '') === pathname) return index;
    }
    return null;
  }

  function route(store: StoreModel, url: URL, req: http.IncomingMessage): Reply | 'huge' | 'slow-body' {
    const { pathname, searchParams } = url;
    const key = `${store.host}${pathname}${url.search}`;
    const attempt = countHit(key);

    const catalog = catalogByHost.get(store.host);
    if (catalog) {
      const reply = crawlRoute(catalog, url, attempt, retryAfterSeconds);
      if (reply) return reply;
    }
    if (pathname === '/robots.txt')
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: robotsTxt(store) };
    // Lets tests see exactly what a client sent (User-Agent, Accept-Language, Host).
    if (pathname === '/debug/headers') return json({ headers: req.headers, url: req.url });

    switch (store.behaviour) {
      case 'bot-wall':
        if (pathname === '/challenge-200') return html(botWallPage(), 200);
        return html(botWallPage(), 403);
      case 'rate-limited':
        if (attempt === 1)
          return html('<h1>Too many requests</h1>', 429, {
            'retry-after': searchParams.get('retry_after') ?? String(retryAfterSeconds),
          });
        break;
      case 'flaky':
        if (pathname === '/always-down') return html('<h1>Service unavailable</h1>', 503);
        if (attempt <= flakyFailuresFor(`${pathname}${url.search}`)) return html('<h1>Service unavailable</h1>', 503);
        break;
      case 'redirect-chain': {
        const hop = /^\/(start|hop1|hop2)\/(\d+)$/.exec(pathname);
        if (hop) {
          const index = Number(hop[2]);
          if (hop[1] === 'start') return redirect(301, `/hop1/${index}`);
          if (hop[1] === 'hop1') return redirect(302, `https://${store.host}/hop2/${index}`);
          return redirect(307, store.productPath(index % store.productCount));
        }
        if (pathname === '/loop') return redirect(302, '/loop');
        break;
      }
      case 'redirect-private':
        if (pathname === '/to-metadata')
          return redirect(302, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/');
        if (pathname === '/to-private') return redirect(302, 'http://10.0.0.5/admin');
        if (pathname === '/to-loopback') return redirect(302, `http://127.0.0.1:${port}/`);
        if (pathname === '/to-ipv6-mapped') return redirect(302, 'http://[::ffff:169.254.169.254]/');
        if (pathname === '/to-ftp') return redirect(302, 'ftp://files.example/catalog.pdf');
        break;
      case 'non-html':
        if (pathname === '/catalog.pdf' || productIndexFor(store, pathname) !== null) {
          return { status: 200, headers: { 'content-type': 'application/pdf' }, body: PDF_BYTES };
        }
        break;
      case 'huge':
        if (pathname === '/huge-declared' || productIndexFor(store, pathname) !== null) return 'huge';
        break;
      case 'slow':
        if (pathname === '/slow-body') return 'slow-body';
        break;
      default:
        break;
    }

    if (pathname === '/sitemap.xml') return xml(sitemapIndex(store));
    const sitemapPage = /^\/sitemap_products_(\d+)\.xml$/.exec(pathname);
    if (sitemapPage) {
      const body = productSitemap(store, Number(sitemapPage[1]));
      return body ? xml(body) : html(renderNotFound(store), 404);
    }
    if (pathname === '/sitemap_pages_1.xml') return xml(pagesSitemap(store));
    if (pathname.startsWith('/cdn/images/'))
      return { status: 200, headers: { 'content-type': 'image/png' }, body: PIXEL_PNG };
    const rendered = RENDERED_HOSTS.has(store.host)
      ? renderedRoute(store, url, (p) => productIndexFor(store, p), canary.origin)
      : null;
    if (rendered) return rendered;
    const quality = QUALITY_HOSTS.has(store.host)
      ? qualityRoute(
          store,
          url,
          (p) => productIndexFor(store, p),
          (i) => related(store, i),
        )
      : null;
    if (quality) return quality;

    const platformReply =
      store.flavor === 'shopify'
        ? shopifyRoute(store, url)
        : store.flavor === 'woocommerce'
          ? wooRoute(store, url)
          : null;
    if (platformReply) return platformReply;

    const headers: Record<string, string | string[]> =
      store.flavor === 'shopify'
        ? { 'x-shopid': '5550001', 'x-shopify-stage': 'production', 'set-cookie': '_shopify_y=sim; path=/' }
        : {};
    const index = productIndexFor(store, pathname);
    if (index !== null)
      return html(renderProductPage(store, store.product(index), related(store, index)), 200, headers);

    const pages = store.nonProductUrls;
    const pathOf = (u: string) => new URL(u).pathname;
    const firstProducts = (n: number, offset = 0) =>
      Array.from({ length: Math.min(n, store.productCount - offset) }, (_, k) => store.product(offset + k));
    if (pathname === '/' && (searchParams.has('s') || searchParams.has('q'))) {
      return html(
        renderListingPage(
          store,
          `Search results for "${searchParams.get('s') ?? searchParams.get('q')}"`,
          firstProducts(6),
          'search',
        ),
        200,
        headers,
      );
    }
    if (pathname === '/') return html(renderListingPage(store, store.name, firstProducts(8), 'home'), 200, headers);
    if (pathname === pathOf(pages.category)) {
      const page = Math.max(1, Number(searchParams.get('page') ?? 1) || 1);
      return html(
        renderListingPage(
          store,
          'All products',
          firstProducts(24, Math.min(store.productCount, (page - 1) * 24)),
          'category',
        ),
        200,
        headers,
      );
    }
    if (pathname === pathOf(pages.search))
      return html(renderListingPage(store, 'Search results', firstProducts(6), 'search'), 200, headers);
    if (pathname === pathOf(pages.blog)) return html(renderBlogPost(store, store.product(0)), 200, headers);
    if (pathname === pathOf(pages.cart)) return html(renderCart(store), 200, headers);
    return html(renderNotFound(store), 404);
  }

  function shopifyRoute(store: StoreModel, url: URL): Reply | null {
    const { pathname, searchParams } = url;
    const endpoint = /^\/products\/([^/]+)\.(js|json)$/.exec(pathname);
    if (endpoint) {
      const index = productIndexFor(store, `/products/${endpoint[1]}`);
      if (index === null)
        return { status: 404, headers: { 'content-type': 'application/json' }, body: '{"errors":"Not Found"}' };
      const product = store.product(index);
      return json(endpoint[2] === 'js' ? shopifyAjaxProduct(product) : { product: shopifyJsonProduct(product) });
    }
    const listing = pathname === '/products.json' || /^\/collections\/[^/]+\/products\.json$/.test(pathname);
    if (listing) {
      const limit = Math.min(250, Math.max(1, Number(searchParams.get('limit') ?? 30) || 30));
      const page = Math.max(1, Number(searchParams.get('page') ?? 1) || 1);
      const start = (page - 1) * limit;
      const products = [];
      for (let i = start; i < Math.min(store.productCount, start + limit); i++)
        products.push(shopifyJsonProduct(store.product(i)));
      return json({ products });
    }
    if (pathname === '/collections.json') {
      return json({
        collections: [
          {
            id: 1,
            handle: 'all',
            title: 'All products',
            products_count: store.productCount,
            published_at: '2024-01-01T00:00:00-05:00',
          },
        ],
      });
    }
    return null;
  }

  function wooRoute(store: StoreModel, url: URL): Reply | null {
    const { pathname, searchParams } = url;
    if (pathname === '/wp-json/wc/store/v1/products') {
      const perPage = Math.min(100, Math.max(1, Number(searchParams.get('per_page') ?? 10) || 10));
      const page = Math.max(1, Number(searchParams.get('page') ?? 1) || 1);
      const start = (page - 1) * perPage;
      const items = [];
      for (let i = start; i < Math.min(store.productCount, start + perPage); i++)
        items.push(wooProduct(store, store.product(i)));
      return json(items, {
        'x-wp-total': String(store.productCount),
        'x-wp-totalpages': String(Math.ceil(store.productCount / perPage)),
      });
    }
    const single = /^\/wp-json\/wc\/store\/v1\/products\/(\d+)$/.exec(pathname);
    if (single) {
      const index = Number(single[1]) - 100;
      if (index < 0 || index >= store.productCount) {
        return {
          status: 404,
          headers: { 'content-type': 'application/json' },
          body: '{"code":"woocommerce_rest_product_invalid_id","message":"Invalid product ID.","data":{"status":404}}',
        };
      }
      return json(wooProduct(store, store.product(index)));
    }
    return null;
  }

  function send(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply) {
    let body = reply.body ?? '';
    const headers = { ...reply.headers };
    const text = typeof body === 'string';
    if (text && body.length > 1024 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
      headers.vary = 'Accept-Encoding';
    }
    res.writeHead(reply.status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  function streamHuge(res: http.ServerResponse, declared: boolean) {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      ...(declared ? { 'content-length': String(hugePageBytes) } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const pump = () => {
      while (sent < hugePageBytes && !res.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, hugePageBytes - sent));
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    res.write('<!DOCTYPE html><html><body>');
    sent += 27;
    pump();
  }

  const emptyCounts = (): RequestCounts => ({
    total: 0,
    robots: 0,
    sitemap: 0,
    api: 0,
    listing: 0,
    product: 0,
    asset: 0,
    other: 0,
    throttled: 0,
  });
  function kindOf(store: StoreModel, pathname: string): Exclude<keyof RequestCounts, 'total' | 'throttled'> {
    if (pathname === '/robots.txt') return 'robots';
    if (/sitemap/.test(pathname)) return 'sitemap';
    if (pathname.startsWith('/wp-json/') || /\.(json|js)$/.test(pathname)) return 'api';
    if (pathname.startsWith('/cdn/')) return 'asset';
    if (productIndexFor(store, pathname) !== null || productIndexFor(store, pathname.replace(/\/$/, '')) !== null)
      return 'product';
    if (pathname === '/' || /^\/(collections|category|product-category)\//.test(pathname)) return 'listing';
    return 'other';
  }
  function count(store: StoreModel, url: URL, res: http.ServerResponse) {
    let c = counts.get(store.host);
    if (!c) counts.set(store.host, (c = emptyCounts()));
    c.total++;
    c[kindOf(store, url.pathname)]++;
    res.once('finish', () => {
      if (res.statusCode === 429) c.throttled++;
    });
    const catalog = catalogByHost.get(store.host);
    if (catalog && url.pathname !== '/robots.txt' && catalog.isDisallowed(`${url.pathname}${url.search}`)) {
      let v = violations.get(store.host);
      if (!v) violations.set(store.host, (v = { count: 0, paths: [] }));
      v.count++;
      if (v.paths.length < 20) v.paths.push(`${url.pathname}${url.search}`);
    }
  }

  const handle = (fixedHost: string | null) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    const hostHeader =
      fixedHost ??
      String(req.headers.host ?? '')
        .toLowerCase()
        .replace(/:\d+$/, '');
    const store = byHost.get(hostHeader.replace(/^www\./, ''));
    if (!store) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`unknown host ${hostHeader}`);
      return;
    }
    const active = (inFlight.get(store.host) ?? 0) + 1;
    inFlight.set(store.host, active);
    peak.set(store.host, Math.max(peak.get(store.host) ?? 0, active));
    res.once('close', () => inFlight.set(store.host, (inFlight.get(store.host) ?? 1) - 1));
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `https://${store.host}`);
    } catch {
      res.writeHead(400).end();
      return;
    }
    count(store, url, res);
    const reply = route(store, url, req);
    if (reply === 'huge') return streamHuge(res, url.pathname === '/huge-declared');
    if (reply === 'slow-body') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!DOCTYPE html><html><body>');
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          res.end('</body></html>');
        },
        Number(url.searchParams.get('delay_ms') ?? slowDelayMs),
      );
      timers.add(timer);
      return;
    }
    const delay =
      store.behaviour === 'slow' && url.pathname !== '/robots.txt'
        ? Number(url.searchParams.get('delay_ms') ?? slowDelayMs)
        : (reply.holdMs ?? 0);
    if (delay > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) send(req, res, reply);
      }, delay);
      timers.add(timer);
      return;
    }
    send(req, res, reply);
  };
  const server = http.createServer(handle(null));

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const hosts = [...stores, ...crawlStores, ...qualityStores, ...renderedStores].map((s) => s.host);
  const resolve = Object.fromEntries(hosts.map((h) => [h, `127.0.0.1:${port}`]));

  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hosts,
    resolve,
    resolveEnv: hosts.map((h) => `${h}=127.0.0.1:${port}`).join(','),
    stores,
    crawlStores,
    renderedStores,
    canary,
    store(host) {
      const store = byHost.get(host.toLowerCase().replace(/^www\./, ''));
      if (!store) throw new Error(`no simulated store ${host}`);
      return store;
    },
    catalog(host) {
      const catalog = catalogByHost.get(host.toLowerCase().replace(/^www\./, ''));
      if (!catalog) throw new Error(`no simulated crawl store ${host}`);
      return catalog;
    },
    requestCounts: (host) => ({ ...(counts.get(host.toLowerCase().replace(/^www\./, '')) ?? emptyCounts()) }),
    resetRequestCounts(host) {
      if (host) {
        counts.delete(host);
        violations.delete(host);
      } else {
        counts.clear();
        violations.clear();
      }
    },
    robotsViolations: (host) => {
      const v = violations.get(host);
      return { count: v?.count ?? 0, paths: [...(v?.paths ?? [])] };
    },
    async listenAs(host) {
      const store = byHost.get(host.toLowerCase().replace(/^www\./, ''));
      if (!store) throw new Error(`no simulated store ${host}`);
      const extra = http.createServer(handle(store.host));
      extraServers.push(extra);
      await new Promise<void>((resolve) => extra.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(extra.address() as AddressInfo).port}`;
    },
    hits: (host, pathAndQuery) => hitCounts.get(`${host}${pathAndQuery}`) ?? 0,
    peakConcurrency: (host) => peak.get(host) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        for (const extra of extraServers) {
          extra.close();
          extra.closeAllConnections();
        }
        canary.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export { listProductUrls };
