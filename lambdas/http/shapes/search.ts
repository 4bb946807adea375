// Renderers of the search operations: the legacy search/feed record, the v1 and v2 mini-search
// products, and paging meta. Plain functions over the engine's CatalogItem / ProductRecord.
import type { z } from 'zod';
import type { LegacyProductRecord, MiniProductV1, MiniProductV2 } from '../../contracts/entities';
import type { ProductRecord } from '../../domain/extraction/types';
import type { CatalogItem, ProductSearch, SearchFilters, SearchRequest } from '../../domain/search/api';
import type { RequestOf } from '../../contracts/operations';
import { maskToFlags } from '../../domain/products/catalog';

export type LegacySearchRecord = z.input<typeof LegacyProductRecord>;
export type MiniV1 = z.input<typeof MiniProductV1>;
export type MiniV2 = z.input<typeof MiniProductV2>;
type RequestFilters = RequestOf<'legacySearch'>['body']['filters'];

const COLOUR_OPTION = /^colou?rs?$/i;
const SIZE_OPTION = /^sizes?$/i;

const distinct = (values: Iterable<string>) => [...new Set([...values].map((v) => v.trim()).filter(Boolean))];

function optionValues(product: ProductRecord, name: RegExp): string[] {
  return distinct(product.options.filter((option) => name.test(option.name.trim())).flatMap((option) => option.values));
}

function priceRange(product: ProductRecord): { min: number | null; max: number | null } {
  const values = product.variants
    .map((v) => v.price.current_value)
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (values.length === 0) return { min: product.price.current_value, max: product.price.current_value };
  return { min: Math.min(...values), max: Math.max(...values) };
}

const joined = (value: unknown): string | null => {
  if (typeof value === 'string') return value.trim() || null;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const parts = value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
    return parts.length ? parts.join(', ') : null;
  }
  return null;
};

/** The leaf of a taxonomy path ("Apparel > Clothing > T-Shirts" -> "T-Shirts"). */
const leaf = (path: string | null) => (path ? (path.split('>').pop()?.trim() ?? null) || null : null);

/**
 * The enrichment attributes as a flat object of strings (mini searches; keys vary by product):
 * colour as its ISCC-NBS family (merchant label beside it), material as its primary, lists
 * joined with ", ". null when the product has none.
 */
export function flatAttributes(product: ProductRecord): Record<string, string> | null {
  const attributes = product.attributes;
  if (!attributes) return null;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'color' && value && typeof value === 'object') {
      const colour = value as { iscc_family?: unknown; merchant_label?: unknown };
      const family = joined(colour.iscc_family);
      const label = joined(colour.merchant_label);
      if (family ?? label) out.color = (family ?? label)!;
      if (label) out.color_label = label;
      continue;
    }
    if (key === 'material' && value && typeof value === 'object') {
      const material = value as { primary?: unknown; merchant_label?: unknown };
      const primary = joined(material.primary) ?? joined(material.merchant_label);
      if (primary) out.material = primary;
      continue;
    }
    const text = joined(value);
    if (text !== null) out[key] = text;
  }
  const category = leaf(product.taxonomy_product_category_path);
  if (category && !out.category) out.category = category;
  return out;
}

