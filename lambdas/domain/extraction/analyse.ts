// Parse a page once and run every reader over it. Pure: HTML in, readings out; the engine adds
// the platform probe and the record. Benchmarks call this directly (no network).
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { PageFacts, ProductCandidate } from './candidate';
import { detectPlatform, type PlatformDetection } from './platform';
import { readDom, type DomReading } from './readers/dom';
import { readEmbeddedVariants, resolveEmbeddedPrices } from './readers/embedded-variants';
import { readJsonLd } from './readers/jsonld';
import { readMicrodata } from './readers/microdata';
import { readMetaTags, readOpenGraph } from './readers/opengraph';
import type { SchemaReading } from './readers/schema-org';
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

const DESCRIPTION_SELECTORS = [
  '[itemprop="description"]',
  '#product-description',
  '.product-description',
  '.product__description',
  '.product-single__description',
  '.woocommerce-product-details__short-description',
  '#tab-description',
  '#description',
  '.description',
];

function findDescriptionHtml($: CheerioAPI): string | null {
  for (const selector of DESCRIPTION_SELECTORS) {
    const el = $(selector).first();
    if (!el.length || el.is('meta')) continue;
    const html = el.html();
    if (html && cleanText(el.text())?.length && el.text().trim().length >= 20) return html;
  }
  return null;
}

function pageCurrencyOf(html: string, meta: ReturnType<typeof readMetaTags>): string | null {
  const shopify = html.match(/Shopify\.currency\s*=\s*\{\s*"active"\s*:\s*"([A-Z]{3})"/)?.[1];
  if (shopify) return shopify;
  return (
    currencyCode(meta.get('product:price:currency')) ??
    currencyCode(meta.get('og:price:currency')) ??
    currencyCode(meta.get('pricecurrency')) ??
    currencyCode(html.match(/"priceCurrency"\s*:\s*"([A-Za-z]{3})"/)?.[1] ?? null) ??
    currencyCode(html.match(/"currency(?:Code|_code)?"\s*:\s*"([A-Z]{3})"/)?.[1] ?? null)
  );
}

/** htmlparser2 in HTML mode: several times faster than parse5 and lighter on memory. */
export function loadHtml(html: string): CheerioAPI {
  return cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true } });
}

export function analysePage(html: string, url: string, options: AnalyseOptions = {}): PageAnalysis {
  const $ = loadHtml(html);
  const countryCode = options.countryCode ?? null;
  const meta = readMetaTags($);
  const jsonLd = readJsonLd($, url);
  const microdata = readMicrodata($, url);
  const openGraph = readOpenGraph(meta, url, countryCode);
  const pageCurrency = pageCurrencyOf(html, meta) ?? jsonLd.product?.currency ?? microdata.product?.currency ?? null;
  const dom = readDom($, url, countryCode, pageCurrency);
  const platform = detectPlatform(html, options.headers ?? {});
  const canonical = absoluteUrl($('link[rel="canonical"]').attr('href'), url);
  const facts: PageFacts = {
    url,
    canonicalUrl: canonical,
    ogType: meta.get('og:type')?.toLowerCase() ?? null,
    ogSiteName: meta.get('og:site_name'),
    htmlTitle: cleanText($('title').first().text()),
    lang: $('html').attr('lang') ?? null,
    breadcrumbs: jsonLd.breadcrumbs.length ? jsonLd.breadcrumbs : microdata.breadcrumbs.length ? microdata.breadcrumbs : dom.breadcrumbs,
    faqs: [...jsonLd.faqs, ...microdata.faqs],
    productEntityCount: Math.max(jsonLd.productEntityCount, microdata.productEntityCount),
    listingTypes: [...jsonLd.types, ...microdata.types].filter((t) => /^(ItemList|CollectionPage|SearchResultsPage|OfferCatalog|Blog|BlogPosting|Article|NewsArticle|Recipe|Event|MusicEvent|TheaterEvent|SportsEvent|Course|JobPosting|VideoObject|Movie|Person|SoftwareSourceCode|Report|TechArticle|ScholarlyArticle|LiveBlogPosting|Review|Restaurant|LocalBusiness)$/.test(t)),
    platform: platform.platform,
  };
  const embedded = readEmbeddedVariants($);
  if (embedded.options.length || embedded.variants.length) {
    const reference = jsonLd.product?.price ?? microdata.product?.price ?? openGraph?.price ?? dom.product.price ?? null;
    dom.product.options = embedded.options;
    dom.product.variants = resolveEmbeddedPrices(embedded, reference, pageCurrency);
  }
  const candidates = [jsonLd.product, microdata.product, openGraph, dom.product].filter((c): c is ProductCandidate => !!c);
  return { $, url, facts, platform, jsonLd, microdata, openGraph, dom, candidates, pageCurrency, descriptionHtml: findDescriptionHtml($) };
}
