// Pure readers of the pages a crawl fetches: Shopify's public JSON, the WooCommerce Store API,
// sitemaps and HTML category pages. Each turns a body into listings (store data only) and, for
// paged HTML, the next page's URL. No I/O here: discovery.ts fetches, these read.
// cheerio/slim parses with htmlparser2 alone, as the extraction engine does: cheerio's main entry
// also loads parse5 and its URL and buffer loaders (undici, iconv-lite), ~130 ms of a cold start.
import * as cheerio from 'cheerio/slim';
import { uuidV5 } from '../extraction/ids';
import { parseMinorUnits, parsePrice } from '../extraction/price';
import { parseSitemap } from '../extraction/sitemap';
import { parseTolerantJson } from '../extraction/tolerant-json';
import { collectionKey, type FoundCollection, type FoundListing, type ListingImage, type ListingPrice } from './model';

const num = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
};
const int = (value: unknown): number | null => {
  const n = num(value);
  return n === null ? null : Math.round(n);
};
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

const sameSite = (url: string, origin: string) => {
  try {
    const a = new URL(url).hostname.replace(/^www\./, '');
    const b = new URL(origin).hostname.replace(/^www\./, '');
    return a === b;
  } catch {
    return false;
  }
};

/** A price object where the compare-at value counts only when above the price (Zyte's rule). */
/** A platform JSON's `images` ({id?, src, width?, height?, position?}) as listing images; `statedPosition`: trust its `position`. */
function imagesOf(raw: unknown, statedPosition: boolean): ListingImage[] {
  return (Array.isArray(raw) ? raw : [])
    .filter((i: any) => typeof i?.src === 'string')
    .map((i: any, k: number) => ({
      id: String(i.id ?? uuidV5(i.src)),
      url: i.src,
      width: int(i.width),
      height: int(i.height),
      position: (statedPosition ? int(i.position) : null) ?? k + 1,
    }));
}

export function priceOf(current: number | null, compareAt: number | null, currency: string | null): ListingPrice {
  return {
    currency: currency ?? null,
    current_value: current,
    compare_at_value: current !== null && compareAt !== null && compareAt > current ? compareAt : null,
  };
}

export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

// ---- Shopify ----

/** /products.json and /collections/<handle>/products.json: null when the body is not that shape. */
export function shopifyListings(body: string, origin: string, currency: string | null): FoundListing[] | null {
  const json = parseJson(body) as { products?: unknown } | undefined;
  if (!json || !Array.isArray(json.products)) return null;
  const listings: FoundListing[] = [];
  for (const raw of json.products as Array<Record<string, any>>) {
    const handle = text(raw?.handle);
    if (!handle) continue;
    const variants: Array<Record<string, any>> = Array.isArray(raw.variants) ? raw.variants : [];
    // The listing shows the lowest variant price, with that variant's compare-at price.
    let best: { price: number; compareAt: number | null } | null = null;
    for (const v of variants) {
      const price = num(v?.price);
      if (price === null) continue;
      if (!best || price < best.price) best = { price, compareAt: num(v?.compare_at_price) };
    }
    const images = imagesOf(raw.images, true);
    listings.push({
      url: `${origin}/products/${encodeURIComponent(handle).replace(/%2F/gi, '/')}`,
      name: text(raw.title) || null,
      images,
      price: priceOf(best?.price ?? null, best?.compareAt ?? null, currency),
    });
  }
  return listings;
}

/** /collections.json: null when the body is not that shape. */
export function shopifyCollections(body: string, origin: string): FoundCollection[] | null {
  const json = parseJson(body) as { collections?: unknown } | undefined;
  if (!json || !Array.isArray(json.collections)) return null;
  const found: FoundCollection[] = [];
  for (const raw of json.collections as Array<Record<string, any>>) {
    const handle = text(raw?.handle);
    if (!handle) continue;
    const url = `${origin}/collections/${handle}`;
    const key = collectionKey(url);
    if (!key) continue;
    found.push({ key, url, title: text(raw.title) || null, statedCount: int(raw.products_count) });
  }
  return found;
}

