// Routes of the crawl stores: platform listing APIs (Shopify JSON, WooCommerce Store API),
// sitemaps (plain and gzip children), HTML collection pages with pagination, robots.txt rules
// and the failure modes (401/404 JSON, 429 + Retry-After). Everything reads the ground truth in
// crawl-catalog.ts, so what a crawl sees is exactly what a test can assert.
import { gzipSync } from 'node:zlib';
import type { SimProduct } from './catalog';
import type { CrawlCatalog, SimCollection } from './crawl-catalog';
import { renderProductPage, shopifyJsonProduct, signals, wooProduct } from './pages';

export type CrawlReply = { status: number; headers?: Record<string, string | string[]>; body?: string | Buffer };

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const JSON_TYPE = 'application/json; charset=utf-8';
const json = (value: unknown, status = 200, headers: Record<string, string> = {}): CrawlReply => ({
  status,
  headers: { 'content-type': JSON_TYPE, ...headers },
  body: JSON.stringify(value),
});
const htmlReply = (body: string, status = 200, headers: Record<string, string | string[]> = {}): CrawlReply => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body,
});
const xml = (body: string): CrawlReply => ({
  status: 200,
  headers: { 'content-type': 'application/xml; charset=utf-8' },
  body,
});
/** A `.xml.gz` file: gzip bytes as the body, not a Content-Encoding. */
const gzFile = (body: string): CrawlReply => ({
  status: 200,
  headers: { 'content-type': 'application/x-gzip' },
  body: gzipSync(body),
});

const intParam = (value: string | null, fallback: number) => {
  const n = Number(value ?? fallback);
  return Number.isInteger(n) ? n : fallback;
};

function robotsTxt(catalog: CrawlCatalog): string {
  const lines = [`# ${catalog.store.name}`, 'User-agent: *', ...catalog.disallow.map((p) => `Disallow: ${p}`)];
  if (catalog.kind === 'sitemap') lines.push('', `Sitemap: https://${catalog.host}/sitemap_index.xml`);
  else if (catalog.kind !== 'html') lines.push('', `Sitemap: https://${catalog.host}/sitemap.xml`);
  return `${lines.join('\n')}\n`;
}

// --- HTML ---

function layout(catalog: CrawlCatalog, title: string, head: string, body: string, bodyClass: string): string {
  const { store } = catalog;
  const s = signals(store);
  const path = (url: string) => url.replace(/^https:\/\/[^/]+/, '');
  // A menu like a theme's: home, every collection, a blog post and the cart (not catalog pages).
  const menu = catalog.collections.map((c) => `<a href="${esc(path(c.url))}">${esc(c.title)}</a>`).join(' ');
  return `<!DOCTYPE html>
<html lang="${store.priceStyle.language}">
<head>
<meta charset="utf-8">
<title>${esc(title)} | ${esc(store.name)}</title>
${s.head}
${head}
</head>
<body class="${bodyClass}">
<header><a href="/">${esc(store.name)}</a> <nav class="menu">${menu} <a href="${esc(path(store.nonProductUrls.blog))}">Journal</a> <a href="${esc(path(store.nonProductUrls.cart))}">Cart</a></nav></header>
<main>
${body}
</main>
<footer>&copy; ${esc(store.name)}</footer>
${s.bodyEnd}
</body>
</html>`;
}

const productPath = (product: SimProduct) => product.url.replace(/^https:\/\/[^/]+/, '');

function card(catalog: CrawlCatalog, product: SimProduct): string {
  const image = product.images[0];
  const fmt = catalog.store.priceStyle.format;
  const compare = product.compareAt !== null ? ` <s class="price-compare">${esc(fmt(product.compareAt))}</s>` : '';
  // Relative links, as themes write them.
  return `<li class="product-card"><a href="${esc(productPath(product))}"><img src="${esc(image.url)}" alt="${esc(image.alt)}" width="${image.width}" height="${image.height}"><span class="title">${esc(product.title)}</span></a> <span class="price">${esc(fmt(product.price))}</span>${compare}</li>`;
}

function homePage(catalog: CrawlCatalog): string {
  const links = catalog.collections
    .map(
      (c) =>
        `<li class="collection-card"><a href="${esc(c.url.replace(/^https:\/\/[^/]+/, ''))}">${esc(c.title)}</a></li>`,
    )
    .join('\n');
  const ld = `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'WebSite', name: catalog.store.name, url: `https://${catalog.host}/` })}</script>`;
  return layout(
    catalog,
    catalog.store.name,
    ld,
    `<h1>${esc(catalog.store.name)}</h1>\n<ul class="collection-list">${links}</ul>`,
    'page-home',
  );
}

