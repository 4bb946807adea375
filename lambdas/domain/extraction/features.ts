// Candidates for each field with the features a learned scorer weighs (learned.ts): every value
// a reader states (platform JSON, JSON-LD, microdata, OpenGraph, the DOM's scored elements,
// visible labelled text), described by where it comes from, where it sits relative to the
// product's heading and buy control, the labels around it, struck-through or hidden, its shape
// (currency, cents, digits), how often the page repeats it, and whether the hand-written rules
// chose it. Structured data is a feature like any other: strong, never an unconditional winner.
import type { PageAnalysis } from './analyse';
import type { ProductCandidate, Source } from './candidate';
import type { PageClassification } from './classify';
import { describesAnotherProduct, type MergedProduct } from './merge';
import { identifierFromUrl, urlKind } from './product-url';
import type { PriceCandidate } from './readers/dom';
import { brandShaped, cleanSku, isBrandPlaceholder } from './values';

export type Features = Record<string, number>;

export interface FieldCandidate<T> {
  value: T;
  features: Features;
  source: Source | 'url';
  currency?: string | null;
}

/** What the candidates are read from: the page's readings and the rules' merged choice. */
export interface Readings {
  analysis: PageAnalysis;
  merged: MergedProduct;
  classification: PageClassification;
  platform: ProductCandidate | null;
}

/** The host's first label ("acme" of www.acme.co.uk); empty for an address that is none. */
function hostLabel(url: string): string {
  try {
    return new URL(url).hostname
      .replace(/^www\d?\./, '')
      .split('.')[0]
      .toLowerCase();
  } catch {
    return '';
  }
}

function decodedUrl(url: string): string {
  try {
    return decodeURIComponent(url).toLowerCase();
  } catch {
    return url.toLowerCase();
  }
}

const same = (a: number, b: number) => Math.abs(a - b) < 0.005;
const clip = (x: number, lo = -1, hi = 1) => Math.max(lo, Math.min(hi, x));

/** The sources' product readings, platform JSON first, without markup that describes another product. */
function sources(r: Readings): ProductCandidate[] {
  const a = r.analysis;
  const names = [a.dom.product.title, a.openGraph?.title].filter((n): n is string => !!n);
  return [r.platform, a.jsonLd.product, a.microdata.product, a.openGraph, a.dom.product].filter(
    (c): c is ProductCandidate => !!c && !describesAnotherProduct(c, a.dom, names, a.url),
  );
}

/** Collects candidates by a key, OR-ing (max) their features. */
class Pool<T> {
  readonly byKey = new Map<string, FieldCandidate<T>>();
  add(key: string, value: T, source: Source | 'url', features: Features, currency?: string | null): void {
    const known = this.byKey.get(key);
    if (!known) {
      this.byKey.set(key, { value, source, features: { ...features, agree: 1 }, currency });
      return;
    }
    for (const [k, v] of Object.entries(features)) known.features[k] = Math.max(known.features[k] ?? 0, v);
    known.features.agree = (known.features.agree ?? 1) + 1;
    if (known.currency == null && currency) known.currency = currency;
  }
  list(): Array<FieldCandidate<T>> {
    const out = [...this.byKey.values()];
    for (const c of out) c.features.agree = Math.min(1, (c.features.agree - 1) / 3);
    return out;
  }
}

/** Position features of a DOM element's walk order relative to the heading and the buy control. */
function positionFeatures(order: number, r: Readings): Features {
  const dom = r.analysis.dom;
  const h1 = dom.h1Order ?? -1;
  const button = dom.buttonOrder ?? -1;
  const scale = Math.max(200, (dom.elementCount ?? 2000) / 20);
  return {
    after_h1: h1 >= 0 && order > h1 ? 1 : 0,
    near_h1: h1 >= 0 ? Math.exp(-Math.abs(order - h1) / scale) : 0,
    near_button: button >= 0 ? Math.exp(-Math.abs(order - button) / scale) : 0,
    before_button: button >= 0 && order < button ? 1 : 0,
    page_position: dom.elementCount ? order / dom.elementCount : 0.5,
  };
}

