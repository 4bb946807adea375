// Platform detection from weighted signals (headers, cookies, script and CDN markers). A score
// at or above the threshold names the platform; the engine then confirms it with a probe of
// the platform's own endpoint where one exists (Shopify, WooCommerce).
import { literalFinder, type LiteralPositions } from './literals';
import type { Platform } from './types';

interface Signal {
  platform: Platform;
  weight: number;
  where: 'header' | 'cookie' | 'html';
  test: RegExp;
  /** Header name for header signals. */
  header?: string;
  /** Literals every match contains: an indexOf pass skips the regex on most pages. */
  needles?: string[];
}

const SIGNALS: Signal[] = [
  { platform: 'shopify', weight: 5, where: 'header', header: 'x-shopid', test: /./ },
  { platform: 'shopify', weight: 5, where: 'header', header: 'x-shopify-stage', test: /./ },
  { platform: 'shopify', weight: 3, where: 'header', header: 'powered-by', test: /shopify/i },
  { platform: 'shopify', weight: 4, where: 'cookie', test: /(^|;\s*)(_shopify_y|_shopify_s|cart_sig|_shopify_sa_t)=/ },
  {
    platform: 'shopify',
    weight: 3,
    where: 'html',
    test: /cdn\.shopify\.com|\/cdn\/shop\//,
    needles: ['cdn.shopify.com', '/cdn/shop/'],
  },
  {
    platform: 'shopify',
    weight: 4,
    where: 'html',
    test: /Shopify\.shop\s*=|window\.Shopify\b|Shopify\.theme/,
    needles: ['Shopify'],
  },
  {
    platform: 'shopify',
    weight: 2,
    where: 'html',
    test: /shopify-section|shopify-payment-button/,
    needles: ['shopify-'],
  },
  {
    platform: 'woocommerce',
    weight: 4,
    where: 'html',
    test: /wp-content\/plugins\/woocommerce/,
    needles: ['wp-content/plugins/woocommerce'],
  },
  {
    platform: 'woocommerce',
    weight: 3,
    where: 'html',
    test: /<body[^>]*class="[^"]*\bwoocommerce\b/,
    needles: ['woocommerce'],
  },
  {
    platform: 'woocommerce',
    weight: 3,
    where: 'html',
    test: /\/wp-json\/wc\/store|wc-block|woocommerce-product-gallery|single_add_to_cart_button/,
    needles: ['/wp-json/wc/store', 'wc-block', 'woocommerce-product-gallery', 'single_add_to_cart_button'],
  },
  {
    platform: 'woocommerce',
    weight: 2,
    where: 'cookie',
    test: /(^|;\s*)(woocommerce_items_in_cart|wp_woocommerce_session_)/,
  },
  {
    platform: 'magento',
    weight: 4,
    where: 'html',
    test: /Mage\.Cookies|mage\/cookies|data-mage-init|Magento_(Catalog|Theme|Ui)/,
    needles: ['Mage.Cookies', 'mage/cookies', 'data-mage-init', 'Magento_'],
  },
  {
    platform: 'magento',
    weight: 3,
    where: 'html',
    test: /\/static\/(version\d+\/)?frontend\//,
    needles: ['frontend/'],
  },
  {
    platform: 'magento',
    weight: 3,
    where: 'cookie',
    test: /(^|;\s*)(mage-cache-sessid|mage-cache-storage|form_key|X-Magento-Vary)=/,
  },
  { platform: 'magento', weight: 3, where: 'header', header: 'x-magento-cache-debug', test: /./ },
  { platform: 'magento', weight: 3, where: 'header', header: 'x-magento-tags', test: /./ },
  {
    platform: 'salesforce_commerce_cloud',
    weight: 5,
    where: 'html',
    test: /demandware\.static|\/on\/demandware\.store\//,
    needles: ['demandware.'],
  },
  {
    platform: 'salesforce_commerce_cloud',
    weight: 3,
    where: 'cookie',
    test: /(^|;\s*)(dwsid|dwanonymous_\w+|dw_dnt|__cq_dnt)=/,
  },
  {
    platform: 'salesforce_commerce_cloud',
    weight: 2,
    where: 'html',
    test: /dwvar_|dw\/image\/v2\//,
    needles: ['dwvar_', 'dw/image/v2/'],
  },
  {
    platform: 'bigcommerce',
    weight: 5,
    where: 'html',
    test: /\bBCData\b|cdn\d*\.bigcommerce\.com|stencil-utils/,
    needles: ['BCData', 'bigcommerce.com', 'stencil-utils'],
  },
  { platform: 'bigcommerce', weight: 3, where: 'cookie', test: /(^|;\s*)(SHOP_SESSION_TOKEN|fornax_anonymousId)=/ },
  { platform: 'bigcommerce', weight: 3, where: 'header', header: 'x-bc-storefront', test: /./ },
  {
    platform: 'wix',
    weight: 5,
    where: 'html',
    test: /static\.wixstatic\.com|wix-warmup-data|_wixCssImports|wixBiSession/,
    needles: ['static.wixstatic.com', 'wix-warmup-data', '_wixCssImports', 'wixBiSession'],
  },
  { platform: 'wix', weight: 3, where: 'header', header: 'x-wix-request-id', test: /./ },
  {
    platform: 'squarespace',
    weight: 5,
    where: 'html',
    test: /static1\.squarespace\.com|Static\.SQUARESPACE_CONTEXT|squarespace-cdn\.com/,
    needles: ['static1.squarespace.com', 'Static.SQUARESPACE_CONTEXT', 'squarespace-cdn.com'],
  },
  { platform: 'squarespace', weight: 3, where: 'cookie', test: /(^|;\s*)(crumb|ss_cvr)=/ },
  {
    platform: 'prestashop',
    weight: 5,
    where: 'html',
    test: /prestashop\s*=\s*\{|var prestashop\b|\/modules\/ps_\w+\//,
    needles: ['prestashop', '/modules/ps_'],
  },
  { platform: 'prestashop', weight: 3, where: 'cookie', test: /(^|;\s*)PrestaShop-[0-9a-f]+=/ },
  {
    platform: 'prestashop',
    weight: 2,
    where: 'html',
    test: /<meta name="generator" content="PrestaShop/i,
    needles: ['generator'],
  },
];