/** URL of page n of a collection in the store's own pagination style. */
function pageUrl(catalog: CrawlCatalog, collection: SimCollection, page: number): string {
  if (catalog.kind === 'woocommerce') return page === 1 ? collection.url : `${collection.url}page/${page}/`;
  if (catalog.twist === 'numbered-pages') return page === 1 ? collection.url : `${collection.url}/page/${page}/`;
  return page === 1 ? collection.url : `${collection.url}?page=${page}`;
}

/** Numbered page links around the current one and an arrow icon: no rel, no "Next" label. */
function numberedNav(catalog: CrawlCatalog, collection: SimCollection, page: number, pages: number): string {
  const rel = (n: number) => pageUrl(catalog, collection, n).replace(/^https:\/\/[^/]+/, '');
  const links: string[] = [];
  for (let n = Math.max(1, page - 2); n <= Math.min(pages, page + 2); n++)
    links.push(
      n === page ? `<span class="page-current">${n}</span>` : `<a class="page-number" href="${esc(rel(n))}">${n}</a>`,
    );
  if (page < pages)
    links.push(`<a class="pagination__arrow" href="${esc(rel(page + 1))}"><svg aria-hidden="true"></svg></a>`);
  return links.join(' ');
}

function collectionPage(catalog: CrawlCatalog, collection: SimCollection, page: number): CrawlReply {
  const perPage = catalog.htmlPageSize;
  const total = collection.size();
  const pages = Math.max(1, Math.ceil(total / perPage));
  // Shopify answers an empty grid past the end; WordPress and the plain shops answer 404.
  if (page > pages && catalog.kind !== 'shopify')
    return htmlReply(layout(catalog, 'Page not found', '', '<h1>404</h1>', 'page-404'), 404);
  const products = collection.productIndexes((page - 1) * perPage, perPage).map((i) => catalog.store.product(i));
  const linked = catalog.twist !== 'numbered-pages';
  const head = [
    `<link rel="canonical" href="${esc(pageUrl(catalog, collection, page))}">`,
    linked && page > 1 ? `<link rel="prev" href="${esc(pageUrl(catalog, collection, page - 1))}">` : '',
    linked && page < pages ? `<link rel="next" href="${esc(pageUrl(catalog, collection, page + 1))}">` : '',
    `<script type="application/ld+json">${JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'ItemList',
      itemListElement: products.map((p, k) => ({
        '@type': 'ListItem',
        position: (page - 1) * perPage + k + 1,
        url: p.url,
      })),
    })}</script>`,
  ].join('\n');
  const rel = (n: number) => pageUrl(catalog, collection, n).replace(/^https:\/\/[^/]+/, '');
  const nav = linked
    ? [
        page > 1 ? `<a rel="prev" href="${esc(rel(page - 1))}">Previous</a>` : '',
        `<span class="page-current">Page ${page} of ${pages}</span>`,
        page < pages ? `<a rel="next" href="${esc(rel(page + 1))}">Next</a>` : '',
      ].join(' ')
    : numberedNav(catalog, collection, page, pages);
  const body = `<h1>${esc(collection.title)}</h1>
<p class="collection-count">${total} products</p>
<ul class="product-grid">${products.map((p) => card(catalog, p)).join('\n')}</ul>
<nav class="pagination">${nav}</nav>`;
  return htmlReply(layout(catalog, collection.title, head, body, 'page-collection'));
}

// --- Sitemaps ---

const SITEMAP_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

function sitemapIndex(locations: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex ${SITEMAP_NS}>\n${locations
    .map((loc) => `<sitemap><loc>${esc(loc)}</loc><lastmod>2024-05-01</lastmod></sitemap>`)
    .join('\n')}\n</sitemapindex>\n`;
}

function urlSet(rows: string[], images = false): string {
  const ns = images ? ` xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${SITEMAP_NS}${ns}>\n${rows.join('\n')}\n</urlset>\n`;
}

/**
 * The page a platform's first product sitemap lists before the products: Shopify's starts with the
 * storefront's home page, Yoast's (WooCommerce) with the shop archive. Neither is a product page.
 */
export function sitemapLandingPage(catalog: CrawlCatalog): string | null {
  if (catalog.kind === 'shopify') return `https://${catalog.host}/`;
  if (catalog.kind === 'woocommerce') return `https://${catalog.host}/shop/`;
  return null;
}