/** A DOM price element's own features (the rules' score components are kept as features). */
function domPriceFeatures(p: PriceCandidate, r: Readings, top: PriceCandidate | undefined): Features {
  return {
    dom: 1,
    dom_score: clip(p.score / 10),
    dom_top: top === p ? 1 : 0,
    dom_in_main: p.inMain ? 1 : 0,
    dom_shown: !p.former && !p.noise && !p.hidden ? 1 : 0,
    dom_current_only: p.former ? 0 : 1,
    dom_picker: p.noise ? 1 : 0,
    dom_hidden: p.hidden ? 1 : 0,
    dom_composite: p.composite ? 1 : 0,
    dom_currency: p.currency ? 1 : 0,
    dom_addon: p.addon ? 1 : 0,
    ...positionFeatures(p.order, r),
  };
}

/** Every distinct amount a source or the page states, with its features. */
export function priceCandidates(r: Readings): Array<FieldCandidate<number>> {
  const pool = new Pool<number>();
  const key = (n: number) => n.toFixed(2);
  const { merged, analysis } = r;
  const dom = analysis.dom;
  for (const c of sources(r)) {
    if (c.source === 'dom') continue;
    const src = `src_${c.source}`;
    if (c.price != null && c.price > 0) pool.add(key(c.price), c.price, c.source, { [src]: 1, markup: 1 }, c.currency);
    for (const n of c.offerPrices ?? []) if (n > 0) pool.add(key(n), n, c.source, { offer: 1, markup: 1 }, c.currency);
    if (c.compareAt != null && c.compareAt > 0)
      pool.add(key(c.compareAt), c.compareAt, c.source, { named_regular: 1 }, c.currency);
    for (const v of c.variants ?? [])
      if (v.price != null && v.price > 0) pool.add(key(v.price), v.price, c.source, { variant_price: 1 }, v.currency);
  }
  const top = dom.priceCandidates
    .filter((p) => !p.former && p.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)[0];
  const repeats = new Map<string, number>();
  for (const p of dom.priceCandidates) repeats.set(key(p.amount), (repeats.get(key(p.amount)) ?? 0) + 1);
  for (const p of dom.priceCandidates.slice(0, 40)) {
    const f = domPriceFeatures(p, r, top);
    f.dom_repeats = Math.min(1, Math.log1p(repeats.get(key(p.amount)) ?? 1) / 3);
    pool.add(key(p.amount), p.amount, 'dom', f, p.currency);
  }
  for (const p of dom.noisePrices ?? []) {
    const f = domPriceFeatures(p, r, top);
    pool.add(key(p.amount), p.amount, 'dom', { ...f, dom: 0, dom_noise: 1, dom_top: 0, dom_shown: 0 }, p.currency);
  }
  if (dom.product.price != null) pool.add(key(dom.product.price), dom.product.price, 'dom', { dom_chosen: 1 });
  if (merged.price != null) pool.add(key(merged.price), merged.price, merged.provenance.price ?? 'dom', { rule: 1 });
  const list = pool.list();
  const amounts = list.map((c) => c.value);
  const max = Math.max(...amounts);
  const min = Math.min(...amounts);
  const pageCurrency = analysis.pageCurrency ?? merged.currency;
  for (const c of list) {
    const a = c.value;
    const f = c.features;
    f.cents = Number.isInteger(a) ? 0 : 1;
    f.magnitude = clip(Math.log10(a) / 6, 0, 1);
    f.is_max = amounts.length > 1 && a === max ? 1 : 0;
    f.is_min = amounts.length > 1 && a === min ? 1 : 0;
    f.hundredfold_of_other = amounts.some((b) => b !== a && same(a, b * 100)) ? 1 : 0;
    f.hundredth_of_other = amounts.some((b) => b !== a && same(a * 100, b)) ? 1 : 0;
    f.displayed = [...dom.displayedAmounts].some((n) => same(n, a)) ? 1 : 0;
    f.range_low = merged.priceRange && same(merged.priceRange.min, a) ? 1 : 0;
    f.currency_agrees = c.currency && pageCurrency && c.currency === pageCurrency ? 1 : 0;
    f.currency_differs = c.currency && pageCurrency && c.currency !== pageCurrency ? 1 : 0;
    f.off_rule = merged.price != null ? clip(Math.abs(Math.log(a / merged.price)) / 3, 0, 1) : 0;
    f.no_rule = merged.price == null ? 1 : 0;
  }
  return list;
}

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function overlap(text: string, other: string | null | undefined): number {
  if (!other) return 0;
  const own = wordsOf(text);
  if (!own.length) return 0;
  const set = new Set(wordsOf(other));
  return own.filter((w) => set.has(w)).length / own.length;
}