export const PLATFORM_THRESHOLD = 4;

// Every html signal's literals, found in one scan of the page: only the signals whose literals
// occur run their regex (a page is scanned once, not once per signal).
export const PLATFORM_LITERALS: readonly string[] = [...new Set(SIGNALS.flatMap((s) => s.needles ?? []))];
const platformLiterals = literalFinder(PLATFORM_LITERALS);
const SAMPLE_HEAD = 400_000;
const SAMPLE_TAIL = 200_000;
const SEAM = 64;

/**
 * The literals that can occur in the sample: those of the whole page (when the caller scanned it
 * already), plus any the sample makes across the seam between its head and its tail.
 */
function literalsOf(html: string, sample: string, pageLiterals: LiteralPositions | undefined): Set<string> {
  if (!pageLiterals) return new Set(platformLiterals.find(sample).keys());
  const found = new Set(PLATFORM_LITERALS.filter((n) => pageLiterals.has(n)));
  if (sample !== html) {
    // The seam's neighbourhood, cut from the page (slicing the joined sample would copy all of it).
    const seam = html.slice(SAMPLE_HEAD - SEAM, SAMPLE_HEAD) + html.slice(-SAMPLE_TAIL, -SAMPLE_TAIL + SEAM);
    for (const n of platformLiterals.find(seam).keys()) found.add(n);
  }
  return found;
}

export interface PlatformDetection {
  platform: Platform | null;
  score: number;
  scores: Partial<Record<Platform, number>>;
  signals: string[];
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name) continue;
    return Array.isArray(v) ? v.join('; ') : (v ?? null);
  }
  return null;
}

/** `pageLiterals`: where PLATFORM_LITERALS occur in the whole page, when the caller has scanned it. */
export function detectPlatform(
  html: string,
  headers: Record<string, string | string[] | undefined> = {},
  pageLiterals?: LiteralPositions,
): PlatformDetection {
  const scores: Partial<Record<Platform, number>> = {};
  const signals: string[] = [];
  const cookies = (() => {
    const raw = headers['set-cookie'] ?? headers['Set-Cookie'];
    return (Array.isArray(raw) ? raw : raw ? [raw] : []).map((c) => c.split(';')[0]).join('; ');
  })();
  // Markers sit in <head> and early scripts; a bounded prefix keeps this cheap on huge pages.
  const sample = html.length > SAMPLE_HEAD + SAMPLE_TAIL ? html.slice(0, SAMPLE_HEAD) + html.slice(-SAMPLE_TAIL) : html;
  let found: Set<string> | undefined;
  for (const s of SIGNALS) {
    let hit = false;
    if (s.where === 'header') {
      const v = headerValue(headers, s.header!);
      hit = v != null && s.test.test(v);
    } else if (s.where === 'cookie') hit = s.test.test(cookies);
    else
      hit =
        (!s.needles || s.needles.some((n) => (found ??= literalsOf(html, sample, pageLiterals)).has(n))) &&
        s.test.test(sample);
    if (hit) {
      scores[s.platform] = (scores[s.platform] ?? 0) + s.weight;
      signals.push(`${s.platform}:${s.where}:${s.header ?? s.test.source.slice(0, 40)}`);
    }
  }
  let best: Platform | null = null;
  let bestScore = 0;
  for (const [platform, score] of Object.entries(scores) as Array<[Platform, number]>) {
    if (score > bestScore) {
      best = platform;
      bestScore = score;
    }
  }
  return { platform: bestScore >= PLATFORM_THRESHOLD ? best : null, score: bestScore, scores, signals };
}
