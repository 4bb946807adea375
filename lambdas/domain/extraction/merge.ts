// Merge the readers' candidates into one product with the source of every field. Trust order:
// platform JSON > JSON-LD > microdata > OpenGraph > DOM, with three exceptions that come from
// where peers lose points: the price the shopper sees beats stale markup (a sale price shown
// beside a struck-through markup price; markup sources disagreeing); a compare-at price is kept
// only when greater than the price; the title prefers the page's h1 over og:title (often the
// site name).
import type { Availability, ImageCandidate, ProductCandidate, Source, VariantCandidate } from './candidate';
import { SOURCE_TRUST } from './candidate';
import type { DomReading } from './readers/dom';
import { cleanSku, isBrandPlaceholder } from './values';

export interface MergedProduct {
  title: string | null;
  description: string | null;
  descriptionHtml: string | null;
  brand: string | null;
  vendor: string | null;
  sku: string | null;
  gtin: string | null;
  mpn: string | null;
  platformId: string | null;
  handle: string | null;
  url: string | null;
  productType: string | null;
  category: string | null;
  tags: string[];
  images: ImageCandidate[];
  price: number | null;
  currency: string | null;
  compareAt: number | null;
  priceRange: { min: number; max: number } | null;
  availability: Availability | null;
  options: Array<{ name: string; values: string[] }>;
  variants: VariantCandidate[];
  rating: ProductCandidate['rating'];
  reviews: NonNullable<ProductCandidate['reviews']>;
  videoUrl: string | null;
  facts: Record<string, string>;
  related: string[];
  /** Field -> the reader that won it (provenance.ts turns it into the record's `provenance` when asked). */
  provenance: Record<string, Source | 'url'>;
}

type ScalarKey =
  | 'title'
  | 'description'
  | 'descriptionHtml'
  | 'brand'
  | 'vendor'
  | 'sku'
  | 'gtin'
  | 'mpn'
  | 'platformId'
  | 'handle'
  | 'url'
  | 'productType'
  | 'category'
  | 'videoUrl'
  | 'availability';

const TITLE_ORDER: Source[] = ['platform_json', 'json_ld', 'microdata', 'dom', 'opengraph'];

function ordered(candidates: ProductCandidate[], order: Source[] = SOURCE_TRUST): ProductCandidate[] {
  return [...candidates].sort((a, b) => order.indexOf(a.source) - order.indexOf(b.source));
}

const same = (a: number, b: number) => Math.abs(a - b) < 0.005;

interface PriceChoice {
  price: number | null;
  currency: string | null;
  compareAt: number | null;
  source: Source | null;
}