/** Shape features of a name (title or brand) in the page's context. */
function nameShape(text: string, r: Readings): Features {
  const words = wordsOf(text);
  const facts = r.analysis.facts;
  const crumb = facts.breadcrumbs.some((b) => b.trim().toLowerCase() === text.trim().toLowerCase());
  return {
    words: Math.min(1, Math.log1p(words.length) / 3),
    one_word: words.length === 1 ? 1 : 0,
    long: text.length > 150 ? 1 : 0,
    price_in: PRICE_IN.test(text) ? 1 : 0,
    ellipsis: /(\.\.\.|…)\s*$/.test(text) ? 1 : 0,
    breadcrumb: crumb ? 1 : 0,
    address_like: /\bwww\.|https?:|\.(com|net|org|co\.\w\w)\b/i.test(text) ? 1 : 0,
    separator: /\s[|–—:·•»]\s|\s-\s/.test(text) ? 1 : 0,
    upper: text === text.toUpperCase() && /\p{Lu}/u.test(text) ? 1 : 0,
    trailing_label: /[:：]\s*$/.test(text) ? 1 : 0,
    in_og_title: overlap(text, r.analysis.openGraph?.title),
    site_name: facts.ogSiteName && text.trim().toLowerCase() === facts.ogSiteName.trim().toLowerCase() ? 1 : 0,
  };
}

const PRICE_IN = /[$€£¥₹]\s?\d|\d[.,]\d\d(?!\d)/;
const PRICE_TOKEN = String.raw`(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?[$€£¥₹])`;
const LEADING_PRICES = new RegExp(String.raw`^(?:\s*${PRICE_TOKEN})+[\s|–—:·•»-]*`);
const TRAILING_PRICES = new RegExp(String.raw`[\s|–—:·•»-]*(?:${PRICE_TOKEN}\s*)+$`);
const SPACED_SEPARATOR = /\s+[|–—·•»]\s+/;

/**
 * A name with the prices glued to it cut off ("H&M Bomber Jacket $24.99", "$60 · Surf Board",
 * "Log In needed $60 · Surf Board"): the parts between separators that hold a price, then
 * prices left at either end. Null when nothing is cut or no words are left.
 */
export function withoutGluedPrices(text: string): string | null {
  if (!PRICE_IN.test(text)) return null;
  const parts = text.split(SPACED_SEPARATOR);
  const kept = parts.length > 1 ? parts.filter((p) => !PRICE_IN.test(p)) : parts;
  const cut = kept.join(' · ').replace(LEADING_PRICES, '').replace(TRAILING_PRICES, '').trim();
  return cut && cut !== text.trim() && /\p{L}/u.test(cut) ? cut : null;
}

/**
 * How names relate to each other: one is another with words before it (the brand: "Tommy Jeans
 * OFLEKI" beside "OFLEKI"; or other words: "Details about BMW X1" beside "BMW X1"), or with words
 * after it ("Legend 200ml Model:" beside "Legend 200ml"). Each side of such a pair is marked.
 */
function relations(list: Array<FieldCandidate<string>>, brand: string | null, host: string): void {
  // Words before a name are the brand's when they share a word with it or name the shop's host
  // ("Tiffany Novo Diamond Ring" beside "Diamond Ring" on a page of the brand "Tiffany & Co.").
  const brandWords = new Set([...(brand ? wordsOf(brand) : []), ...wordsOf(host).filter((w) => w.length >= 3)]);
  const tokens = list.map((c) => wordsOf(c.value));
  list.forEach((a, i) =>
    list.forEach((b, j) => {
      const long = tokens[i];
      const short = tokens[j];
      if (i === j || !short.length || short.length >= long.length) return;
      const lead = long.slice(0, long.length - short.length);
      if (long.slice(lead.length).join(' ') === short.join(' ')) {
        const byBrand = lead.some((w) => brandWords.has(w));
        a.features[byBrand ? 'brand_lead' : 'extra_lead'] = 1;
        b.features[byBrand ? 'lacks_brand' : 'lacks_lead'] = 1;
      } else if (long.slice(0, short.length).join(' ') === short.join(' ')) {
        a.features.extra_tail = 1;
        b.features.lacks_tail = 1;
      }
    }),
  );
}