/** Child n (1-based) of the product sitemap: the listed products among indexes [(n-1)*size, n*size). */
function productChild(catalog: CrawlCatalog, n: number): string | null {
  const size = catalog.sitemapChildSize;
  const start = (n - 1) * size;
  if (n < 1 || start >= catalog.store.productCount) return null;
  const rows: string[] = [];
  const landing = n === 1 ? sitemapLandingPage(catalog) : null;
  if (landing) rows.push(`<url><loc>${esc(landing)}</loc><changefreq>daily</changefreq></url>`);
  for (let i = start; i < Math.min(catalog.store.productCount, start + size); i++) {
    if (!catalog.isListed(i)) continue;
    const p = catalog.store.product(i);
    rows.push(
      `<url><loc>${esc(p.url)}</loc><lastmod>2024-05-${String(1 + catalog.revision(i)).padStart(2, '0')}</lastmod><image:image><image:loc>${esc(p.images[0].url)}</image:loc></image:image></url>`,
    );
  }
  return urlSet(rows, true);
}

const collectionsSitemap = (catalog: CrawlCatalog) =>
  urlSet(catalog.collections.map((c) => `<url><loc>${esc(c.url)}</loc><changefreq>daily</changefreq></url>`));

const pagesSitemap = (catalog: CrawlCatalog) =>
  urlSet(
    [catalog.store.nonProductUrls.home, catalog.store.nonProductUrls.blog].map(
      (u) => `<url><loc>${esc(u)}</loc></url>`,
    ),
  );

function sitemapRoute(catalog: CrawlCatalog, pathname: string): CrawlReply | null {
  const base = `https://${catalog.host}`;
  const children = Math.max(1, Math.ceil(catalog.store.productCount / catalog.sitemapChildSize));
  const numbers = Array.from({ length: children }, (_, k) => k + 1);
  switch (catalog.kind) {
    case 'shopify': {
      if (pathname === '/sitemap.xml') {
        return xml(
          sitemapIndex([
            ...numbers.map((n) => `${base}/sitemap_products_${n}.xml`),
            `${base}/sitemap_collections_1.xml`,
            `${base}/sitemap_pages_1.xml`,
          ]),
        );
      }
      const child = /^\/sitemap_products_(\d+)\.xml$/.exec(pathname);
      if (child) {
        const body = productChild(catalog, Number(child[1]));
        return body ? xml(body) : null;
      }
      if (pathname === '/sitemap_collections_1.xml') return xml(collectionsSitemap(catalog));
      if (pathname === '/sitemap_pages_1.xml') return xml(pagesSitemap(catalog));
      return null;
    }
    case 'woocommerce': {
      // Yoast's layout: product-sitemap.xml, product-sitemap2.xml, ...
      const childPath = (n: number) => `/product-sitemap${n === 1 ? '' : n}.xml`;
      if (pathname === '/sitemap.xml' || pathname === '/sitemap_index.xml') {
        return xml(
          sitemapIndex([
            ...numbers.map((n) => `${base}${childPath(n)}`),
            `${base}/product_cat-sitemap.xml`,
            `${base}/page-sitemap.xml`,
          ]),
        );
      }
      const child = /^\/product-sitemap(\d*)\.xml$/.exec(pathname);
      if (child) {
        const body = productChild(catalog, child[1] ? Number(child[1]) : 1);
        return body ? xml(body) : null;
      }
      if (pathname === '/product_cat-sitemap.xml') return xml(collectionsSitemap(catalog));
      if (pathname === '/page-sitemap.xml') return xml(pagesSitemap(catalog));
      return null;
    }
    case 'sitemap': {
      if (pathname === '/sitemap_index.xml' || pathname === '/sitemap.xml') {
        return xml(
          sitemapIndex([
            ...numbers.map((n) => `${base}/sitemaps/products-${n}.xml.gz`),
            `${base}/sitemaps/collections-1.xml.gz`,
            `${base}/sitemaps/pages-1.xml`,
          ]),
        );
      }
      const child = /^\/sitemaps\/products-(\d+)\.xml\.gz$/.exec(pathname);
      if (child) {
        const body = productChild(catalog, Number(child[1]));
        return body ? gzFile(body) : null;
      }
      if (pathname === '/sitemaps/collections-1.xml.gz') return gzFile(collectionsSitemap(catalog));
      if (pathname === '/sitemaps/pages-1.xml') return xml(pagesSitemap(catalog));
      return null;
    }
    case 'html':
      return null;
  }
}

// --- Shopify JSON ---

