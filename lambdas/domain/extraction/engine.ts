// The extraction engine: one URL in, one honest per-URL result out. Never throws.
//
// Outcome mapping (retry follows the outcome's class strictly: failed -> true, invalid -> false):
// - malformed_url: not an absolute http(s) URL; the fetcher refuses the address.
// - automated_access_not_permitted: robots.txt disallows us, a bot wall or captcha, HTTP 401/403.
// - non_product_url: the page is a home, collection, search, cart, blog... page, or the URL
//   answers 404/410 (nothing at that address: resubmitting will not help, the URL must change).
// - other: timeouts, DNS, network, 429 and 5xx, non-HTML, too large, redirect loops, a product
//   page from which no price or identifier could be read, any unexpected error.
// Success always carries a record with a title and a price or an identifier.
import type { Enricher } from '../../ports/enricher';
import { FetchFailure, type FetchedPage, type PageFetcher } from '../../ports/fetcher';
import { analysePage, type PageAnalysis } from './analyse';
import type { ProductCandidate } from './candidate';
import { normaliseProduct } from './normalise';
import { readAnalysedPage } from './page';
import { provenanceOf } from './provenance';
import { PLATFORM_THRESHOLD } from './platform';
import { shopifyHandle } from './product-url';
import { readShopifyProduct, readWooProduct } from './readers/platform-json';
import { parseTolerantJson } from './tolerant-json';
import type { ExtractOptions, ExtractUrl, Outcome, Platform, UrlResult } from './types';
import { failureResult, finalUrlField, unexpectedFailure } from './results';
import { parseHttpUrl } from './url';

export interface ExtractorDeps {
  fetcher: PageFetcher;
  enricher: Enricher;
  now?: () => Date;
}

/** A platform named by signals this strong stays named even when its probe fails. */
const STRONG_SIGNALS = PLATFORM_THRESHOLD + 4;

const result = (url: string, outcome: Exclude<Outcome, 'success'>, message: string, finalUrl?: string): UrlResult =>
  failureResult(url, outcome, message, finalUrl);

