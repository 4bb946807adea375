// Parse a page once and run every reader over it. Pure: HTML in, readings out; the engine adds
// the platform probe and the record. Benchmarks call this directly (no network).
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { textContent } from 'domutils';
import type { PageFacts, ProductCandidate } from './candidate';
import { attrOf, hasWord, parsePage, type PageDocument } from './document';
import { literalFinder, type LiteralPositions, matchFrom } from './literals';
import { detectPlatform, PLATFORM_LITERALS, type PlatformDetection } from './platform';
import { readDom, type DomReading } from './readers/dom';
import { readEmbeddedVariants, resolveEmbeddedPrices } from './readers/embedded-variants';
import { readJsonLd } from './readers/jsonld';
import { readMicrodata } from './readers/microdata';
import { readMetaTags, readOpenGraph } from './readers/opengraph';
import type { SchemaReading } from './readers/schema-org';
import { parseTolerantJson } from './tolerant-json';
import { absoluteUrl, cleanText, currencyCode } from './values';

export interface PageAnalysis {
  $: CheerioAPI;
  url: string;
  facts: PageFacts;
  platform: PlatformDetection;
  jsonLd: SchemaReading;
  microdata: SchemaReading;
  openGraph: ProductCandidate | null;
  dom: DomReading;
  /** Readings in trust order (platform JSON is added by the engine after its probe). */
  candidates: ProductCandidate[];
  /** Shop currency stated by the page outside offers (Shopify.currency.active, meta tags). */
  pageCurrency: string | null;
  descriptionHtml: string | null;
}

export interface AnalyseOptions {
  countryCode?: string | null;
  headers?: Record<string, string | string[] | undefined>;
}

// Where a page writes its long description, in priority order (as CSS: [itemprop="description"],
// #product-description, .product-description, ...), each as a test of one element.
const DESCRIPTION_SELECTORS: Array<(el: Element) => boolean> = [
  (el) => el.attribs.itemprop === 'description',
  (el) => el.attribs.id === 'product-description',
  (el) => hasWord(el.attribs.class, 'product-description'),
  (el) => hasWord(el.attribs.class, 'product__description'),
  (el) => hasWord(el.attribs.class, 'product-single__description'),
  (el) => hasWord(el.attribs.class, 'woocommerce-product-details__short-description'),
  (el) => el.attribs.id === 'tab-description',
  (el) => el.attribs.id === 'description',
  (el) => hasWord(el.attribs.class, 'description'),
];

function findDescriptionHtml(doc: PageDocument): string | null {
  // One pass over the element list: the first element each selector selects.
  const first: Array<Element | undefined> = new Array(DESCRIPTION_SELECTORS.length);
  let left = DESCRIPTION_SELECTORS.length;
  for (const el of doc.describing) {
    const a = el.attribs;
    // Every selector needs "description" in one of these attributes (most elements have none).
    if (a.itemprop !== 'description' && !a.id?.includes('description') && !a.class?.includes('description')) continue;
    for (let i = 0; i < DESCRIPTION_SELECTORS.length; i++) {
      if (first[i] === undefined && DESCRIPTION_SELECTORS[i](el)) {
        first[i] = el;
        left--;
      }
    }
    if (!left) break;
  }
  for (const el of first) {
    if (!el || el.name === 'meta') continue;
    const text = textContent(el);
    if (cleanText(text)?.length && text.trim().length >= 20) {
      const html = doc.$(el).html();
      if (html) return html;
    }
  }
  return null;
}