function shopifyListed(catalog: CrawlCatalog, index: number) {
  const product = shopifyJsonProduct(catalog.store.product(index));
  const revision = catalog.revision(index);
  if (revision) product.updated_at = `2024-06-${String(Math.min(28, revision)).padStart(2, '0')}T00:00:00-05:00`;
  return product;
}

function shopifyRoute(catalog: CrawlCatalog, url: URL, attempt: number, retryAfterSeconds: number): CrawlReply | null {
  const { pathname, searchParams } = url;
  const collectionJson = /^\/collections\/([^/]+)\/products\.json$/.exec(pathname);
  const listing = pathname === '/products.json' || pathname === '/collections.json' || collectionJson !== null;
  const productJson = /^\/products\/([^/]+)\.(js|json)$/.exec(pathname);
  if (catalog.twist === 'api-locked' && (listing || productJson)) {
    // Stores that closed their JSON: 401 on product lists, 404 on the collection list.
    if (pathname === '/collections.json') return json({ errors: 'Not Found' }, 404);
    return json({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }, 401);
  }
  if (listing && catalog.twist === 'throttled' && attempt === 1) {
    return json(
      { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' },
      429,
      { 'retry-after': String(retryAfterSeconds) },
    );
  }
  if (productJson) {
    const index = indexOfHandle(catalog, `/products/${productJson[1]}`);
    if (index === null || !catalog.isListed(index)) return json({ errors: 'Not Found' }, 404);
    return null; // the shared Shopify route renders listed products
  }
  // Shopify clamps limit to 250 and answers an empty page past the end.
  const limit = Math.min(250, Math.max(1, intParam(searchParams.get('limit'), 30)));
  const page = Math.max(1, intParam(searchParams.get('page'), 1));
  /** Page `page` of a member list; the repeating store serves its last page again past the end. */
  const paged = (size: number, read: (offset: number, limit: number) => number[]) => {
    const lastPage = Math.max(1, Math.ceil(size / limit));
    const served = catalog.twist === 'repeating-pages' && page > lastPage ? lastPage : page;
    return { products: read((served - 1) * limit, limit).map((i) => shopifyListed(catalog, i)) };
  };
  if (pathname === '/products.json') return json(paged(catalog.listingCount(), catalog.listingIndexes));
  if (collectionJson) {
    const collection = catalog.collection(decodeURIComponent(collectionJson[1]));
    if (!collection) return json({ errors: 'Not Found' }, 404);
    return json(paged(collection.size(), collection.productIndexes));
  }
  if (pathname === '/collections.json') {
    const collections = catalog.collections.slice((page - 1) * limit, page * limit).map((c) => ({
      id: c.id,
      title: c.title,
      handle: c.handle,
      description: `<p>${esc(c.title)} at ${esc(catalog.store.name)}</p>`,
      published_at: '2024-01-01T00:00:00-05:00',
      updated_at: '2024-05-01T00:00:00-05:00',
      image: null,
      products_count: c.size(),
    }));
    return json({ collections });
  }
  return null;
}

// --- WooCommerce Store API ---

function wooRoute(catalog: CrawlCatalog, url: URL): CrawlReply | null {
  const { pathname, searchParams } = url;
  const prefix = '/wp-json/wc/store/v1/products';
  if (!pathname.startsWith(prefix)) return null;
  const categoriesOf = (index: number) =>
    catalog.collectionsOf(index).map((c) => ({ id: c.id, name: c.title, slug: c.handle, link: c.url }));
  if (pathname === `${prefix}/categories`) {
    return json(
      catalog.collections.map((c) => ({
        id: c.id,
        name: c.title,
        slug: c.handle,
        description: '',
        parent: 0,
        count: c.size(),
        image: null,
        review_count: 0,
        permalink: c.url,
      })),
    );
  }
  const single = /^\/wp-json\/wc\/store\/v1\/products\/(\d+)$/.exec(pathname);
  if (single) {
    const index = Number(single[1]) - 100;
    if (!catalog.isListed(index)) {
      return json(
        { code: 'woocommerce_rest_product_invalid_id', message: 'Invalid product ID.', data: { status: 404 } },
        404,
      );
    }
    return json(wooProduct(catalog.store, catalog.store.product(index), categoriesOf(index)));
  }
  if (pathname !== prefix) return null;
  const perPage = intParam(searchParams.get('per_page'), 10);
  if (perPage < 1 || perPage > 100) {
    // As WordPress validates it: per_page is 1..100, never clamped.
    return json(
      {
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): per_page',
        data: { status: 400, params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' } },
      },
      400,
    );
  }
  const page = Math.max(1, intParam(searchParams.get('page'), 1));
  let total: number;
  let indexes: number[];
  const category = searchParams.get('category');
  if (category !== null) {
    const collection = catalog.collections.find((c) => String(c.id) === category || c.handle === category);
    // An unknown category filters everything out, as WordPress does.
    total = collection ? collection.size() : 0;
    indexes = collection ? collection.productIndexes((page - 1) * perPage, perPage) : [];
  } else {
    total = catalog.listingCount();
    indexes = catalog.listingIndexes((page - 1) * perPage, perPage);
  }
  const totalPages = Math.ceil(total / perPage);
  const headers: Record<string, string> = { 'x-wp-total': String(total), 'x-wp-totalpages': String(totalPages) };
  if (page < totalPages) {
    const next = new URL(url);
    next.searchParams.set('page', String(page + 1));
    headers.link = `<https://${catalog.host}${next.pathname}${next.search}>; rel="next"`;
  }
  return json(
    indexes.map((i) => wooProduct(catalog.store, catalog.store.product(i), categoriesOf(i))),
    200,
    headers,
  );
}

// --- Entry ---

/** Product index of a product path of this store (listed or not), else null. */
function indexOfHandle(catalog: CrawlCatalog, pathname: string): number | null {
  const match = /-(\d+)\/?(?:\.html)?$/.exec(pathname);
  if (!match) return null;
  const index = Number(match[1]);
  if (index >= catalog.store.productCount) return null;
  return catalog.store.productPath(index) === pathname || `${catalog.store.productPath(index)}/` === pathname
    ? index
    : null;
}

/**
 * A crawl store's reply, or null when the shared routes of server.ts serve the path (product
 * pages of listed products, Shopify product JSON, blog, cart, search, images).
 */
export function crawlRoute(
  catalog: CrawlCatalog,
  url: URL,
  attempt: number,
  retryAfterSeconds: number,
): CrawlReply | null {
  const { pathname, searchParams } = url;
  const notFound = () =>
    htmlReply(
      layout(
        catalog,
        'Page not found',
        '',
        '<h1>404</h1><p>The page you were looking for does not exist.</p>',
        'page-404',
      ),
      404,
    );
  if (pathname === '/robots.txt')
    return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: robotsTxt(catalog) };
  if (/^\/(sitemap|product-sitemap|product_cat-sitemap|page-sitemap|sitemaps\/)/.test(pathname))
    return sitemapRoute(catalog, pathname) ?? notFound();
  if (pathname === '/' && !searchParams.has('s') && !searchParams.has('q')) return htmlReply(homePage(catalog));

  if (catalog.kind === 'shopify') {
    const reply = shopifyRoute(catalog, url, attempt, retryAfterSeconds);
    if (reply) return reply;
  }
  if (catalog.kind === 'woocommerce') {
    const reply = wooRoute(catalog, url);
    if (reply) return reply;
  }

  const page = (() => {
    if (catalog.kind === 'woocommerce') {
      const m = /^\/product-category\/([^/]+)\/(?:page\/(\d+)\/)?$/.exec(pathname);
      return m ? { handle: m[1], page: m[2] ? Number(m[2]) : 1 } : null;
    }
    if (catalog.twist === 'numbered-pages') {
      const m = /^\/category\/([^/]+)(?:\/page\/(\d+)\/)?$/.exec(pathname);
      return m ? { handle: decodeURIComponent(m[1]), page: m[2] ? Number(m[2]) : 1 } : null;
    }
    const m = (catalog.kind === 'html' ? /^\/category\/([^/]+)$/ : /^\/collections\/([^/]+)$/).exec(pathname);
    return m ? { handle: decodeURIComponent(m[1]), page: Math.max(1, intParam(searchParams.get('page'), 1)) } : null;
  })();
  if (page) {
    const collection = catalog.collection(page.handle);
    return collection && page.page >= 1 ? collectionPage(catalog, collection, page.page) : notFound();
  }

  const index = indexOfHandle(catalog, pathname);
  if (index !== null && !catalog.isListed(index)) return notFound();
  if (index !== null && catalog.productMarkup(index) !== catalog.store.markup) {
    // A product page whose structured data differs from the store's usual markup.
    const store = { ...catalog.store, markup: catalog.productMarkup(index) };
    const related = [1, 2].map((k) => catalog.store.product((index + k) % catalog.store.productCount));
    return htmlReply(renderProductPage(store, catalog.store.product(index), related));
  }
  return null;
}