/** Titles every source states, the document title with and without the shop's name. */
export function titleCandidates(r: Readings, withoutSiteName: (t: string) => string): Array<FieldCandidate<string>> {
  const pool = new Pool<string>();
  const key = (t: string) => t.trim().toLowerCase().replace(/\s+/g, ' ');
  for (const c of sources(r))
    if (c.title?.trim()) pool.add(key(c.title), c.title.trim(), c.source, { [`src_${c.source}`]: 1 });
  // The document title (without the shop's name) only where nothing else names the product:
  // elsewhere it is the page's label, not a reading of the product.
  const html = r.analysis.facts.htmlTitle;
  if (html && !pool.byKey.size)
    pool.add(key(withoutSiteName(html)), withoutSiteName(html), 'dom', { html_title_bare: 1 });
  if (r.merged.title) pool.add(key(r.merged.title), r.merged.title, r.merged.provenance.title ?? 'dom', { rule: 1 });
  // Each name with its glued prices cut off is a candidate too, unless a source states it as is.
  for (const c of [...pool.byKey.values()]) {
    const cut = withoutGluedPrices(c.value);
    if (cut && !pool.byKey.has(key(cut)))
      pool.add(key(cut), cut, c.source, { [`src_${c.source}`]: c.features[`src_${c.source}`] ?? 0, price_cut: 1 });
  }
  const list = pool.list();
  const host = hostLabel(r.analysis.url);
  const hostLetters = host.replace(/[^\p{L}\p{N}]/gu, '');
  for (const c of list) {
    Object.assign(c.features, nameShape(c.value, r));
    c.features.is_brand = r.merged.brand && key(r.merged.brand) === key(c.value) ? 1 : 0;
    // The shop's own name ("Tiffany & Co." on tiffany.com, "Acme" on acme-goods.com): short and naming the host.
    const letters = c.value.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    c.features.names_host =
      hostLetters.length >= 3 &&
      wordsOf(c.value).length <= 3 &&
      (letters.includes(hostLetters) || hostLetters.includes(letters))
        ? 1
        : 0;
  }
  relations(list, r.merged.brand, host);
  // A name that shares no word with any other source's (a shop's slogan as og:title beside the
  // JSON-LD name and the heading) is no reading of the same product.
  for (const c of list) {
    const others = list.filter((o) => o !== c).map((o) => o.value);
    c.features.alone = others.length && others.every((o) => overlap(c.value, o) === 0) ? 1 : 0;
  }
  return list;
}

/** Brands the sources, brand elements and "Brand:" rows state. */
export function brandCandidates(r: Readings): Array<FieldCandidate<string>> {
  const pool = new Pool<string>();
  const key = (t: string) => t.trim().toLowerCase();
  const add = (value: string | null | undefined, source: Source | 'url', f: Features) => {
    const v = value?.trim().replace(/^.{0,60}\b(brand|marca|marke|marque|merk|märke|marka|бренд|marchio)\s*:\s*/iu, '');
    if (v && v.length <= 60 && !isBrandPlaceholder(v)) pool.add(key(v), v, source, f);
  };
  for (const c of sources(r)) {
    add(c.brand, c.source, { [`src_${c.source}`]: 1 });
    add(c.vendor, c.source, { vendor: 1 });
  }
  for (const t of r.analysis.dom.brandTexts ?? []) if (brandShaped(t)) add(t, 'dom', { brand_text: 1 });
  if (r.merged.brand) add(r.merged.brand, r.merged.provenance.brand ?? 'dom', { rule: 1 });
  const title = r.merged.title ?? '';
  const list = pool.list();
  const host = hostLabel(r.analysis.url);
  for (const c of list) {
    const f = c.features;
    const letters = c.value.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    f.in_title = title && overlap(c.value, title) === 1 ? 1 : 0;
    f.title_starts = title.toLowerCase().startsWith(c.value.toLowerCase()) ? 1 : 0;
    f.host_name = host && letters.length >= 3 && (host.includes(letters) || letters.includes(host)) ? 1 : 0;
    f.site_name = r.analysis.facts.ogSiteName && key(r.analysis.facts.ogSiteName) === key(c.value) ? 1 : 0;
    f.words = Math.min(1, wordsOf(c.value).length / 5);
    f.digits = /\d{3,}/.test(c.value) ? 1 : 0;
    f.long = c.value.length > 30 ? 1 : 0;
    f.no_rule = r.merged.brand ? 0 : 1;
  }
  return list;
}