/** Chooses the current price; see the module comment for the rules. */
export function choosePrice(candidates: ProductCandidate[], dom: DomReading | null): PriceChoice {
  const sorted = ordered(candidates);
  const platform = sorted.find((c) => c.source === 'platform_json' && c.price != null);
  const anyCurrency = sorted.find((c) => c.currency)?.currency ?? null;
  if (platform)
    return {
      price: platform.price!,
      currency: platform.currency ?? anyCurrency,
      compareAt: platform.compareAt ?? null,
      source: 'platform_json',
    };

  const markup = sorted.filter((c) => c.source !== 'dom' && c.source !== 'platform_json' && c.price != null);
  const domCandidate = sorted.find((c) => c.source === 'dom' && c.price != null) ?? null;
  const shown = dom?.priceCandidates.filter((p) => !p.former && !p.noise && !p.hidden && !p.composite) ?? [];
  const struck = dom?.priceCandidates.filter((p) => p.former) ?? [];
  const isShown = (n: number) => shown.some((p) => same(p.amount, n));
  const isStruck = (n: number) => struck.some((p) => same(p.amount, n)) && !isShown(n);

  if (markup.length) {
    let pick = markup[0];
    // Markup sources disagree: one names the other's price as its regular price, or only one
    // of them is shown on the page as a current price.
    const distinct = markup.filter((m) => !same(m.price!, pick.price!));
    if (distinct.length) {
      const namedAsRegular = markup.find((m) =>
        markup.some((o) => o !== m && o.compareAt != null && same(o.compareAt, m.price!)),
      );
      const shownOnes = markup.filter((m) => isShown(m.price!));
      if (namedAsRegular) pick = markup.find((m) => m !== namedAsRegular && m.price! < namedAsRegular.price!) ?? pick;
      else if (shownOnes.length === 1) pick = shownOnes[0];
    }
    let price = pick.price!;
    // Several offers (regular and sale, new and used): the one the page shows as current.
    const offerPrices = pick.offerPrices ?? [];
    if (offerPrices.length > 1 && !isShown(price)) {
      const shownOffers = offerPrices.filter((n) => isShown(n));
      if (shownOffers.length) price = Math.min(...shownOffers);
    }
    let compareAt =
      pick.compareAt ??
      markup.find((m) => m.compareAt != null)?.compareAt ??
      offerPrices.find((n) => n > price && isStruck(n)) ??
      null;
    let source: Source = pick.source;
    let currency = pick.currency ?? markup.find((m) => m.currency)?.currency ?? anyCurrency;
    // Stale markup: the page strikes the markup price through and shows a lower one.
    if (domCandidate && !same(domCandidate.price!, price) && domCandidate.price! < price && isStruck(price)) {
      compareAt = price;
      price = domCandidate.price!;
      source = 'dom';
      currency = currency ?? domCandidate.currency ?? null;
    }
    // Markup the page never shows, while the product area shows another current price: stale or
    // mis-encoded markup ("4000" for $40.00, "1.299" for $1,299.00) loses to what the shopper sees.
    const top = shown.filter((p) => p.score > 0).sort((a, b) => b.score - a.score || a.order - b.order)[0];
    if (
      source !== 'dom' &&
      domCandidate &&
      top?.inMain &&
      same(top.amount, domCandidate.price!) &&
      !same(domCandidate.price!, price) &&
      ![...(dom?.displayedAmounts ?? [])].some((n) => same(n, price)) &&
      (!domCandidate.currency || !currency || domCandidate.currency === currency)
    ) {
      if (domCandidate.price! < price && isStruck(price)) compareAt = price;
      price = domCandidate.price!;
      source = 'dom';
      currency = currency ?? domCandidate.currency ?? null;
    }
    // Markup rarely states a regular price; the page's struck-through one next to the same
    // current price does.
    if (compareAt == null && domCandidate?.compareAt != null && same(domCandidate.price!, price))
      compareAt = domCandidate.compareAt;
    return { price, currency, compareAt: compareAt != null && compareAt > price ? compareAt : null, source };
  }
  if (domCandidate) {
    const compareAt = domCandidate.compareAt ?? null;
    return {
      price: domCandidate.price!,
      currency: domCandidate.currency ?? anyCurrency,
      compareAt: compareAt != null && compareAt > domCandidate.price! ? compareAt : null,
      source: 'dom',
    };
  }
  return { price: null, currency: anyCurrency, compareAt: null, source: null };
}

function imageKey(url: string): string {
  return url
    .replace(/^https?:/, '')
    .replace(/\?.*$/, '')
    .replace(
      /_(\d+x\d*|\d*x\d+|pico|icon|thumb|small|compact|medium|large|grande|original|master)(@\dx)?(?=\.[a-z0-9]+$)/i,
      '',
    )
    .toLowerCase();
}

export function dedupeImages(images: ImageCandidate[]): ImageCandidate[] {
  const byKey = new Map<string, ImageCandidate>();
  for (const img of images) {
    const url = img.url.startsWith('//') ? `https:${img.url}` : img.url;
    const key = imageKey(url);
    const existing = byKey.get(key);
    if (!existing) byKey.set(key, { ...img, url });
    else {
      existing.width ??= img.width ?? null;
      existing.height ??= img.height ?? null;
      existing.alt ??= img.alt ?? null;
      if (img.variantIds?.length)
        existing.variantIds = [...new Set([...(existing.variantIds ?? []), ...img.variantIds])];
    }
  }
  return [...byKey.values()];
}

const fold = (text: string) => text.trim().toLowerCase();

