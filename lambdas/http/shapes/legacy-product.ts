// The rich legacy product record of /api/products and /api/product: the engine's full record
// under legacy names (price_amount/price_currency, altText, variantIDs, SKU, isAvailable) with
// variant prices as decimal strings, as the spec's "Legacy product record" describes.
import type { ProductImage, ProductRecord, UrlResult } from '../../domain/extraction/types';
import { currencyExponent } from '../../domain/extraction/price';
import { finalUrlField } from '../../domain/extraction/results';
import type { z } from 'zod';
import type { LegacyPerUrlResult, LegacyProductImage, LegacyRichProductRecord } from '../../contracts/entities';

export type LegacyImage = z.input<typeof LegacyProductImage>;
export type LegacyRecord = z.input<typeof LegacyRichProductRecord>;
export type LegacyResult = z.input<typeof LegacyPerUrlResult>;

/** Digits after the decimal point for a currency (JPY 0, USD 2, BHD 3; 2 when unknown): the price module's ISO 4217 table. */
export const minorDigits = (currency: string | null): number => currencyExponent(currency);

/** A legacy price string: "19.99", "1299" (JPY); null for an unknown value. */
export function priceString(value: number | null, currency: string | null): string | null {
  if (value === null || !Number.isFinite(value)) return null;
  return value.toFixed(minorDigits(currency));
}

export function legacyImage(image: ProductImage): LegacyImage {
  return {
    id: image.id,
    url: image.url,
    width: image.width,
    height: image.height,
    altText: image.alt_text,
    position: image.position,
    variantIDs: [...image.variant_ids],
    attributes: image.attributes,
  };
}

/** Lowest and highest known variant price; the product price when no variant has one. */
function priceRange(product: ProductRecord): { min: number | null; max: number | null } {
  const values = product.variants
    .map((v) => v.price.current_value)
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (values.length === 0) return { min: product.price.current_value, max: product.price.current_value };
  return { min: Math.min(...values), max: Math.max(...values) };
}

export function legacyProduct(product: ProductRecord): LegacyRecord {
  const range = priceRange(product);
  return {
    id: product.id,
    title: product.title,
    description: product.description,
    description_html: product.description_html,
    vendor: product.vendor,
    brand: product.brand,
    url: product.url,
    handle: product.handle,
    price_amount: product.price.current_value,
    price_currency: product.price.currency,
    min_price: range.min,
    max_price: range.max,
    is_available: product.is_available,
    store_domain: product.store_domain,
    store_canonical_url: product.store_canonical_url,
    tags: [...product.tags],
    images: product.images.map(legacyImage),
    variants: product.variants.map((variant) => {
      const currency = variant.price.currency ?? product.price.currency;
      return {
        id: variant.id,
        SKU: variant.sku,
        image: variant.image ? legacyImage(variant.image) : null,
        price: priceString(variant.price.current_value, currency),
        compareAtPrice: priceString(variant.price.compare_at_value, currency),
        title: variant.title,
        option1: variant.option1,
        option2: variant.option2 ?? null,
        option3: variant.option3 ?? null,
        isAvailable: variant.is_available,
        url: variant.url,
      };
    }),
    options: product.options.map((option) => ({
      name: option.name,
      values: [...option.values],
      position: option.position,
    })),
    attributes: product.attributes,
    platform: product.platform,
    platform_id: product.platform_id,
    video_url: product.video_url,
    product_type: product.product_type,
    taxonomy_product_category_id: product.taxonomy_product_category_id,
    taxonomy_product_category_path: product.taxonomy_product_category_path,
    review_count: product.review_count,
    average_rating: product.average_rating,
    rating_scale: product.rating_scale,
    reviews: product.reviews,
    faqs: product.faqs,
    updated_at: product.updated_at,
    ...(product.provenance ? { provenance: product.provenance } : {}),
  };
}

/** One /api/products element: url, success, product, plus why a URL failed. */
export function legacyResult(result: UrlResult): LegacyResult {
  return {
    url: result.url,
    success: result.success,
    product: result.success && result.product ? legacyProduct(result.product) : null,
    outcome: result.outcome,
    retry: result.retry,
    message: result.message,
    ...finalUrlField(result.url, result.final_url),
  };
}