const SKU_LABEL_PREFIX = /^[^:：#]{0,24}[:：#]\s*/;

/** SKUs the sources state, the URL's identifier, labelled SKU texts, variants' SKUs, GTIN and MPN. */
export function skuCandidates(r: Readings): Array<FieldCandidate<string>> {
  const pool = new Pool<string>();
  const add = (value: unknown, source: Source | 'url', f: Features) => {
    const v = cleanSku(value);
    if (v && v.length <= 40) pool.add(v.toLowerCase(), v, source, f);
  };
  for (const c of sources(r)) {
    add(c.sku, c.source, { [`src_${c.source}`]: 1, of_variant: c.skuOfVariant ? 1 : 0 });
    add(c.mpn, c.source, { mpn: 1 });
    for (const v of (c.variants ?? []).slice(0, 20)) add(v.sku, c.source, { variant_sku: 1 });
  }
  const dom = r.analysis.dom;
  for (const t of dom.skuTexts ?? []) add(t.replace(SKU_LABEL_PREFIX, ''), 'dom', { sku_text: 1 });
  add(dom.detailsSku, 'dom', { details_sku: 1 });
  add(identifierFromUrl(r.analysis.url), 'url', { url_id: 1 });
  if (r.merged.sku) add(r.merged.sku, r.merged.provenance.sku ?? 'dom', { rule: 1 });
  const list = pool.list();
  const url = decodedUrl(r.analysis.url);
  for (const c of list) {
    const f = c.features;
    const v = c.value;
    f.in_url = url.includes(v.toLowerCase()) ? 1 : 0;
    f.digits_only = /^\d+$/.test(v) ? 1 : 0;
    f.gtin_shaped = /^\d{8}$|^\d{12,14}$/.test(v) ? 1 : 0;
    f.has_space = /\s/.test(v) ? 1 : 0;
    f.length = Math.min(1, v.length / 20);
    f.is_gtin = r.merged.gtin && r.merged.gtin === v ? 1 : 0;
    f.no_rule = r.merged.sku ? 0 : 1;
  }
  return list;
}

const URL_KINDS = ['product', 'unknown', 'home', 'collection', 'search', 'cart', 'account', 'blog', 'info'];

/** One main product or not: the rules' evidence as features, their verdict among them. */
export function pageFeatures(r: Readings): Features {
  const { analysis, merged, classification } = r;
  const { facts, dom } = analysis;
  const kind = urlKind(analysis.url);
  const entities = facts.productEntityCount;
  const listing = facts.listingTypes.some((t) => /^(ItemList|CollectionPage|SearchResultsPage|OfferCatalog)$/.test(t));
  const article = facts.listingTypes.some((t) =>
    /Article|Blog|Posting|Recipe|Event|Course|Job|Movie|Person|Report/.test(t),
  );
  const og = facts.ogType ?? '';
  const f: Features = {
    rule_score: clip(classification.score / 10),
    rule_product: classification.isProduct ? 1 : 0,
    platform: r.platform ? 1 : 0,
    entity_one: entities >= 1 && entities <= 2 ? 1 : 0,
    entities_many: clip(Math.log1p(Math.max(0, entities - 2)) / 3, 0, 1),
    og_product: /product/.test(og) ? 1 : 0,
    og_article: /^(article|blog|video|music|profile|book)/.test(og) ? 1 : 0,
    og_website: og === 'website' ? 1 : 0,
    og_price: analysis.openGraph?.price != null ? 1 : 0,
    buy_button: dom.hasAddToCart ? 1 : 0,
    dom_price: dom.product.price != null ? 1 : 0,
    price: merged.price != null ? 1 : 0,
    sku: merged.sku || merged.gtin ? 1 : 0,
    title: merged.title ? 1 : 0,
    listing: listing ? 1 : 0,
    article: article ? 1 : 0,
    cards: clip(Math.log1p(dom.productCardCount) / 5, 0, 1),
    h1_one: dom.h1Count === 1 ? 1 : 0,
    h1_none: dom.h1Count === 0 ? 1 : 0,
    shown_prices: clip(Math.log1p(dom.priceCandidates.filter((p) => !p.former).length) / 4, 0, 1),
    images: clip((merged.images.length ?? 0) / 10, 0, 1),
    variants: merged.variants.length ? 1 : 0,
  };
  for (const k of URL_KINDS) f[`url_${k}`] = kind === k ? 1 : 0;
  return f;
}