/** The option values of a variant as one key ("black|m"), names ignored (sources name them differently). */
function optionKey(v: VariantCandidate): string | null {
  if (!v.options.length) return null;
  return v.options
    .map(([, value]) => fold(value))
    .sort()
    .join('|');
}

/** Whether `other` (another source) describes the variant `v` of the chosen list. */
export function sameVariant(v: VariantCandidate, other: VariantCandidate, chosen: VariantCandidate[]): boolean {
  if (v.sku && other.sku) return v.sku === other.sku;
  if (v.id && other.id && v.id === other.id) return true;
  if (v.id && other.url?.includes(`variant=${v.id}`)) return true;
  if (other.id && v.url?.includes(`variant=${other.id}`)) return true;
  // Same option values, and no other variant of the chosen list has them.
  const key = optionKey(v);
  if (!key || key !== optionKey(other)) return false;
  return chosen.filter((c) => optionKey(c) === key).length === 1;
}

/** Whether `text` holds `words` as whole words, case and accents aside. */
function containsWords(text: string, words: string): boolean {
  const fold = (t: string) =>
    ` ${t
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()} `;
  const w = fold(words);
  return w.trim().length > 1 && fold(text).includes(w);
}

/** A URL's path and its query as a sorted set of pairs (order and case of values aside). */
function urlKey(raw: string): string | null {
  try {
    const u = new URL(raw);
    const pairs = [...u.searchParams.entries()].map(([k, v]) => `${k}=${v.toLowerCase()}`).sort();
    return `${u.pathname.replace(/\/$/, '')}?${pairs.join('&')}`;
  } catch {
    return null;
  }
}

/**
 * The variant a page's address selects: `?variant=<id>` (Shopify), a query value that is exactly
 * one variant's id or SKU (`?sku=`, `?childSku=`, `?v=`), or a variant whose own URL is the page's
 * (ProductGroup variants on one page, `?size=small&color=green`). None when several match.
 */
export function selectedVariant(variants: VariantCandidate[], urls: string[]): VariantCandidate | null {
  if (variants.length < 2 && !variants.some((v) => v.url)) return null;
  for (const raw of urls) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      continue;
    }
    const byId = url.searchParams.get('variant');
    if (byId) {
      const v = variants.find((x) => x.id === byId);
      if (v) return v;
    }
    const values = [...url.searchParams.values()].map((v) => v.trim().toLowerCase()).filter((v) => v.length >= 3);
    if (values.length) {
      const hits = variants.filter(
        (v) => (v.id && values.includes(v.id.toLowerCase())) || (v.sku && values.includes(v.sku.toLowerCase())),
      );
      if (hits.length === 1) return hits[0];
    }
    if (url.search) {
      const key = urlKey(raw);
      const hits = variants.filter((v) => v.url && urlKey(v.url) === key);
      if (key && hits.length === 1) return hits[0];
      // Query values naming every option value of exactly one variant (WooCommerce
      // ?attribute_pa_size=m&attribute_pa_color=red, ?size=small&color=green).
      const slugs = new Set([...url.searchParams.values()].map(slug).filter(Boolean));
      if (slugs.size) {
        const named = variants.filter(
          (v) => v.options.length && v.options.every(([, value]) => slugs.has(slug(value))),
        );
        if (named.length === 1) return named[0];
      }
    }
  }
  return null;
}

/** An option value as shops write it in addresses: "Light Blue" -> "light-blue". */
function slug(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
}

/** A name's words for comparing names: folded letters and digits, two characters or more. */
function nameWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2);
}

/** Whether two names share a word (scripts without spaces: a common run of two characters). */
function shareWord(a: string, b: string): boolean {
  const wa = nameWords(a);
  const wb = new Set(nameWords(b));
  if (wa.some((w) => wb.has(w))) return true;
  // Chinese, Japanese, Thai...: no spaces between words, so a shared pair of letters counts.
  const joined = [...wb].join(' ');
  return wa.some(
    (w) =>
      UNSPACED.test(w) &&
      [...w].some((_, i, chars) => i + 2 <= chars.length && joined.includes(chars.slice(i, i + 2).join(''))),
  );
}
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