/** Shopify's shop currency from a storefront page (Shopify.currency, og/product meta, JSON-LD). */
export function currencyFromHtml(html: string): string | null {
  const patterns = [
    /Shopify\.currency\s*=\s*\{[^}]*"active"\s*:\s*"([A-Z]{3})"/,
    /property=["'](?:og|product):price:currency["']\s+content=["']([A-Z]{3})["']/i,
    /"priceCurrency"\s*:\s*"([A-Z]{3})"/,
    /itemprop=["']priceCurrency["']\s+content=["']([A-Z]{3})["']/i,
    /"currency(?:_code|Code)?"\s*:\s*"([A-Z]{3})"/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(html);
    if (match) return match[1].toUpperCase();
  }
  return null;
}

// ---- WooCommerce Store API ----

/** /wp-json/wc/store/v1/products: null when the body is not an array of products. */
export function wooListings(body: string): FoundListing[] | null {
  const json = parseJson(body);
  if (!Array.isArray(json)) return null;
  const listings: FoundListing[] = [];
  for (const raw of json as Array<Record<string, any>>) {
    const url = text(raw?.permalink);
    if (!url) continue;
    const prices = raw.prices ?? {};
    const currency = text(prices.currency_code) || null;
    const minor = int(prices.currency_minor_unit);
    const units = (v: unknown) => {
      if (v === undefined || v === null || v === '') return null;
      if (minor === null) return parseMinorUnits(String(v), currency ?? 'USD');
      const n = num(v);
      return n === null ? null : Math.round(n) / 10 ** minor;
    };
    const images = imagesOf(raw.images, false);
    listings.push({
      url,
      name: decodeHtml(text(raw.name)) || null,
      images,
      price: priceOf(units(prices.price), units(prices.regular_price), currency),
    });
  }
  return listings;
}

/** /wp-json/wc/store/v1/products/categories: collections with the store's counts. */
export function wooCategories(body: string, origin: string): Array<FoundCollection & { wooId: number }> | null {
  const json = parseJson(body);
  if (!Array.isArray(json)) return null;
  const found: Array<FoundCollection & { wooId: number }> = [];
  for (const raw of json as Array<Record<string, any>>) {
    const id = int(raw?.id);
    const slug = text(raw?.slug);
    if (id === null || !slug) continue;
    const url = text(raw.permalink) || `${origin}/product-category/${slug}/`;
    const key = collectionKey(url);
    if (!key) continue;
    found.push({ key, url, title: decodeHtml(text(raw.name)) || null, statedCount: int(raw.count), wooId: id });
  }
  return found;
}

function decodeHtml(value: string): string {
  if (!value.includes('&')) return value;
  return cheerio.load(`<p>${value}</p>`)('p').text();
}

// ---- Sitemaps ----

export interface SitemapRead {
  type: 'urlset' | 'sitemapindex' | 'text' | null;
  /** urlset/text: the page URLs with their images. */
  listings: FoundListing[];
  /** sitemapindex: the child sitemaps. */
  children: string[];
}

/** A product sitemap's entries as listings: an image title names one; sitemaps state no price. */
export function readSitemap(body: string | Uint8Array, baseUrl: string): SitemapRead {
  const parsed = parseSitemap(body, { baseUrl });
  if (parsed.type === 'sitemapindex')
    return { type: parsed.type, listings: [], children: parsed.entries.map((e) => e.loc) };
  const listings = parsed.entries.map((entry) => ({
    url: entry.loc,
    name: entry.images.find((i) => i.title)?.title?.trim() || null,
    images: entry.images.map((image, k) => ({
      id: uuidV5(image.loc),
      url: image.loc,
      width: null,
      height: null,
      position: k + 1,
    })),
    price: priceOf(null, null, null),
  }));
  return { type: parsed.type, listings, children: [] };
}

/** Which child sitemaps list products and which collections, by their names. */
export function classifySitemaps(children: readonly string[]): {
  products: string[];
  collections: string[];
  other: string[];
} {
  const products: string[] = [];
  const collections: string[] = [];
  const other: string[] = [];
  for (const child of children) {
    const name = child.toLowerCase();
    if (/collection|categor|product[-_]cat|taxonom/.test(name)) collections.push(child);
    else if (/product/.test(name)) products.push(child);
    else other.push(child);
  }
  return { products, collections, other };
}

// ---- HTML ----

const PRODUCT_PATH =
  /\/(products?|p|item|items|shop\/p|product-page)\/[^/?#]+|[-_/]\d{3,}[^/]*\.html?$|\/[^/]+\.html?$/i;
const NOT_LISTING =
  /\/(cart|checkout|account|login|register|search|blog|blogs|pages|policies|wishlist|compare|cdn|wp-json|feed|tag)\b/i;
const CATEGORY_PATH =
  /\/(collections|collection|product-category|category|categories|c|shop|catalog|department|departments)(\/|$)|^\/\d+-[^/]+\/?$/i;
/** A store's landing pages: the home page and its catalog roots (/shop/, /products, /collections/). */
const LANDING_PATH =
  /^\/(?:(?:collections|collection|product-category|category|categories|shop|catalog|store|products?|all)\/?)?$/i;
/** A collection page in the platforms' fixed layouts (Shopify, WooCommerce, most themes). */
const COLLECTION_PAGE = /^\/(?:collections|collection|product-category|category|categories)\/[^/]+\/?$/i;

/**
 * Whether a URL a sitemap or a list names can be a product page of the store at `origin`: on its
 * site, neither a landing page (the home page or shop archive a product sitemap starts with) nor a
 * collection page nor a page that lists nothing (cart, blog, account...).
 */
export function isProductPage(url: string, origin: string): boolean {
  if (!sameSite(url, origin)) return false;
  const { pathname } = new URL(url);
  return !LANDING_PATH.test(pathname) && !COLLECTION_PAGE.test(pathname) && !NOT_LISTING.test(pathname);
}

export interface HtmlListingPage {
  listings: FoundListing[];
  next: string | null;
}

export type ListingData = { name: string | null; images: ListingImage[]; price: ListingPrice | null };

const imageOf = (src: string | null, width: number | null = null, height: number | null = null): ListingImage[] =>
  src ? [{ id: uuidV5(src), url: src, width, height, position: 1 }] : [];

/** A schema.org Offer (or AggregateOffer, or a list of them) as a price: the lowest offer, as a listing shows it. */
function offerPrice(offers: any, currencyHint: string | null): ListingPrice | null {
  let best: ListingPrice | null = null;
  for (const offer of Array.isArray(offers) ? offers : [offers]) {
    if (!offer || typeof offer !== 'object') continue;
    const raw = offer.price ?? offer.lowPrice ?? offer.priceSpecification?.price;
    const currency = text(offer.priceCurrency ?? offer.priceSpecification?.priceCurrency) || currencyHint;
    const value = typeof raw === 'string' && num(raw) === null ? parsePrice(raw, { currency }).amount : num(raw);
    if (value !== null && (best === null || value < best.current_value!)) best = priceOf(value, null, currency);
  }
  return best;
}

/** Cards: an element whose class names a product, holding a link to a product path. */
function readCards($: cheerio.CheerioAPI, pageUrl: string, currencyHint: string | null, add: Adder) {
  $('[class*="product"]').each((_, el) => {
    const card = $(el);
    // The innermost card only (a grid's class may name products too).
    if (
      card
        .find('[class*="product"]')
        .filter((_, inner) => $(inner).is('a[href]') || $(inner).find('a[href]').length > 0).length
    )
      return;
    const link = card.is('a[href]') ? card : card.find('a[href]').first();
    const href = link.attr('href');
    const url = href ? absolute(href, pageUrl) : null;
    if (!url || !PRODUCT_PATH.test(new URL(url).pathname)) return;
    const name =
      card.find('[class*="title"], [class*="name"]').first().text().trim() ||
      link.text().trim() ||
      card.find('img').attr('alt')?.trim() ||
      '';
    const img = card.find('img').first();
    const src = img.attr('src') ?? img.attr('data-src');
    const priceText = card.find('[class*="price"]').first().text();
    const parsed = priceText ? parsePrice(priceText, { currency: currencyHint }) : null;
    add(url, {
      name: name.replace(/\s+/g, ' ') || null,
      images: imageOf(src ? absolute(src, pageUrl) : null, int(img.attr('width')), int(img.attr('height'))),
      price: parsed?.amount != null ? priceOf(parsed.amount, null, parsed.currency ?? currencyHint) : null,
    });
  });
}

/** schema.org ItemList entries (JSON-LD): a URL, and the Product's name, offer and image when given. */
function readItemLists($: cheerio.CheerioAPI, pageUrl: string, currencyHint: string | null, add: Adder) {
  $('script[type="application/ld+json"]').each((_, el) => {
    const json = parseJson($(el).text()) as any;
    const nodes = (Array.isArray(json) ? json : [json]).flatMap((n) =>
      Array.isArray(n?.['@graph']) ? n['@graph'] : [n],
    );
    for (const node of nodes) {
      if (node?.['@type'] !== 'ItemList' || !Array.isArray(node.itemListElement)) continue;
      for (const entry of node.itemListElement) {
        const product = entry?.item && typeof entry.item === 'object' ? entry.item : entry;
        const href = typeof product?.url === 'string' ? product.url : typeof entry?.url === 'string' ? entry.url : null;
        const url = href ? absolute(href, pageUrl) : null;
        if (!url || !isProductPage(url, pageUrl)) continue;
        const image = Array.isArray(product.image) ? product.image[0] : product.image;
        const src = typeof image === 'string' ? image : typeof image?.url === 'string' ? image.url : null;
        add(url, {
          name: text(product.name) || null,
          images: imageOf(src ? absolute(src, pageUrl) : null),
          price: offerPrice(product.offers, currencyHint),
        });
      }
    }
  });
}

/** schema.org Product items in microdata: url (or the first link), name, offer price and currency, image. */
function readMicrodata($: cheerio.CheerioAPI, pageUrl: string, currencyHint: string | null, add: Adder) {
  $('[itemscope][itemtype*="schema.org/Product" i]').each((_, el) => {
    const item = $(el);
    const prop = (name: string) => item.find(`[itemprop="${name}"]`).first();
    const value = (name: string) => {
      const node = prop(name);
      return (node.attr('content') ?? node.attr('href') ?? node.attr('src') ?? node.text()).trim();
    };
    const href = value('url') || item.find('a[href]').first().attr('href') || '';
    const url = href ? absolute(href, pageUrl) : null;
    if (!url || !isProductPage(url, pageUrl)) return;
    const amount = value('price');
    const parsed = amount ? parsePrice(amount, { currency: value('priceCurrency') || currencyHint }) : null;
    const image = value('image');
    add(url, {
      name: value('name').replace(/\s+/g, ' ') || null,
      images: imageOf(image ? absolute(image, pageUrl) : null),
      price:
        parsed?.amount != null
          ? priceOf(parsed.amount, null, value('priceCurrency') || parsed.currency || currencyHint)
          : null,
    });
  });
}

type Adder = (url: string, data: ListingData) => void;

/** A schema.org @type (a name, a full URL or a list of them) is one of `types`. */
const isType = (node: any, types: readonly string[]) =>
  (Array.isArray(node?.['@type']) ? node['@type'] : [node?.['@type']]).some(
    (t: unknown) => typeof t === 'string' && types.includes(t.replace(/^https?:\/\/schema\.org\//i, '')),
  );
const PRODUCT_TYPES = ['Product', 'ProductGroup', 'IndividualProduct', 'ProductModel'];

/** The first JSON-LD Product of a product page (top level, @graph or a page's mainEntity). */
function jsonLdProduct($: cheerio.CheerioAPI, pageUrl: string, currencyHint: string | null): ListingData | null {
  for (const el of $('script[type="application/ld+json"]').toArray()) {
    const json = parseTolerantJson($(el).text());
    const queue: any[] = Array.isArray(json) ? [...json] : [json];
    for (let i = 0; i < queue.length && i < 500; i++) {
      const node = queue[i];
      if (!node || typeof node !== 'object') continue;
      for (const inner of [node['@graph'], node.mainEntity])
        if (inner) queue.push(...(Array.isArray(inner) ? inner : [inner]));
      if (!isType(node, PRODUCT_TYPES)) continue;
      // A ProductGroup states its prices on its variants.
      const variantOffers = Array.isArray(node.hasVariant)
        ? node.hasVariant.flatMap((v: any) => (Array.isArray(v?.offers) ? v.offers : [v?.offers]))
        : [];
      const image = Array.isArray(node.image) ? node.image[0] : node.image;
      const src = typeof image === 'string' ? image : typeof image?.url === 'string' ? image.url : null;
      return {
        name: decodeHtml(text(node.name)) || null,
        images: imageOf(src ? absolute(src, pageUrl) : null),
        price: offerPrice(node.offers, currencyHint) ?? offerPrice(variantOffers, currencyHint),
      };
    }
  }
  return null;
}

/** The page's first microdata Product: its own name, image and lowest offer (not its brand's or reviews'). */
function microdataProduct($: cheerio.CheerioAPI, pageUrl: string, currencyHint: string | null): ListingData | null {
  const item = $('[itemscope][itemtype*="schema.org/Product" i]').first();
  if (!item.length) return null;
  const stated = (node: ReturnType<typeof $>) =>
    (node.attr('content') ?? node.attr('href') ?? node.attr('src') ?? node.text()).trim();
  const own = (name: string) =>
    item.find(`[itemprop~="${name}"]`).filter((_, el) => $(el).parent().closest('[itemscope]')[0] === item[0]);
  const offers = own('offers')
    .toArray()
    .map((el) => {
      const offer = $(el);
      const prop = (name: string) => stated(offer.find(`[itemprop~="${name}"]`).first());
      return { price: prop('price') || prop('lowPrice'), priceCurrency: prop('priceCurrency') };
    });
  const direct = own('price').first();
  if (direct.length) offers.push({ price: stated(direct), priceCurrency: stated(own('priceCurrency').first()) });
  const image = stated(own('image').first());
  return {
    name: stated(own('name').first()).replace(/\s+/g, ' ') || null,
    images: imageOf(image ? absolute(image, pageUrl) : null),
    price: offerPrice(offers, currencyHint),
  };
}

/** og: product meta (og:type product, or a product:price:amount). */
function openGraphProduct($: cheerio.CheerioAPI, pageUrl: string, currencyHint: string | null): ListingData | null {
  const meta = (p: string) =>
    ($(`meta[property="${p}"]`).attr('content') ?? $(`meta[name="${p}"]`).attr('content') ?? '').trim();
  const amount = meta('product:price:amount') || meta('og:price:amount');
  if (!amount && !/product/i.test(meta('og:type'))) return null;
  const image = meta('og:image');
  return {
    name: meta('og:title') || null,
    images: imageOf(image ? absolute(image, pageUrl) : null),
    price: amount
      ? offerPrice(
          { price: amount, priceCurrency: meta('product:price:currency') || meta('og:price:currency') },
          currencyHint,
        )
      : null,
  };
}

/**
 * What a product page's own structured data states: JSON-LD Product, else microdata, else og:
 * meta, field by field; null where none states it (the page's text and related products are not read).
 */
export function readProductMarkup(html: string, pageUrl: string, currencyHint: string | null): ListingData {
  const $ = cheerio.load(html);
  const found: ListingData = { name: null, images: [], price: null };
  for (const read of [jsonLdProduct, microdataProduct, openGraphProduct]) {
    const data = read($, pageUrl, currencyHint);
    if (!data) continue;
    found.name ??= data.name;
    if (!found.images.length) found.images = data.images;
    found.price ??= data.price;
  }
  return found;
}

/**
 * A category page: its products as the store's markup states them (cards with links, names,
 * first image and displayed price; JSON-LD ItemList products; microdata Products), what one
 * source lacks filled from another, null where none states it; plus the next page.
 */
export function readHtmlListingPage(html: string, pageUrl: string, currencyHint: string | null): HtmlListingPage {
  const $ = cheerio.load(html);
  const origin = new URL(pageUrl).origin;
  const byUrl = new Map<string, FoundListing>();
  const add: Adder = (url, data) => {
    if (!sameSite(url, origin) || NOT_LISTING.test(new URL(url).pathname)) return;
    const existing = byUrl.get(url);
    if (!existing) {
      byUrl.set(url, { url, name: data.name, images: data.images, price: data.price ?? priceOf(null, null, null) });
      return;
    }
    existing.name ??= data.name;
    if (!existing.images.length) existing.images = data.images;
    if (existing.price.current_value === null && data.price) existing.price = data.price;
  };
  readCards($, pageUrl, currencyHint, add);
  readItemLists($, pageUrl, currencyHint, add);
  readMicrodata($, pageUrl, currencyHint, add);
  return { listings: [...byUrl.values()], next: nextPage($, pageUrl) };
}

/** A listing page's number and its path without the page part (…/page/N/ or ?page=N). */
function pageNumber(url: URL): { base: string; n: number } {
  const path = /^(.*?)\/page\/(\d+)\/?$/.exec(url.pathname);
  if (path) return { base: path[1] || '/', n: Number(path[2]) };
  return { base: url.pathname.replace(/(.)\/$/, '$1'), n: Number(url.searchParams.get('page') ?? 1) || 1 };
}

/**
 * The next page: rel=next, a control named "next" (text, aria-label or class), else the numbered
 * link to page N+1 of this same list (?page=N+1 or …/page/N+1/).
 */
function nextPage($: cheerio.CheerioAPI, pageUrl: string): string | null {
  const current = new URL(pageUrl);
  current.hash = '';
  const here = pageNumber(current);
  // A control that leads back to this page (a carousel's "#", the current page number) is no next page.
  const elsewhere = (href: string | undefined) => {
    const url = href ? absolute(href, pageUrl) : null;
    return url && url !== current.href ? url : null;
  };
  const rel = elsewhere($('link[rel~="next"]').attr('href') ?? $('a[rel~="next"]').attr('href'));
  if (rel) return rel;
  const anchors = $('a[href]').toArray();
  const labelled = anchors.find((a) => {
    const el = $(a);
    return (
      (/^(next( page)?\s*[›»→>]?|[›»→>])$/i.test(el.text().trim()) ||
        /next/i.test(el.attr('aria-label') ?? '') ||
        /(^|[\s_-])next($|[\s_-])/i.test(el.attr('class') ?? '')) &&
      elsewhere(el.attr('href')) !== null
    );
  });
  if (labelled) return elsewhere($(labelled).attr('href'));
  for (const a of anchors) {
    const url = elsewhere($(a).attr('href'));
    if (!url) continue;
    const u = new URL(url);
    const there = pageNumber(u);
    if (u.host === current.host && there.base === here.base && there.n === here.n + 1) return url;
  }
  return null;
}

/** Category pages linked from a storefront page (navigation, category-looking paths). */
export function readCategoryLinks(html: string, pageUrl: string): FoundCollection[] {
  const $ = cheerio.load(html);
  const origin = new URL(pageUrl).origin;
  const found = new Map<string, FoundCollection>();
  $('a[href]').each((_, a) => {
    const url = absolute($(a).attr('href')!, pageUrl);
    if (!url || !sameSite(url, origin)) return;
    const { pathname } = new URL(url);
    if (pathname === '/' || NOT_LISTING.test(pathname) || !CATEGORY_PATH.test(pathname)) return;
    if (/\/(products?|p)\/[^/]+/.test(pathname)) return;
    const clean = new URL(url);
    clean.search = '';
    const key = collectionKey(clean.href);
    if (!key || found.has(key)) return;
    found.set(key, { key, url: clean.href, title: $(a).text().trim().replace(/\s+/g, ' ') || null, statedCount: null });
  });
  return [...found.values()];
}
