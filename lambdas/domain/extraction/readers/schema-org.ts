// Interprets schema.org nodes (from JSON-LD, or microdata converted to the same shape) into a
// product candidate: Product, ProductGroup with hasVariant/variesBy, Products that point at
// their group with isVariantOf, Offer/AggregateOffer/priceSpecification, ratings and reviews.
// Page-level nodes (FAQPage, BreadcrumbList, ItemList...) become page facts.
import type { CheerioAPI } from 'cheerio';
import type { Faq, Review } from '../types';
import type { ImageCandidate, ProductCandidate, Source, VariantCandidate } from '../candidate';
import {
  absoluteUrl,
  asArray,
  cleanSku,
  cleanText,
  currencyCode,
  firstString,
  markupPrice,
  normaliseAvailability,
  toNumber,
  toPositiveInt,
} from '../values';

export type SchemaNode = Record<string, unknown>;

// Only top-level nodes are candidates for the page's product: a Product nested in isRelatedTo,
// isSimilarTo or an ItemList is someone else's product.
export interface SchemaReading {
  product: ProductCandidate | null;
  productEntityCount: number;
  /** Every top-level @type seen (local names). */
  types: string[];
  faqs: Faq[];
  breadcrumbs: string[];
}

const PRODUCT_TYPES = new Set([
  'Product',
  'ProductGroup',
  'ProductModel',
  'IndividualProduct',
  'SomeProducts',
  'Vehicle',
  'Car',
  'Motorcycle',
]);
const OPTION_PROPS = [
  'color',
  'size',
  'material',
  'pattern',
  'suggestedAge',
  'suggestedGender',
  'width',
  'depth',
  'height',
  'weight',
  'flavor',
  'scent',
  'style',
];

export function typesOf(node: unknown): string[] {
  if (!node || typeof node !== 'object') return [];
  return asArray((node as SchemaNode)['@type'])
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^https?:\/\/schema\.org\//i, '').replace(/^schema:/i, ''));
}

const isProductNode = (node: unknown): node is SchemaNode => typesOf(node).some((t) => PRODUCT_TYPES.has(t));
const isGroupNode = (node: unknown): boolean => typesOf(node).includes('ProductGroup');

/** Top-level nodes of a parsed JSON-LD value: arrays, @graph and WebPage.mainEntity unwrapped. */
export function topLevelNodes(value: unknown, out: SchemaNode[] = [], depth = 0): SchemaNode[] {
  if (depth > 6 || value == null) return out;
  if (Array.isArray(value)) {
    for (const v of value) topLevelNodes(v, out, depth + 1);
    return out;
  }
  if (typeof value !== 'object') return out;
  const node = value as SchemaNode;
  if (Array.isArray(node['@graph'])) topLevelNodes(node['@graph'], out, depth + 1);
  if (node['@type']) out.push(node);
  const types = typesOf(node);
  if (types.some((t) => /Page$/.test(t)) && node.mainEntity) topLevelNodes(node.mainEntity, out, depth + 1);
  return out;
}

function indexById(nodes: SchemaNode[]): Map<string, SchemaNode> {
  const byId = new Map<string, SchemaNode>();
  const visit = (value: unknown, depth: number) => {
    if (depth > 8 || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1));
    const node = value as SchemaNode;
    const id = node['@id'];
    // A reference ({"@type": "Brand", "@id": "#b"}) yields to the node that describes it.
    const keys = Object.keys(node).length;
    if (typeof id === 'string' && keys > 1 && keys > Object.keys(byId.get(id) ?? {}).length) byId.set(id, node);
    for (const v of Object.values(node)) if (v && typeof v === 'object') visit(v, depth + 1);
  };
  visit(nodes, 0);
  return byId;
}

function resolve(value: unknown, byId: Map<string, SchemaNode>): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const node = value as SchemaNode;
    const id = node['@id'];
    // A reference: only "@id" (and perhaps "@type"); the node it names says the rest.
    if (typeof id === 'string' && Object.keys(node).every((k) => k === '@id' || k === '@type'))
      return byId.get(id) ?? node;
  }
  return value;
}