function samePath(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.pathname.replace(/\/$/, '') === y.pathname.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/**
 * Markup describing another product: a JSON-LD or microdata Product (a recommendation marked up
 * while the page's own product is not) whose name shares no word with the page's product heading
 * nor its og:title, whose address is not the page's, and whose price the page does not show while
 * it shows prices. Its SKU, title, brand and price are another product's: left out of the merge.
 */
export function describesAnotherProduct(
  c: ProductCandidate,
  dom: DomReading | null,
  names: string[],
  pageUrl: string | null,
): boolean {
  if (c.source !== 'json_ld' && c.source !== 'microdata') return false;
  if (!c.title || !names.length || c.price == null || !dom?.displayedAmounts.size) return false;
  if (samePath(c.url, pageUrl)) return false;
  if ([...dom.displayedAmounts].some((n) => same(n, c.price!))) return false;
  if (c.variants?.some((v) => v.price != null && [...dom.displayedAmounts].some((n) => same(n, v.price!))))
    return false;
  return !names.some((n) => shareWord(c.title!, n));
}

/**
 * The brand: the first source naming one (template placeholders such as "$metabrand",
 * "{{ brand }}" or "Your name here" are none), unless sources disagree and the title writes
 * exactly one of their brands.
 */
function pickBrand(
  sorted: ProductCandidate[],
  title: string | null,
  provenance: MergedProduct['provenance'],
): string | null {
  const named: Array<{ brand: string; source: Source }> = [];
  for (const c of sorted) {
    // "See more from the brand: Panasonic" in any language: the value after the brand label.
    const b = c.brand
      ?.trim()
      .replace(/^.{0,60}\b(brand|marca|marke|marque|merk|märke|marka|бренд|marchio)\s*:\s*/iu, '');
    if (b && !isBrandPlaceholder(b)) named.push({ brand: b, source: c.source });
  }
  if (!named.length) return null;
  // Sources disagree (JSON-LD "Acme Home", og:brand "Acme"): the one the product's title
  // writes wins over trust order, when exactly one of them is in it.
  let chosen = named[0];
  const distinct = [...new Map(named.map((n) => [n.brand.toLowerCase(), n])).values()];
  if (distinct.length > 1 && title) {
    const inTitle = distinct.filter((n) => containsWords(title, n.brand));
    if (inTitle.length === 1) chosen = inTitle[0];
  }
  provenance.brand = chosen.source;
  return chosen.brand;
}

/**
 * Variants and options. Variants come from the most trusted source, unless its variant prices
 * disagree with the price the shopper sees (`price`) while another source's agree (stale markup
 * again). Another source describing the same variants (same SKU, id, URL or option values)
 * supplies what the chosen one lacks (SKU, price, availability, options, image). Only per
 * variant, never from the base product: a value no source states for a variant stays unknown.
 */
function mergeVariants(
  sorted: ProductCandidate[],
  price: number | null,
  provenance: MergedProduct['provenance'],
): { variants: VariantCandidate[]; options: MergedProduct['options'] } {
  const variantSources = sorted.filter((c) => c.variants?.length);
  const agrees = (c: ProductCandidate) =>
    price == null ||
    !c.variants!.some((v) => v.price != null) ||
    c.variants!.some((v) => v.price != null && same(v.price, price));
  const withVariants = variantSources.find(agrees) ?? variantSources[0];
  const optionSources = sorted.filter((c) => c.options?.length);
  const withOptions = withVariants?.options?.length ? withVariants : optionSources[0];
  if (withVariants) provenance.variants = withVariants.source;
  const others = variantSources.filter((c) => c !== withVariants).flatMap((c) => c.variants ?? []);
  const chosen = withVariants?.variants ?? [];
  const variants = chosen.map((v) => {
    const known = v.options.length && v.image && v.sku && v.price != null && v.availability != null && v.currency;
    if (known) return v;
    const twin = others.find((o) => sameVariant(v, o, chosen));
    return twin ? completedVariant(v, twin) : v;
  });
  // Option names as the page labels them ("Size", not schema.org's "size").
  const labelOf = (name: string) =>
    [...optionSources]
      .reverse()
      .flatMap((c) => c.options ?? [])
      .find((o) => o.name.toLowerCase() === name.toLowerCase())?.name ?? name;
  const options = (withOptions?.options ?? []).map((o) => ({ ...o, name: labelOf(o.name) }));
  for (const v of variants) v.options = v.options.map(([n, x]) => [labelOf(n), x] as [string, string]);
  for (const v of variants) if (v.sku) v.sku = cleanSku(v.sku);
  return { variants, options };
}

/** `v` with what it lacks taken from `twin`, another source's reading of the same variant. */
function completedVariant(v: VariantCandidate, twin: VariantCandidate): VariantCandidate {
  const price = v.price ?? twin.price ?? null;
  return {
    ...v,
    options: v.options.length ? v.options : twin.options,
    sku: v.sku ?? twin.sku ?? null,
    gtin: v.gtin ?? twin.gtin ?? null,
    image: v.image ?? twin.image ?? null,
    id: v.id ?? twin.id ?? null,
    price,
    currency: v.currency ?? (v.price == null ? twin.currency : null) ?? null,
    compareAt:
      v.compareAt ??
      (v.price == null || (twin.price != null && same(twin.price, v.price)) ? twin.compareAt : null) ??
      null,
    availability: v.availability ?? twin.availability ?? null,
  };
}

/**
 * The SKU the sources state: the first that is an identifier (a placeholder or a copied name is
 * none); a variant's SKU (markup listing each size as a Product) yields to the product's own
 * reference stated by another source (the page's "Ref." / product-reference element).
 */
function sourceSku(sorted: ProductCandidate[], provenance: MergedProduct['provenance']): string | null {
  let sku: string | null = null;
  for (const c of sorted) {
    const v = cleanSku(c.sku);
    if (v) {
      sku = v;
      provenance.sku = c.source;
      break;
    }
  }
  const skuSource = sorted.find((c) => c.sku && c.source === provenance.sku);
  if (skuSource?.skuOfVariant) {
    const product = sorted.find((c) => c.sku && !c.skuOfVariant && c.sku !== sku);
    if (product) {
      sku = cleanSku(product.sku);
      provenance.sku = product.source;
    }
  }
  return sku;
}

/**
 * The variant the page's address selects is what the shopper sees. Its price replaces the
 * chosen one (`price`, changed in place) when the page shows it (or there is no page to ask):
 * the product's lowest or first variant's price is another variant's.
 */
function takeSelectedPrice(
  selected: VariantCandidate | null,
  price: PriceChoice,
  dom: DomReading | null,
  provenance: MergedProduct['provenance'],
): void {
  if (
    selected?.price != null &&
    price.price != null &&
    !same(selected.price, price.price) &&
    (!dom || [...dom.displayedAmounts].some((n) => same(n, selected.price!))) &&
    (!selected.currency || !price.currency || selected.currency === price.currency)
  ) {
    price.price = selected.price;
    price.compareAt = selected.compareAt != null && selected.compareAt > selected.price ? selected.compareAt : null;
    provenance.price = provenance.variants ?? price.source ?? 'dom';
  }
}

/**
 * The SKU after the variants had their say, from `sku` (the sources'): the selected variant's,
 * then the variant whose price the page shows, the only variant's, the URL's identifier, and a
 * labelled SKU in the page's details blocks, in that order.
 */
function variantAwareSku(
  sku: string | null,
  selected: VariantCandidate | null,
  variants: VariantCandidate[],
  price: PriceChoice,
  urlSku: string | null,
  dom: DomReading | null,
  provenance: MergedProduct['provenance'],
): string | null {
  // The selected variant's SKU is the page's, over a product-level one (a group's id, or the
  // first variant's the theme prints).
  if (selected?.sku && selected.sku !== sku) {
    sku = selected.sku;
    provenance.sku = provenance.variants ?? 'dom';
  }
  // A SKU that is one variant's (the first offer's) while the page's price is another variant's:
  // the SKU and the price describe one variant, the one whose price the page shows.
  if (!selected && sku && variants.length > 1 && price.price != null) {
    const skuVariant = variants.find((v) => v.sku === sku);
    const priced = variants.filter((v) => v.sku && v.price != null && same(v.price, price.price!));
    if (skuVariant?.price != null && !same(skuVariant.price, price.price) && priced.length === 1) {
      sku = priced[0].sku ?? sku;
      provenance.sku = provenance.variants ?? 'dom';
    }
  }
  // No product-level SKU: the only variant's.
  if (!sku && variants.length === 1 && variants[0].sku) {
    sku = variants[0].sku;
    provenance.sku = provenance.variants ?? 'dom';
  }
  if (!sku && urlSku) {
    sku = urlSku;
    provenance.sku = 'url';
  }
  if (!sku && dom?.detailsSku) {
    sku = dom.detailsSku;
    provenance.sku = 'dom';
  }
  return sku;
}

/** The readings that describe the page's own product (markup of another product left out). */
export function ownCandidates(
  all: ProductCandidate[],
  dom: DomReading | null,
  pageUrl: string | null,
): ProductCandidate[] {
  // The page's own names: its product heading and og:title.
  const names = [dom?.product.title, all.find((c) => c.source === 'opengraph')?.title].filter(
    (n): n is string => !!n && nameWords(n).length > 0,
  );
  return all.filter((c) => !describesAnotherProduct(c, dom, names, pageUrl));
}

export function mergeCandidates(
  all: ProductCandidate[],
  dom: DomReading | null,
  urlSku: string | null = null,
  pageUrl: string | null = null,
): MergedProduct {
  const candidates = ownCandidates(all, dom, pageUrl);
  const provenance: MergedProduct['provenance'] = {};
  const sorted = ordered(candidates);
  const pick = <K extends ScalarKey>(key: K, order?: Source[]): NonNullable<ProductCandidate[K]> | null => {
    for (const c of order ? ordered(candidates, order) : sorted) {
      const v = c[key];
      if (v != null && v !== '') {
        provenance[key] = c.source;
        return v as NonNullable<ProductCandidate[K]>;
      }
    }
    return null;
  };
  const price = choosePrice(candidates, dom);
  if (price.source) provenance.price = price.source;
  const { variants, options } = mergeVariants(sorted, price.price, provenance);
  const images = dedupeImages(sorted.flatMap((c) => c.images ?? []));
  const urls = [pageUrl, sorted.find((c) => c.url)?.url ?? null].filter((u): u is string => !!u);
  const stated = sourceSku(sorted, provenance);
  const selected = selectedVariant(variants, urls);
  const sku = variantAwareSku(stated, selected, variants, price, urlSku, dom, provenance);
  takeSelectedPrice(selected, price, dom, provenance);
  const availability = pick('availability');
  // A variant whose availability no source states takes the product's (the next source: the
  // page's offers or buy button), so every variant says a boolean when the product does.
  if (availability) for (const v of variants) v.availability ??= availability;
  const title = pick('title', TITLE_ORDER);
  const withRating = sorted.find((c) => c.rating);
  const facts: Record<string, string> = {};
  for (const c of [...sorted].reverse()) Object.assign(facts, c.facts ?? {});
  return {
    title,
    description: pick('description'),
    descriptionHtml: pick('descriptionHtml'),
    brand: pickBrand(sorted, title, provenance),
    vendor: pick('vendor'),
    sku,
    gtin: pick('gtin'),
    mpn: pick('mpn'),
    platformId: pick('platformId'),
    handle: pick('handle'),
    url: pick('url'),
    productType: pick('productType'),
    category: pick('category'),
    tags: sorted.find((c) => c.tags?.length)?.tags ?? [],
    images,
    price: price.price,
    currency: price.currency,
    compareAt: price.compareAt,
    priceRange: sorted.find((c) => c.priceRange)?.priceRange ?? null,
    availability,
    options,
    variants,
    rating: withRating?.rating ?? null,
    reviews: sorted.find((c) => c.reviews?.length)?.reviews ?? [],
    videoUrl: pick('videoUrl'),
    facts,
    related: [...new Set(sorted.flatMap((c) => c.related ?? []))],
    provenance,
  };
}