/** The engine takes absolute http(s) URLs only (callers normalise first); the rest is the one URL validation. */
function validateUrl(raw: unknown): { ok: true; url: URL } | { ok: false; message: string } {
  if (typeof raw !== 'string' || !/^\s*https?:\/\//i.test(raw))
    return { ok: false, message: 'Malformed URL: not an absolute http(s) URL' };
  const parsed = parseHttpUrl(raw);
  return parsed.ok ? parsed : { ok: false, message: `Malformed URL: ${parsed.problem}` };
}

function statusOutcome(status: number): { outcome: Exclude<Outcome, 'success'>; message: string } {
  if (status === 404 || status === 410)
    return { outcome: 'non_product_url', message: `The page does not exist (HTTP ${status}): check the URL.` };
  if (status === 401 || status === 403)
    return {
      outcome: 'automated_access_not_permitted',
      message: `The store refused automated access (HTTP ${status}).`,
    };
  if (status === 429)
    return { outcome: 'other', message: 'The store is rate limiting requests (HTTP 429); try again later.' };
  if (status >= 500)
    return { outcome: 'other', message: `The store answered with a server error (HTTP ${status}); try again later.` };
  return { outcome: 'other', message: `The store answered HTTP ${status}.` };
}

function failureOutcome(failure: FetchFailure): { outcome: Exclude<Outcome, 'success'>; message: string } {
  const text = failure.message || failure.kind;
  switch (failure.kind) {
    case 'malformed_url':
    case 'blocked_address':
      return { outcome: 'malformed_url', message: text };
    case 'robots_disallowed':
      return {
        outcome: 'automated_access_not_permitted',
        message: `The store's robots.txt does not allow fetching this page. ${text}`.trim(),
      };
    case 'bot_wall':
      return {
        outcome: 'automated_access_not_permitted',
        message: `The store blocked automated access (bot protection). ${text}`.trim(),
      };
    case 'http_status':
      return failure.details.status ? statusOutcome(failure.details.status) : { outcome: 'other', message: text };
    case 'timeout':
      return { outcome: 'other', message: `The store did not answer in time. ${text}`.trim() };
    case 'dns':
      return { outcome: 'other', message: `The store's host name could not be resolved. ${text}`.trim() };
    case 'non_html':
      return { outcome: 'other', message: `The URL does not return an HTML page. ${text}`.trim() };
    case 'too_large':
      return { outcome: 'other', message: `The page is too large to process. ${text}`.trim() };
    case 'network':
      // The adapter's text may hold a socket error's own words: customers get ours.
      return { outcome: 'other', message: 'The store could not be reached; try again later.' };
    default:
      return { outcome: 'other', message: text };
  }
}

const isHtml = (contentType: string) => !contentType || /html|xml/i.test(contentType);

/** The page's own product id: body class postid-N or the shortlink (product cards carry others). */
function wooProductId(html: string): string | null {
  return (
    html.match(/<body[^>]*\bpostid-(\d+)\b/)?.[1] ??
    html.match(/<link[^>]+rel=['"]shortlink['"][^>]+\?p=(\d+)/)?.[1] ??
    null
  );
}

/** A probe answer counts only when it is the product at this page's path. */
function samePath(candidate: ProductCandidate, pageUrl: string): boolean {
  if (!candidate.url) return true;
  try {
    const norm = (u: string) => new URL(u).pathname.replace(/\/+$/, '').toLowerCase();
    return norm(candidate.url) === norm(pageUrl) || norm(pageUrl).endsWith(`/${candidate.handle ?? '\u0000'}`);
  } catch {
    return false;
  }
}

export function createExtractor(deps: ExtractorDeps): ExtractUrl {
  const now = deps.now ?? (() => new Date());

  async function probeJson(url: string, countryCode: string): Promise<unknown> {
    try {
      const page = await deps.fetcher.fetch({ url, countryCode, headers: { accept: 'application/json' } });
      if (page.status !== 200) return null;
      return parseTolerantJson(page.body);
    } catch {
      return null;
    }
  }

  /** Confirms the platform by its own product endpoint and reads that JSON. */
  async function probePlatform(
    analysis: PageAnalysis,
    page: FetchedPage,
    countryCode: string,
  ): Promise<{ platform: Platform | null; candidate: ProductCandidate | null }> {
    const detected = analysis.platform;
    const origin = new URL(page.finalUrl).origin;
    if (detected.platform === 'shopify') {
      const handle = shopifyHandle(page.finalUrl);
      if (handle) {
        const base = `${origin}/products/${encodeURIComponent(handle)}`;
        const js = readShopifyProduct(await probeJson(`${base}.js`, countryCode), page.finalUrl, analysis.pageCurrency);
        if (js && samePath(js, page.finalUrl)) return { platform: 'shopify', candidate: js };
        const json = readShopifyProduct(
          await probeJson(`${base}.json`, countryCode),
          page.finalUrl,
          analysis.pageCurrency,
        );
        if (json && samePath(json, page.finalUrl)) return { platform: 'shopify', candidate: json };
      }
    }
    if (detected.platform === 'woocommerce') {
      // Only a single-product page is probed; listing and blog pages carry other products' ids.
      const path = new URL(page.finalUrl).pathname;
      const single = /<body[^>]*class="[^"]*\bsingle-product\b/.test(page.body) || /\/product\/[^/]+\/?$/.test(path);
      const id = wooProductId(page.body);
      const slug = path.split('/').filter(Boolean).pop();
      const endpoint = !single
        ? null
        : id
          ? `${origin}/wp-json/wc/store/v1/products/${id}`
          : slug
            ? `${origin}/wp-json/wc/store/v1/products?slug=${encodeURIComponent(slug)}`
            : null;
      if (endpoint) {
        const payload = await probeJson(endpoint, countryCode);
        const items = (Array.isArray(payload) ? payload : [payload]).slice(0, 100);
        // The Store API answering at all confirms the platform; its product counts only when it
        // is this page's product.
        const products = items
          .map((item) => readWooProduct(item, page.finalUrl))
          .filter((p): p is ProductCandidate => !!p);
        const mine = products.find((p) => samePath(p, page.finalUrl));
        if (mine) return { platform: 'woocommerce', candidate: mine };
        if (products.length) return { platform: 'woocommerce', candidate: null };
      }
    }
    const keep =
      detected.platform &&
      (detected.score >= STRONG_SIGNALS || (detected.platform !== 'shopify' && detected.platform !== 'woocommerce'));
    return { platform: keep ? detected.platform : null, candidate: null };
  }

  async function extract(input: string, options: ExtractOptions): Promise<UrlResult> {
    const valid = validateUrl(input);
    if (!valid.ok) return result(String(input), 'malformed_url', valid.message);
    const countryCode = (options.countryCode || 'us').toLowerCase();
    let page: FetchedPage;
    try {
      page = await deps.fetcher.fetch({ url: valid.url.href, countryCode });
    } catch (error) {
      if (error instanceof FetchFailure) {
        const { outcome, message } = failureOutcome(error);
        return result(input, outcome, message, error.details.finalUrl);
      }
      return unexpectedFailure(input);
    }
    const finalUrl = page.finalUrl || valid.url.href;
    if (page.status >= 400) {
      const { outcome, message } = statusOutcome(page.status);
      return result(input, outcome, message, finalUrl);
    }
    if (!isHtml(page.contentType))
      return result(input, 'other', `The URL returns ${page.contentType}, not an HTML page.`, finalUrl);
    if (!page.body.trim())
      return result(input, 'other', 'The store returned an empty page; try again later.', finalUrl);

    const analysis = analysePage(page.body, finalUrl, { countryCode, headers: page.headers });
    const probe = await probePlatform(analysis, { ...page, finalUrl }, countryCode);
    const reading = readAnalysedPage(analysis, probe.candidate);
    const { merged, classification } = reading;
    if (!classification.isProduct) return result(input, 'non_product_url', classification.reason, finalUrl);
    const identifier = merged.sku ?? merged.gtin ?? merged.mpn ?? merged.platformId;
    if (!merged.title || (merged.price == null && !identifier)) {
      const missing = !merged.title ? 'a product title' : 'a price or a product identifier';
      return result(
        input,
        'other',
        `The page looks like a product page but ${missing} could not be read from it.`,
        finalUrl,
      );
    }
    const product = await normaliseProduct(merged, {
      pageUrl: finalUrl,
      canonicalUrl: analysis.facts.canonicalUrl,
      platform: probe.platform,
      options,
      enricher: deps.enricher,
      breadcrumbs: analysis.facts.breadcrumbs,
      faqs: analysis.facts.faqs,
      relatedUrls: analysis.dom.relatedUrls,
      pageDescriptionHtml: analysis.descriptionHtml,
      now: now(),
    });
    // Only a request that asks pays for it, and only it gets the key.
    if (options.includeProvenance)
      product.provenance = provenanceOf({ analysis, platform: probe.candidate, merged }, product);
    return {
      url: input,
      product,
      success: true,
      outcome: 'success',
      retry: false,
      message: '',
      ...finalUrlField(input, finalUrl),
    };
  }

  return async (url, options) => {
    try {
      return await extract(url, options);
    } catch (_error) {
      return unexpectedFailure(typeof url === 'string' ? url : String(url));
    }
  };
}
