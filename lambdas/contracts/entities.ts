// Resource shapes from the spec's "Resources and their fields". Nested structures the spec
// marks "not shown" are open objects.
import { z } from 'zod';
import { Timestamp } from './common';

const num = z.number();
const nullableString = z.string().nullable();
const openObject = z.record(z.string(), z.unknown());

export const VendorSummary = z
  .object({
    vendor: z.string().describe('Vendor key: lower-case hostname without www.'),
    latest_product_update_by_service: Timestamp,
    product_count: z.number().int(),
    in_affiliate_network: z.boolean(),
  })
  .meta({ id: 'VendorSummary' });

export const UsageRecord = z
  .object({
    path: z.string().describe('Route template of the operation, e.g. /v2/extract/{execution_id}'),
    total_calls: z.number().int(),
  })
  .meta({ id: 'UsageRecord' });

export const Price = z
  .object({ currency: nullableString, current_value: num.nullable(), compare_at_value: num.nullable() })
  .meta({ id: 'Price' });

export const ListingImage = z.object({ id: z.string(), url: z.string(), width: z.number().int().nullable(), height: z.number().int().nullable(), position: z.number().int() });

export const Listing = z
  .object({
    id: z.string(),
    url: z.string(),
    name: z.string(),
    images: z.array(ListingImage),
    price: Price,
    vendor: z.string(),
    first_seen_by_service: z.string().describe('ISO 8601 with +00:00 offset'),
    last_updated_by_service: z.string().describe('ISO 8601 with +00:00 offset'),
  })
  .meta({ id: 'Listing' });

export const Collection = z
  .object({ id: z.string(), url: z.string(), products_total: z.number().int(), last_updated_by_service: Timestamp })
  .meta({ id: 'Collection' });

export const AffiliateLinkResult = z
  .looseObject({
    network_link: z.string().optional(),
    original_url: z.string(),
    device_id: z.string().optional(),
    success: z.boolean(),
    message: z.string().optional().describe('Why the URL could not be affiliated (success false)'),
  })
  .meta({ id: 'AffiliateLinkResult' });

export const ExecutionSummary = z
  .object({ execution_id: z.string(), status: z.enum(['processing', 'completed', 'failed']), created_at: Timestamp })
  .meta({ id: 'ExecutionSummary' });

export const ProductImage = z.object({
  id: z.string(),
  url: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  alt_text: nullableString,
  position: z.number().int(),
  variant_ids: z.array(z.string()),
  attributes: openObject.nullable(),
});

export const ProductVariant = z.looseObject({
  id: z.string(),
  sku: nullableString,
  url: nullableString,
  title: nullableString,
  option1: nullableString,
  option2: nullableString.optional(),
  is_available: z.boolean().nullable(),
  price: Price,
  image: ProductImage.nullable(),
  affiliate_link: nullableString,
});

export const FullProductRecord = z
  .object({
    id: z.string(),
    title: nullableString,
    description: nullableString,
    description_html: nullableString,
    vendor: nullableString,
    brand: nullableString,
    url: z.string(),
    handle: nullableString,
    is_available: z.boolean().nullable(),
    attributes: openObject.nullable(),
    price: Price,
    images: z.array(ProductImage),
    options: z.array(z.object({ name: z.string(), values: z.array(z.string()), position: z.number().int() })),
    variants: z.array(ProductVariant),
    store_canonical_url: nullableString,
    store_domain: nullableString,
    platform: nullableString,
    platform_id: nullableString,
    product_type: nullableString,
    taxonomy_product_category_id: nullableString,
    taxonomy_product_category_path: nullableString,
    tags: z.array(z.string()),
    video_url: nullableString,
    review_count: z.number().int().nullable(),
    average_rating: num.nullable(),
    rating_scale: num.nullable(),
    faqs: z.array(z.unknown()).nullable(),
    reviews: z.array(z.unknown()).nullable(),
    updated_at: nullableString,
    similar_products: z.array(z.unknown()).nullable(),
    affiliate_link: nullableString,
  })
  .meta({ id: 'FullProductRecord' });

export const OUTCOMES = ['success', 'non_product_url', 'malformed_url', 'automated_access_not_permitted', 'other'] as const;

export const PerUrlResult = z
  .object({
    url: z.string(),
    product: FullProductRecord.nullable(),
    success: z.boolean(),
    outcome: z.enum(OUTCOMES),
    retry: z.boolean(),
    message: z.string(),
    final_url: z.string().optional(),
  })
  .meta({ id: 'PerUrlResult' });

export const LegacyProductRecord = z
  .looseObject({
    id: z.string(),
    title: nullableString,
    url: z.string(),
    price_amount: num.nullable(),
    price_currency: nullableString,
  })
  .meta({ id: 'LegacyProductRecord', description: 'Legacy product record; see the spec for the full field list' });

export const MiniProductV1 = z
  .object({
    url: z.string(),
    title: nullableString,
    price_amount: num.nullable(),
    price_currency: nullableString,
    description: nullableString,
    images: z.array(z.string()),
    attributes: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: 'MiniProductV1' });

export const MiniProductV2 = z
  .object({
    url: z.string(),
    product: z.looseObject({
      title: nullableString,
      price: Price,
      description: nullableString,
      images: z.array(z.array(z.string())),
      attributes: z.record(z.string(), z.string()).nullable(),
    }),
  })
  .meta({ id: 'MiniProductV2' });

export const ExtractResultCounts = z.object({
  products_requested: z.number().int(),
  products_successful: z.number().int(),
  products_failed: z.number().int(),
  products_failed_by_reason: z.record(z.string(), z.number().int()),
  products_invalid: z.number().int(),
  products_invalid_by_reason: z.record(z.string(), z.number().int()),
  products_pending: z.number().int(),
});

export const ExecutionState = z.enum(['pending', 'running', 'completed', 'failed']);