function resolveAll(value: unknown, byId: Map<string, SchemaNode>): SchemaNode[] {
  return asArray(value)
    .map((v) => resolve(v, byId))
    .filter((v): v is SchemaNode => !!v && typeof v === 'object');
}

function htmlToText(value: unknown): string | null {
  const text = firstString(value);
  if (!text) return null;
  return cleanText(
    text
      .replace(/<(br|\/p|\/div|\/li|\/h\d)[^>]*>/gi, ' ')
      .replace(/<[^>]+>/g, '')
      .replace(/&nbsp;/g, ' ')
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;|&apos;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>'),
  );
}

function dimension(value: unknown): number | null {
  if (value && typeof value === 'object' && !Array.isArray(value)) return toPositiveInt((value as SchemaNode).value);
  return toPositiveInt(value);
}

function readImages(value: unknown, base: string, byId: Map<string, SchemaNode>): ImageCandidate[] {
  const images: ImageCandidate[] = [];
  for (const raw of asArray(value)) {
    const item = resolve(raw, byId);
    if (typeof item === 'string') {
      const url = absoluteUrl(item, base);
      if (url) images.push({ url });
    } else if (item && typeof item === 'object') {
      const node = item as SchemaNode;
      const url = absoluteUrl(node.contentUrl ?? node.url ?? node.thumbnailUrl ?? node['@id'], base);
      if (url)
        images.push({
          url,
          width: dimension(node.width),
          height: dimension(node.height),
          alt: cleanText(firstString(node.caption ?? node.name ?? node.description)),
        });
    }
  }
  return images;
}

function brandName(value: unknown, byId: Map<string, SchemaNode>): string | null {
  for (const raw of asArray(value)) {
    const item = resolve(raw, byId);
    const name = typeof item === 'object' && item ? firstString((item as SchemaNode).name) : firstString(item);
    if (name && !/^(null|undefined|n\/a|none|-)$/i.test(name)) return name;
  }
  return null;
}

interface OfferReading {
  price: number | null;
  currency: string | null;
  compareAt: number | null;
  availability: ReturnType<typeof normaliseAvailability>;
  url: string | null;
  sku: string | null;
  low: number | null;
  high: number | null;
  prices: number[];
}

function readOffers(value: unknown, base: string, byId: Map<string, SchemaNode>, depth = 0): OfferReading {
  const reading: OfferReading = {
    price: null,
    currency: null,
    compareAt: null,
    availability: null,
    url: null,
    sku: null,
    low: null,
    high: null,
    prices: [],
  };
  if (depth > 3) return reading;
  const prices: number[] = [];
  const availabilities: Array<ReturnType<typeof normaliseAvailability>> = [];
  const offers = resolveAll(value, byId);
  for (const offer of offers) {
    availabilities.push(normaliseAvailability(offer.availability));
    const types = typesOf(offer);
    const currency = currencyCode(offer.priceCurrency);
    let price = markupPrice(offer.price ?? offer.lowPrice, currency);
    let compareAt: number | null = null;
    let specCurrency: string | null = null;
    for (const spec of resolveAll(offer.priceSpecification, byId)) {
      const specPrice = markupPrice(spec.price ?? spec.minPrice, currencyCode(spec.priceCurrency));
      specCurrency ??= currencyCode(spec.priceCurrency);
      const priceType = firstString(spec.priceType) ?? '';
      if (/strikethrough|listprice|msrp|srp|regular|original/i.test(priceType)) compareAt ??= specPrice;
      else if (price == null) price = specPrice;
    }
    if (types.includes('AggregateOffer')) {
      const low = markupPrice(offer.lowPrice, currency);
      const high = markupPrice(offer.highPrice, currency);
      if (low != null) reading.low = reading.low == null ? low : Math.min(reading.low, low);
      if (high != null) reading.high = reading.high == null ? high : Math.max(reading.high, high);
      if (offer.offers && price == null) {
        const inner = readOffers(offer.offers, base, byId, depth + 1);
        price = inner.price;
        reading.availability ??= inner.availability;
        reading.currency ??= inner.currency;
      }
    }
    if (price != null) prices.push(price);
    // The first offer with a price decides; the others only fill gaps.
    if (reading.price == null && price != null) {
      reading.price = price;
      reading.currency = currency ?? specCurrency ?? reading.currency;
      reading.compareAt = compareAt;
      reading.availability = normaliseAvailability(offer.availability) ?? reading.availability;
    } else {
      reading.currency ??= currency ?? specCurrency;
      reading.availability ??= normaliseAvailability(offer.availability);
    }
    reading.url ??= absoluteUrl(offer.url, base);
    reading.sku ??= firstString(offer.sku);
  }
  reading.prices = [...new Set(prices)];
  if (availabilities.length > 1 && availabilities.includes('InStock')) reading.availability = 'InStock';
  if (prices.length > 1) {
    reading.low = Math.min(reading.low ?? Infinity, ...prices);
    reading.high = Math.max(reading.high ?? -Infinity, ...prices);
  }
  return reading;
}