const SHOPIFY_CURRENCY = /Shopify\.currency\s*=\s*\{\s*"active"\s*:\s*"([A-Z]{3})"/;
const PRICE_CURRENCY = /"priceCurrency"\s*:\s*"([A-Za-z]{3})"/;
const CURRENCY_FIELD = /"currency(?:Code|_code)?"\s*:\s*"([A-Z]{3})"/;
// WooCommerce's block settings (wcSettings) and similar stores' objects: {"currency":{"code":"NZD",...}}.
const CURRENCY_OBJECT = /"currency"\s*:\s*\{\s*"code"\s*:\s*"([A-Z]{3})"/;
const SHOPIFY_META = 'var meta = {"product":';
const WOO_VARIATIONS = 'data-product_variations';
// The raw-text rules' literals (each rule's every match contains its literal), and the platform
// markers, found in one scan of the page.
const pageLiterals = literalFinder([
  ...PLATFORM_LITERALS,
  'Shopify.currency',
  '"priceCurrency"',
  '"currency',
  SHOPIFY_META,
  WOO_VARIATIONS,
]);

/** The first match of `rule` in the page, searched from where its literal first occurs (none: null). */
function firstMatch(html: string, literals: LiteralPositions, literal: string, rule: RegExp): string | null {
  const at = literals.get(literal);
  return at === undefined ? null : (matchFrom(rule, html, at)?.[1] ?? null);
}

function pageCurrencyOf(
  html: string,
  literals: LiteralPositions,
  meta: ReturnType<typeof readMetaTags>,
): string | null {
  const shopify = firstMatch(html, literals, 'Shopify.currency', SHOPIFY_CURRENCY);
  if (shopify) return shopify;
  return (
    currencyCode(meta.get('product:price:currency')) ??
    currencyCode(meta.get('og:price:currency')) ??
    currencyCode(meta.get('pricecurrency')) ??
    currencyCode(firstMatch(html, literals, '"priceCurrency"', PRICE_CURRENCY)) ??
    currencyCode(firstMatch(html, literals, '"currency', CURRENCY_FIELD)) ??
    currencyCode(firstMatch(html, literals, '"currency', CURRENCY_OBJECT))
  );
}

// Languages written in one country's currency; other languages need a region ("pt-BR").
const LANGUAGE_COUNTRY: Record<string, string> = {
  ja: 'jp',
  ko: 'kr',
  th: 'th',
  vi: 'vn',
  he: 'il',
  iw: 'il',
  hu: 'hu',
  cs: 'cz',
  pl: 'pl',
  tr: 'tr',
  uk: 'ua',
  kk: 'kz',
  da: 'dk',
  nb: 'no',
  nn: 'no',
  no: 'no',
  sv: 'se',
  ro: 'ro',
  bg: 'bg',
  el: 'gr',
  fi: 'fi',
  id: 'id',
  ms: 'my',
  hr: 'hr',
  lt: 'lt',
  lv: 'lv',
  et: 'ee',
  sk: 'sk',
  sl: 'si',
  ru: 'ru',
};

/** Country of a page's language tag: its region ("zh-CN" -> cn) or a one-country language. */
export function langCountry(lang: string | null): string | null {
  if (!lang) return null;
  const [language, ...rest] = lang.trim().toLowerCase().split(/[-_]/);
  const region = rest.find((part) => /^[a-z]{2}$/.test(part));
  if (region) return region === 'uk' ? 'gb' : region;
  return LANGUAGE_COUNTRY[language] ?? null;
}

/**
 * The country a page says it is written for when its language tag names none: og:locale's region,
 * or the region of the hreflang alternate that links the page itself. "en_US" is many platforms'
 * default locale, so it says nothing (the caller's country decides then).
 */
export function pageRegionCountry(ogLocale: string | null, selfHreflang: string | null): string | null {
  for (const tag of [ogLocale, selfHreflang]) {
    const region = tag ? langCountry(tag) : null;
    if (region && !(region === 'us' && /^en[-_]us$/i.test(tag!.trim()))) return region;
  }
  return null;
}

const TITLE_SEPARATORS = /\s+[|–—:·•»«-]\s+|\s*[|｜]\s*/;
const letters = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * A document or og:title without the shop's name before or after the product's: the part that is
 * the og:site_name, names the host ("Acme Goods" on acme-goods.com), or is all the other title shares.
 */
export function withoutSiteName(
  title: string,
  siteName: string | null,
  pageUrl: string,
  otherTitle: string | null,
): string {
  const parts = title
    .split(TITLE_SEPARATORS)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length < 2) return title;
  let hostLabel = '';
  try {
    const labels = new URL(pageUrl).hostname.replace(/^www\d?\./, '').split('.');
    hostLabel = letters(
      labels.length > 2 && labels.at(-2)!.length <= 3 ? labels.at(-3)! : (labels.at(-2) ?? labels[0]),
    );
  } catch {
    hostLabel = '';
  }
  const site = siteName ? letters(siteName) : '';
  const isSite = (part: string) => {
    const l = letters(part);
    if (!l) return true;
    if (site && (l === site || site.includes(l) || l.includes(site))) return true;
    return hostLabel.length >= 4 && (l.includes(hostLabel) || (l.length >= 4 && hostLabel.includes(l)));
  };
  const first = parts[0];
  const last = parts[parts.length - 1];
  const exact = (part: string) => {
    const l = letters(part);
    return !!l && (l === site || l === hostLabel);
  };
  const dropLast = () => title.slice(0, title.lastIndexOf(last)).replace(/[\s|–—:·•»«｜-]+$/, '');
  const dropFirst = () => title.slice(title.indexOf(first) + first.length).replace(/^[\s|–—:·•»«｜-]+/, '');
  if (exact(last)) return dropLast();
  if (exact(first)) return dropFirst();
  if (isSite(last) && !isSite(first)) return dropLast();
  if (isSite(first) && !isSite(last)) return dropFirst();
  if (otherTitle) {
    const other = letters(otherTitle);
    const shared = parts.filter((p) => other.includes(letters(p)));
    if (shared.length === 1 && letters(shared[0]).length >= 4 && shared[0] !== title) return shared[0];
  }
  return title;
}

function shopifyAnalyticsProduct(
  html: string,
  literals: LiteralPositions,
  pageUrl: string | null = null,
): { sku: string | null; vendor: string | null } | null {
  const at = literals.get(SHOPIFY_META);
  if (at === undefined) return null;
  const start = at + 'var meta = '.length;
  const end = html.indexOf('};', start);
  if (end < 0 || end - start > 200_000) return null;
  const parsed = parseTolerantJson(html.slice(start, end + 1)) as {
    product?: { vendor?: unknown; variants?: Array<{ sku?: unknown; id?: unknown }> };
  } | null;
  const product = parsed?.product;
  if (!product || typeof product !== 'object') return null;
  const variants = Array.isArray(product.variants) ? product.variants : [];
  // Several variants: which SKU is the product's is not said here, unless the address selects one.
  let selected: string | null = null;
  try {
    selected = pageUrl ? new URL(pageUrl).searchParams.get('variant') : null;
  } catch {
    selected = null;
  }
  const chosen = selected ? variants.find((v) => String(v?.id) === selected) : undefined;
  const sku = cleanText((chosen ?? (variants.length === 1 ? variants[0] : undefined))?.sku);
  return { sku, vendor: cleanText(product.vendor) };
}

/** The option a currency selector (<select name="currency">) has selected: the currency prices are shown in. */
function selectedCurrency(doc: PageDocument): string | null {
  for (const select of doc.byName('select')) {
    if (!/currenc/i.test(`${select.attribs.name ?? ''} ${select.attribs.id ?? ''}`)) continue;
    const option = doc.byName('option').find((o) => o.parent === select && 'selected' in o.attribs);
    const code = option?.attribs.value?.trim();
    if (code && /^[A-Z]{3}$/.test(code)) return code;
  }
  return null;
}

/** The hreflang of the alternate link whose address is the page's own (query and case aside). */
function selfHreflang(doc: PageDocument, url: string): string | null {
  const links = doc.byName('link');
  if (!url || !links.length) return null;
  const key = (u: string) =>
    u
      .replace(/[?#].*$/, '')
      .replace(/\/$/, '')
      .toLowerCase();
  const self = key(url);
  for (let i = 0; i < links.length && i < 400; i++) {
    const el = links[i];
    const tag = el.attribs.hreflang;
    if (!tag) continue;
    const href = absoluteUrl(el.attribs.href, url);
    if (tag && tag !== 'x-default' && href && key(href) === self) return tag;
  }
  return null;
}

/** A page's document for the readers (one parse; see document.ts). */
export function loadHtml(html: string): CheerioAPI {
  return parsePage(html).$;
}

export function analysePage(html: string, url: string, options: AnalyseOptions = {}): PageAnalysis {
  const doc = parsePage(html);
  const $ = doc.$;
  const literals = pageLiterals.find(html);
  const countryCode = options.countryCode ?? null;
  const meta = readMetaTags($);
  const jsonLd = readJsonLd($, url);
  const microdata = readMicrodata($, url);
  const openGraph = readOpenGraph(meta, url, countryCode);
  const pageCurrency =
    pageCurrencyOf(html, literals, meta) ??
    jsonLd.product?.currency ??
    microdata.product?.currency ??
    selectedCurrency(doc) ??
    null;
  const lang = attrOf(doc.byName('html')[0], 'lang') ?? null;
  // The page's own language tag says where its prices are written (zh-CN "¥" is yuan, ja "¥"
  // yen; "1.299" in cs is a thousand): it outranks the caller's default country for the DOM.
  const dom = readDom(
    $,
    url,
    langCountry(lang) ?? pageRegionCountry(meta.get('og:locale'), selfHreflang(doc, url)) ?? countryCode,
    pageCurrency,
    doc.elements,
  );
  const titleEl = doc.byName('title')[0];
  const htmlTitle = cleanText(titleEl ? textContent(titleEl) : '');
  const siteName = meta.get('og:site_name');
  if (openGraph?.title) openGraph.title = withoutSiteName(openGraph.title, siteName, url, htmlTitle);
  // No heading and no markup title: the document title without the shop's name.
  if (!dom.product.title && !openGraph?.title && !jsonLd.product?.title && !microdata.product?.title && htmlTitle) {
    dom.product.title = withoutSiteName(htmlTitle, siteName, url, null);
  }
  const platform = detectPlatform(html, options.headers ?? {}, literals);
  const canonical = absoluteUrl(attrOf(doc.select('link[rel="canonical"]')?.[0], 'href'), url);
  const facts: PageFacts = {
    url,
    canonicalUrl: canonical,
    ogType: meta.get('og:type')?.toLowerCase() ?? null,
    ogSiteName: meta.get('og:site_name'),
    htmlTitle,
    lang,
    breadcrumbs: jsonLd.breadcrumbs.length
      ? jsonLd.breadcrumbs
      : microdata.breadcrumbs.length
        ? microdata.breadcrumbs
        : dom.breadcrumbs,
    faqs: [...jsonLd.faqs, ...microdata.faqs],
    productEntityCount: Math.max(jsonLd.productEntityCount, microdata.productEntityCount),
    listingTypes: [...jsonLd.types, ...microdata.types].filter((t) =>
      /^(ItemList|CollectionPage|SearchResultsPage|OfferCatalog|Blog|BlogPosting|Article|NewsArticle|Recipe|Event|MusicEvent|TheaterEvent|SportsEvent|Course|JobPosting|VideoObject|Movie|Person|SoftwareSourceCode|Report|TechArticle|ScholarlyArticle|LiveBlogPosting|Review|Restaurant|LocalBusiness)$/.test(
        t,
      ),
    ),
    platform: platform.platform,
  };
  // Shopify's analytics object (`var meta = {"product": ...}`) on every product page: the
  // variant SKU and vendor without a network probe (the probe's `.js` overrides it when it answers).
  const analytics = shopifyAnalyticsProduct(html, literals, url);
  if (analytics) {
    dom.product.sku ??= analytics.sku;
    dom.product.brand ??= analytics.vendor;
  }
  const embedded = readEmbeddedVariants($, literals.has(WOO_VARIATIONS));
  if (embedded.options.length || embedded.variants.length) {
    const reference =
      jsonLd.product?.price ?? microdata.product?.price ?? openGraph?.price ?? dom.product.price ?? null;
    dom.product.options = embedded.options;
    dom.product.variants = resolveEmbeddedPrices(embedded, reference, pageCurrency);
  }
  const candidates = [jsonLd.product, microdata.product, openGraph, dom.product].filter(
    (c): c is ProductCandidate => !!c,
  );
  return {
    $,
    url,
    facts,
    platform,
    jsonLd,
    microdata,
    openGraph,
    dom,
    candidates,
    pageCurrency,
    descriptionHtml: findDescriptionHtml(doc),
  };
}