/** The legacy record of /api/search, /api/regular-search and /api/feed. */
export function legacySearchRecord(item: CatalogItem): LegacySearchRecord {
  const product = item.product;
  const range = priceRange(product);
  const images = product.images
    .slice()
    .sort((a, b) => a.position - b.position)
    .map((image) => image.url);
  const attributes = product.attributes;
  const text = (value: unknown) => joined(value);
  const colour = attributes?.color
    ? (text(attributes.color.iscc_family) ?? text(attributes.color.merchant_label))
    : null;
  const material = attributes?.material
    ? (text(attributes.material.primary) ?? text(attributes.material.merchant_label))
    : null;
  return {
    id: product.id,
    title: product.title,
    description: product.description,
    description_html: product.description_html,
    vendor: product.vendor,
    brand: product.brand,
    url: item.url,
    price_amount: product.price.current_value,
    price_currency: product.price.currency,
    min_price: range.min,
    max_price: range.max,
    is_available: product.is_available,
    product_type: product.product_type,
    store_domain: product.store_domain,
    store_canonical_url: product.store_canonical_url,
    collection_handle: null,
    handle: product.handle,
    tags: [...product.tags],
    images: { primary: images[0] ?? null, gallery: images.slice(1) },
    variants: {
      color: optionValues(product, COLOUR_OPTION),
      size: optionValues(product, SIZE_OPTION),
      price_range: range,
    },
    options: Object.fromEntries(product.options.map((option) => [option.name, [...option.values]])),
    attributes: {
      color: colour,
      material,
      category: leaf(product.taxonomy_product_category_path) ?? product.product_type,
      gender: text(attributes?.gender),
      season: text(attributes?.season),
      occasion: text(attributes?.occasion),
      fit: text(attributes?.fit),
      length: text(attributes?.length),
      sleeve_type: text(attributes?.sleeve_type),
    },
    created_at: null,
    updated_at: item.updatedAt,
    published_at: null,
  };
}

/** Enrichment off: the fields it governs are null, whatever the stored record holds. */
export const withEnrichment = (product: ProductRecord, enrichment: boolean): ProductRecord =>
  enrichment
    ? product
    : maskToFlags(product, { enrichment: false, reviews: true, image_tags: true, similar_products: true });

export function miniV1(item: CatalogItem, enrichment: boolean): MiniV1 {
  const product = withEnrichment(item.product, enrichment);
  return {
    url: item.url,
    title: product.title,
    price_amount: product.price.current_value,
    price_currency: product.price.currency,
    description: product.description,
    images: product.images.map((image) => image.url),
    attributes: flatAttributes(product),
  };
}

export function miniV2(item: CatalogItem, enrichment: boolean): MiniV2 {
  const product = withEnrichment(item.product, enrichment);
  return {
    url: item.url,
    product: {
      title: product.title,
      price: {
        current_value: product.price.current_value,
        compare_at_value: product.price.compare_at_value,
        currency: product.price.currency,
      },
      description: product.description,
      images: product.images.map((image) => [image.url]),
      attributes: flatAttributes(product),
      product_type: product.product_type,
      taxonomy_product_category_id: product.taxonomy_product_category_id,
      taxonomy_product_category_path: product.taxonomy_product_category_path,
    },
  };
}

/** Legacy meta form (/api/search, /api/feed). */
export const legacyMeta = (total: number, page: number, pageSize: number) => ({
  totalItems: total,
  totalPages: Math.ceil(total / pageSize),
  currentPage: page,
  pageSize,
});

/** The request's exact filters in the engine's terms (attribute values always lists). */
export function toSearchFilters(filters: RequestFilters | undefined): SearchFilters | undefined {
  if (!filters) return undefined;
  const out: SearchFilters = {};
  if (filters.min_price !== undefined) out.minPrice = filters.min_price;
  if (filters.max_price !== undefined) out.maxPrice = filters.max_price;
  if (filters.is_available !== undefined) out.isAvailable = filters.is_available;
  const brands = (filters.brand ?? []).map((b) => b.trim()).filter(Boolean);
  if (brands.length) out.brands = brands;
  const attributes: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(filters.attributes ?? {})) {
    const values = (Array.isArray(value) ? value : [value]).map((v) => v.trim()).filter(Boolean);
    if (key.trim() && values.length) attributes[key.trim().toLowerCase()] = values;
  }
  if (Object.keys(attributes).length) out.attributes = attributes;
  return Object.keys(out).length ? out : undefined;
}

/**
 * /api/search and /api/regular-search: one body and one response (DECISIONS), differing only in
 * the mode (query understood, or keywords and filters only).
 */
export async function legacySearchResponse(
  search: ProductSearch,
  body: RequestOf<'legacySearch'>['body'],
  mode: SearchRequest['mode'],
) {
  const found = await search.search({
    query: body.query,
    mode,
    filters: toSearchFilters(body.filters),
    offset: (body.page - 1) * body.limit,
    limit: body.limit,
  });
  return {
    products: found.hits.map((hit) => legacySearchRecord(hit.item)),
    meta: legacyMeta(found.total, body.page, body.limit),
  };
}