function readRating(node: SchemaNode, byId: Map<string, SchemaNode>): ProductCandidate['rating'] {
  const rating = resolveAll(node.aggregateRating, byId)[0];
  if (!rating) return null;
  const value = toNumber(firstString(rating.ratingValue));
  const count = toPositiveInt(firstString(rating.reviewCount)) ?? toPositiveInt(firstString(rating.ratingCount));
  const scale = toNumber(firstString(rating.bestRating)) ?? (value != null ? 5 : null);
  if (value == null && count == null) return null;
  return { value, count, scale };
}

function readReviews(node: SchemaNode, byId: Map<string, SchemaNode>): Review[] {
  return resolveAll(node.review ?? node.reviews, byId)
    .slice(0, 100)
    .map((r) => {
      const rating = resolveAll(r.reviewRating, byId)[0];
      return {
        author: brandName(r.author, byId),
        rating: rating ? toNumber(firstString(rating.ratingValue)) : null,
        title: cleanText(firstString(r.name ?? r.headline)),
        body: htmlToText(r.reviewBody ?? r.description),
        date: cleanText(firstString(r.datePublished ?? r.dateCreated)),
      };
    })
    .filter((r) => r.body || r.rating != null || r.title);
}

/**
 * schema.org `productID` when a node states no `sku` ("Ref : <span itemprop=productID>"): the
 * shop's own identifier. Prefixed identifiers ("isbn:...", "gtin13:...") and URLs are not a SKU.
 */
function productIdOf(node: SchemaNode): string | null {
  const id = firstString(node.productID)?.trim();
  if (!id || id.length > 40 || /^[a-z][\w-]*:/i.test(id) || /\s/.test(id)) return null;
  return id;
}

function gtinOf(node: SchemaNode): string | null {
  return firstString(node.gtin13 ?? node.gtin ?? node.gtin12 ?? node.gtin14 ?? node.gtin8 ?? null);
}

