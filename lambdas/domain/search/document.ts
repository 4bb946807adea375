// What search reads from a product: its text by field (title, brand, category path, attributes
// above description), and the typed facts that filters and boosts use (price, stock, brand,
// colour families, gender, age group, category), so the index never re-reads a record.
import type { ProductRecord } from '../extraction/types';
import type { CatalogChange, SearchDocument } from '../../ports/search-index';
import { colourFamily, findColourLabel, namesNoFamily } from '../enrichment/colour';
import { fold } from '../enrichment/text';
import { readAgeGroup, readGender } from '../enrichment/attributes';
import { TAXONOMY_GID_PREFIX } from '../enrichment/taxonomy';
import { vendorKey } from '../extraction/url';
import { normalise } from './text';
import type { CatalogItem } from './api';

/** The facet holding a product's known age group. */
export const AGE_FACET = 'age_group';

const COLOUR_OPTION = /^(?:colou?rs?|colou?r ?way|farbe|couleur|colore|cor|kleur|kolor|färg|farve|farge|shade)$/i;
const SIZE_OPTION = /^(?:sizes?|größe|grosse|taille|talla|taglia|maat|rozmiar)$/i;
/** Long descriptions add little to ranking and much to memory. */
const DESCRIPTION_CHARS = 600;

/** One document per product: vendor + URL without scheme, www., trailing slash or fragment. */
export function catalogKey(url: string, vendor: string | null): string {
  let rest = url.trim();
  try {
    const parsed = new URL(rest);
    rest = `${parsed.hostname.replace(/^www\./, '')}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`;
  } catch {
    rest = rest
      .replace(/^https?:\/\//i, '')
      .replace(/^www\./i, '')
      .replace(/[#].*$/, '')
      .replace(/\/+$/, '');
  }
  return `${vendor ?? vendorKey(url) ?? ''}|${rest.toLowerCase()}`;
}

const familyCache = new Map<string, string | null>();

async function familyOf(label: string): Promise<string | null> {
  const key = fold(label).trim();
  if (familyCache.has(key)) return familyCache.get(key)!;
  const family = namesNoFamily(key) ? null : await colourFamily(label);
  if (familyCache.size > 20_000) familyCache.clear();
  familyCache.set(key, family);
  return family;
}

const stringsOf = (value: unknown): string[] => {
  if (typeof value === 'string') return value.trim() ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    // {iscc_family, merchant_label}, {primary, merchant_label}
    return Object.values(object).flatMap((v) => (typeof v === 'string' ? stringsOf(v) : []));
  }
  return [];
};

/** Keys whose values are long prose: searchable text, never a filter facet. */
const PROSE_KEYS = new Set([
  'summary',
  'features',
  'care_instructions',
  'additional_product_information',
  'additional_attributes',
]);

/** Who the product is for (normalised, '' when unknown): the enrichment's reading, else what its title says (a crawled listing). */
function audienceOf(product: ProductRecord, attributes: Record<string, unknown>): { gender: string; ageGroup: string } {
  const said = {
    title: product.title,
    description: null,
    storeProductType: product.product_type,
    tags: product.tags,
    options: {},
    breadcrumbs: [],
  };
  const gender = normalise(typeof attributes.gender === 'string' ? attributes.gender : (readGender(said) ?? ''));
  const ageGroup = normalise(
    typeof attributes.age_group === 'string' ? attributes.age_group : (readAgeGroup(said, gender || null) ?? ''),
  );
  return { gender, ageGroup };
}

/** The label of a product's primary colour: the enrichment's, else one its title names (a crawled listing). */
function primaryColourLabel(product: ProductRecord): string | null {
  const enriched = product.attributes?.color?.merchant_label;
  if (enriched) return enriched;
  return !product.attributes && product.title ? findColourLabel(product.title) : null;
}

export async function toSearchDocument(change: CatalogChange): Promise<SearchDocument> {
  const product = change.product;
  if (!product) throw new Error(`A removal has no document (${change.url})`);
  const vendor = change.vendor;
  const attributes = (product.attributes ?? {}) as Record<string, unknown>;
  const facets = new Map<string, Set<string>>();
  const addFacet = (key: string, value: string | null | undefined) => {
    if (!value) return;
    const normalised = normalise(value);
    if (!normalised) return;
    const k = key.toLowerCase();
    let set = facets.get(k);
    if (!set) facets.set(k, (set = new Set()));
    set.add(normalised);
  };

  // Colours: the enrichment's primary colour, then every colour option value (a product sold in
  // navy and black is a navy product too).
  const enrichedColour = product.attributes?.color;
  const colourLabels = [primaryColourLabel(product)].filter((label): label is string => !!label);
  const sizes: string[] = [];
  for (const option of product.options) {
    if (COLOUR_OPTION.test(option.name.trim())) colourLabels.push(...option.values);
    else if (SIZE_OPTION.test(option.name.trim())) sizes.push(...option.values);
    for (const value of option.values) addFacet(option.name, value);
  }
  const colours: string[] = [];
  if (enrichedColour?.iscc_family) colours.push(enrichedColour.iscc_family);
  for (const label of colourLabels) {
    const family = await familyOf(label);
    if (family && !colours.includes(family)) colours.push(family);
    addFacet('color', label);
  }
  for (const family of colours) addFacet('color', family);
  for (const size of sizes) addFacet('size', size);

  for (const [key, value] of Object.entries(attributes)) {
    if (PROSE_KEYS.has(key) || key === 'color') continue;
    for (const v of stringsOf(value)) addFacet(key, v);
  }
  if (product.product_type) addFacet('category', product.product_type);
  if (product.taxonomy_product_category_path)
    addFacet('category', product.taxonomy_product_category_path.split(' > ').pop());
  if (product.product_type) addFacet('product_type', product.product_type);

  const { gender, ageGroup } = audienceOf(product, attributes);
  addFacet(AGE_FACET, ageGroup);
  const price =
    typeof product.price.current_value === 'number' && Number.isFinite(product.price.current_value)
      ? product.price.current_value
      : null;
  const compareAt = product.price.compare_at_value;
  const categoryId = product.taxonomy_product_category_id?.replace(TAXONOMY_GID_PREFIX, '') ?? null;

  const attributeText = [
    // The description's opening sentence says what the product is or has ("A padded laptop
    // sleeve fits 16 inch laptops."): a negation looks at it, as at the title.
    ...stringsOf(attributes.summary),
    ...colourLabels,
    ...colours,
    ...stringsOf(attributes.material),
    ...stringsOf(attributes.pattern),
    ...stringsOf(attributes.style),
    ...stringsOf(attributes.occasion),
    ...stringsOf(attributes.season),
    ...stringsOf(attributes.gender),
    ...stringsOf(attributes.age_group),
    ...stringsOf(attributes.closure_type),
    ...product.tags,
    ...product.options
      .filter((o) => !COLOUR_OPTION.test(o.name.trim()) && !SIZE_OPTION.test(o.name.trim()))
      .flatMap((o) => o.values),
  ].join(' ');
  const present = [
    !!product.title,
    price !== null,
    product.images.length > 0,
    !!product.description,
    !!product.brand,
    product.is_available !== null,
    !!product.taxonomy_product_category_id,
  ];

  return {
    key: catalogKey(change.url, vendor),
    url: change.url,
    vendor,
    source: change.source,
    updatedAt: change.updatedAt,
    ref: change.source === 'extraction' ? { url: change.url, country: change.country ?? 'us' } : null,
    record: change.source === 'listing' ? product : null,
    text: {
      title: product.title ?? '',
      brand: product.brand ?? '',
      category: [product.taxonomy_product_category_path, product.product_type].filter(Boolean).join(' > '),
      attributes: attributeText,
      description: (product.description ?? '').slice(0, DESCRIPTION_CHARS),
    },
    price,
    currency: product.price.currency,
    onSale: price !== null && typeof compareAt === 'number' && compareAt > price,
    available: product.is_available,
    brand: product.brand ? normalise(product.brand) || null : null,
    colours,
    primaryColour: colours[0] ?? null,
    gender: gender || null,
    ageGroup: ageGroup || null,
    categoryId,
    completeness: present.filter(Boolean).length / present.length,
    facets: Object.fromEntries([...facets].map(([k, set]) => [k, [...set]])),
  };
}

/** A listing (name, price, images, url) as a full product record: what it lacks is null or empty. */
export function listingAsProduct(listing: {
  id: string;
  url: string;
  name: string;
  images: Array<{ id: string; url: string; width: number | null; height: number | null; position: number }>;
  price: { currency: string | null; current_value: number | null; compare_at_value: number | null };
  vendor: string;
  last_updated_by_service: string;
}): ProductRecord {
  return {
    id: listing.id,
    title: listing.name || null,
    description: null,
    description_html: null,
    vendor: listing.vendor,
    brand: null,
    url: listing.url,
    handle: null,
    is_available: null,
    attributes: null,
    price: listing.price,
    images: listing.images.map((image) => ({ ...image, alt_text: null, variant_ids: [], attributes: null })),
    options: [],
    variants: [],
    store_canonical_url: null,
    store_domain: vendorKey(listing.url),
    platform: null,
    platform_id: null,
    product_type: null,
    taxonomy_product_category_id: null,
    taxonomy_product_category_path: null,
    tags: [],
    video_url: null,
    review_count: null,
    average_rating: null,
    rating_scale: null,
    faqs: null,
    reviews: null,
    updated_at: listing.last_updated_by_service,
    similar_products: null,
    affiliate_link: null,
  };
}

/** The catalog item of a document, given its full record when the document only points at it. */
export function toCatalogItem(doc: SearchDocument, product: ProductRecord): CatalogItem {
  return { key: doc.key, url: doc.url, vendor: doc.vendor, source: doc.source, updatedAt: doc.updatedAt, product };
}