function optionNames(group: SchemaNode): string[] {
  return asArray(group.variesBy)
    .map((v) => firstString(v))
    .filter((v): v is string => !!v)
    .map((v) => v.replace(/^https?:\/\/schema\.org\//i, '').replace(/^schema:/i, ''));
}

function isStub(node: SchemaNode): boolean {
  return (
    !node.name && !node.offers && !node.sku && !node.gtin && !node.gtin13 && !node.gtin14 && !node.color && !node.size
  );
}

function toVariant(node: SchemaNode, names: string[], base: string, byId: Map<string, SchemaNode>): VariantCandidate {
  const offer = readOffers(node.offers, base, byId);
  const useNames = names.length ? names : OPTION_PROPS.filter((p) => node[p] != null);
  const options: Array<[string, string]> = [];
  for (const name of useNames) {
    const value = firstString(node[name]);
    if (value) options.push([name, value]);
  }
  const image = readImages(node.image, base, byId)[0] ?? null;
  return {
    id: firstString(node.productID) ?? null,
    sku: firstString(node.sku) ?? offer.sku,
    gtin: gtinOf(node),
    url: absoluteUrl(node.url, base) ?? offer.url,
    title: cleanText(firstString(node.name)),
    options,
    price: offer.price ?? offer.low,
    currency: offer.currency,
    compareAt: offer.compareAt,
    availability: offer.availability,
    image,
  };
}

/** Several Offers that each name their own SKU or URL are the product's variants. */
function offersAsVariants(node: SchemaNode, base: string, byId: Map<string, SchemaNode>): VariantCandidate[] {
  const offers = resolveAll(node.offers, byId).filter((o) => typesOf(o).includes('Offer') || !typesOf(o).length);
  if (offers.length < 2) return [];
  const skus = new Set(offers.map((o) => firstString(o.sku)).filter(Boolean));
  const urls = new Set(offers.map((o) => absoluteUrl(o.url, base)).filter(Boolean));
  if (skus.size < offers.length && urls.size < offers.length) return [];
  return offers.map((o) => {
    const one = readOffers(o, base, byId);
    return {
      sku: firstString(o.sku),
      url: absoluteUrl(o.url, base),
      title: cleanText(firstString(o.name)),
      options: [],
      price: one.price,
      currency: one.currency,
      compareAt: one.compareAt,
      availability: one.availability,
      gtin: firstString(o.gtin13 ?? o.gtin ?? null),
    };
  });
}

function productCandidate(
  node: SchemaNode,
  source: Source,
  base: string,
  byId: Map<string, SchemaNode>,
): ProductCandidate {
  const offer = readOffers(node.offers, base, byId);
  const offerVariants = offersAsVariants(node, base, byId);
  const facts: Record<string, string> = {};
  for (const prop of OPTION_PROPS) {
    const v = firstString(node[prop]);
    if (v) facts[prop] = v;
  }
  const related = resolveAll([node.isRelatedTo, node.isSimilarTo].flat(), byId)
    .map((r) => absoluteUrl(r.url ?? r['@id'], base))
    .filter((u): u is string => !!u);
  const category = firstString(node.category);
  return {
    source,
    title: cleanText(firstString(node.name)),
    description: htmlToText(node.description),
    // The maker stands in for a brand the node does not state.
    brand: brandName(node.brand, byId) ?? brandName(node.manufacturer, byId),
    // A placeholder sku ("N/A", "{{ sku }}") is none: the offer's or the productID follows.
    sku: cleanSku(firstString(node.sku)) ?? cleanSku(offer.sku) ?? productIdOf(node),
    gtin: gtinOf(node),
    mpn: firstString(node.mpn),
    url: absoluteUrl(node.url, base),
    category,
    images: readImages(node.image, base, byId),
    price: offer.price ?? offer.low,
    offerPrices: offer.prices,
    currency: offer.currency,
    compareAt: offer.compareAt,
    priceRange:
      offer.low != null && offer.high != null && offer.high > offer.low ? { min: offer.low, max: offer.high } : null,
    availability: offer.availability,
    rating: readRating(node, byId),
    reviews: readReviews(node, byId),
    videoUrl: absoluteUrl(
      resolveAll(node.video, byId)[0]?.contentUrl ?? resolveAll(node.video, byId)[0]?.embedUrl,
      base,
    ),
    facts,
    related,
    variants: offerVariants.length ? offerVariants : undefined,
    // No SKU of its own: the first of several offers' SKUs names a variant, not the product.
    skuOfVariant: !firstString(node.sku) && offerVariants.filter((v) => v.sku).length > 1 ? true : undefined,
  };
}

function groupCandidate(
  group: SchemaNode,
  variantNodes: SchemaNode[],
  source: Source,
  base: string,
  byId: Map<string, SchemaNode>,
): ProductCandidate {
  const candidate = productCandidate(group, source, base, byId);
  let names = optionNames(group);
  const concrete = variantNodes.filter((v) => !isStub(v));
  const variants = concrete.map((v) => toVariant(v, names, base, byId));
  if (!names.length) names = [...new Set(variants.flatMap((v) => v.options.map(([n]) => n)))];
  candidate.options = names
    .map((name) => ({
      name,
      values: [
        ...new Set(variants.map((v) => v.options.find(([n]) => n === name)?.[1]).filter((x): x is string => !!x)),
      ],
    }))
    .filter((o) => o.values.length);
  candidate.variants = variants;
  candidate.platformId = firstString(group.productGroupID) ?? null;
  // The group's own identifier is the product's reference when the group states no SKU.
  if (!firstString(group.sku)) candidate.sku = productIdOf({ productID: group.productGroupID }) ?? candidate.sku;
  const priced = variants.filter((v) => v.price != null);
  if (candidate.price == null && priced.length) {
    const cheapest = priced.reduce((a, b) => (b.price! < a.price! ? b : a));
    candidate.price = cheapest.price;
    candidate.currency ??= cheapest.currency;
    candidate.compareAt = cheapest.compareAt ?? null;
    const all = priced.map((v) => v.price!);
    if (Math.max(...all) > Math.min(...all)) candidate.priceRange = { min: Math.min(...all), max: Math.max(...all) };
  }
  if (!candidate.availability && variants.length) {
    candidate.availability = variants.some((v) => v.availability === 'InStock')
      ? 'InStock'
      : (variants.find((v) => v.availability)?.availability ?? null);
  }
  if (!candidate.images?.length)
    candidate.images = variants.map((v) => v.image).filter((i): i is ImageCandidate => !!i);
  return candidate;
}

/**
 * Several Products of one name with distinct SKUs and no ProductGroup: each size or colour of one
 * product listed as its own Product, so their SKUs are variant SKUs.
 */
function ungroupedVariants(products: SchemaNode[]): boolean {
  if (products.length < 2) return false;
  const names = new Set(products.map((p) => cleanText(firstString(p.name))?.toLowerCase() ?? ''));
  const skus = new Set(products.map((p) => firstString(p.sku)).filter(Boolean));
  return names.size === 1 && !names.has('') && skus.size === products.length;
}

function sameTarget(a: string | null | undefined, pageUrl: string): boolean {
  if (!a) return false;
  try {
    const x = new URL(a);
    const y = new URL(pageUrl);
    return (
      x.hostname.replace(/^www\./, '') === y.hostname.replace(/^www\./, '') &&
      x.pathname.replace(/\/$/, '') === y.pathname.replace(/\/$/, '')
    );
  } catch {
    return false;
  }
}

/** Letters and digits only, lower case: names compared across markup and headings. */
const nameKey = (text: string | null | undefined) =>
  (text ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * Several distinct Products and none names the page's URL: related products are marked up too.
 * The page's product is the one its heading names (equal, or one name holding the other).
 */
function productNamedBy(products: SchemaNode[], headings: string[]): SchemaNode | null {
  const named = products.map((p) => [p, nameKey(firstString(p.name))] as const).filter(([, n]) => n.length >= 3);
  for (const heading of headings) {
    const h = nameKey(heading);
    if (h.length < 3) continue;
    const exact = named.filter(([, n]) => n === h);
    if (exact.length === 1) return exact[0][0];
    const holding = named.filter(([, n]) => h.includes(n) || n.includes(h));
    if (holding.length === 1) return holding[0][0];
  }
  return null;
}

/** The page's h1 texts (the first few), then its document title. */
export function pageHeading($: CheerioAPI): string[] {
  const texts = $('h1')
    .slice(0, 4)
    .toArray()
    .map((h) => $(h).text());
  return [...texts, $('title').first().text()];
}

export function interpretSchemaNodes(
  nodes: SchemaNode[],
  source: Source,
  pageUrl: string,
  /** The page's headings, read only when several Products need telling apart. */
  heading: () => string[] = () => [],
): SchemaReading {
  const byId = indexById(nodes);
  const types = [...new Set(nodes.flatMap(typesOf))];
  const faqs: Faq[] = [];
  const breadcrumbs: string[] = [];
  for (const node of nodes) {
    const t = typesOf(node);
    if (t.includes('FAQPage')) {
      for (const q of resolveAll(node.mainEntity, byId)) {
        const question = htmlToText(q.name ?? q.text);
        const answerNode = resolveAll(q.acceptedAnswer, byId)[0];
        const answer = answerNode ? htmlToText(answerNode.text) : null;
        if (question && answer) faqs.push({ question, answer });
      }
    }
    if (t.includes('BreadcrumbList') && !breadcrumbs.length) {
      const items = resolveAll(node.itemListElement, byId).sort(
        (a, b) => (toNumber(a.position) ?? 0) - (toNumber(b.position) ?? 0),
      );
      for (const item of items) {
        const inner = resolve(item.item, byId);
        const name = cleanText(
          firstString(item.name) ??
            (inner && typeof inner === 'object' ? firstString((inner as SchemaNode).name) : null),
        );
        if (name) breadcrumbs.push(name);
      }
    }
  }

  const products = nodes.filter(isProductNode);
  const distinct = new Set(
    products
      .filter((p) => !isGroupNode(p))
      .map((p) => firstString(p.sku) ?? firstString(p.name) ?? JSON.stringify(p).slice(0, 200)),
  );
  const groups = products.filter(isGroupNode);
  let productEntityCount = distinct.size + groups.length;
  let product: ProductCandidate | null = null;

  const groupKey = (g: SchemaNode) => firstString(g['@id']) ?? firstString(g.productGroupID) ?? firstString(g.name);
  // isVariantOf: Products naming their group, inline or by @id.
  const memberOf = (p: SchemaNode): SchemaNode | null => {
    const ref = resolve(asArray(p.isVariantOf)[0], byId);
    return ref && typeof ref === 'object' ? (ref as SchemaNode) : null;
  };
  if (groups.length) {
    const group = groups.find((g) => sameTarget(absoluteUrl(g.url, pageUrl), pageUrl)) ?? groups[0];
    const key = groupKey(group);
    const members = resolveAll(group.hasVariant, byId);
    for (const p of products) {
      const parent = memberOf(p);
      if (parent && groupKey(parent) === key && !members.includes(p)) members.push(p);
    }
    product = groupCandidate(group, members, source, pageUrl, byId);
    productEntityCount = groups.length;
  } else {
    const withParent = products.map((p) => [p, memberOf(p)] as const).filter(([, g]) => g);
    if (withParent.length) {
      const group = withParent[0][1]!;
      const key = groupKey(group);
      const members = withParent.filter(([, g]) => groupKey(g!) === key).map(([p]) => p);
      for (const m of resolveAll(group.hasVariant, byId)) if (!members.includes(m)) members.push(m);
      product = groupCandidate(group, members, source, pageUrl, byId);
      productEntityCount =
        new Set(withParent.map(([, g]) => groupKey(g!))).size + products.filter((p) => !memberOf(p)).length;
    } else if (products.length) {
      const main =
        products.find((p) => sameTarget(absoluteUrl(p.url ?? p['@id'], pageUrl), pageUrl)) ??
        (distinct.size > 1 && !ungroupedVariants(products) ? productNamedBy(products, heading()) : null) ??
        products.find((p) => p.offers && p.name) ??
        products.find((p) => p.name) ??
        products[0];
      product = productCandidate(main, source, pageUrl, byId);
      if (ungroupedVariants(products)) {
        // One product in several sizes, not a list of products.
        productEntityCount = 1;
        product.skuOfVariant = true;
        // Each Product is one variant: its SKU, price and stock, options where it states them.
        product.variants ??= products.map((p) => toVariant(p, [], pageUrl, byId));
      }
    }
  }
  return { product, productEntityCount, types, faqs, breadcrumbs };
}
