// Resource shapes from the spec's "Resources and their fields". Nested structures the spec
// marks "not shown" are open objects.
import * as z from 'zod';
import { Timestamp } from './common';
import { AFFILIATE_REASON_TEXT, AFFILIATE_REASONS } from '../domain/affiliate/reasons';

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

export const ListingImage = z.object({
  id: z.string(),
  url: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  position: z.number().int(),
});

export const Listing = z
  .object({
    id: z.string(),
    url: z.string(),
    name: z.string().nullable().describe('As the store states it; null when it states no name'),
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

const affiliateDeviceId = z
  .string()
  .describe(
    "The organization's affiliate device id: created once, never changes, random (derived from nothing personal)",
  );
const affiliateOriginalUrl = z.string().describe('The input string, exactly as sent');

export const AffiliateLinkResult = z
  .discriminatedUnion('success', [
    z.object({
      network_link: z
        .string()
        .describe('Tracking link of the configured template: merchant id, device id and the URL-encoded deep link'),
      original_url: affiliateOriginalUrl,
      device_id: affiliateDeviceId,
      success: z.literal(true),
    }),
    z.object({
      network_link: z.null().describe('Never a link that looks tracked for an unsupported URL'),
      original_url: affiliateOriginalUrl,
      device_id: affiliateDeviceId,
      success: z.literal(false),
      reason: z
        .enum(AFFILIATE_REASONS)
        .describe(AFFILIATE_REASONS.map((reason) => `\`${reason}\`: ${AFFILIATE_REASON_TEXT[reason]}`).join('; ')),
    }),
  ])
  .meta({
    id: 'AffiliateLinkResult',
    description:
      'One per input URL, in input order. An unsupported URL is success false with a reason and counts in `failed`; it never fails the request.',
  });

export const ExecutionSummary = z
  .object({ execution_id: z.string(), status: z.enum(['processing', 'completed', 'failed']), created_at: Timestamp })
  .meta({ id: 'ExecutionSummary' });

export const ProductImage = z
  .object({
    id: z.string(),
    url: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    alt_text: nullableString,
    position: z.number().int(),
    variant_ids: z.array(z.string()),
    attributes: openObject.nullable().describe('Image tags; null unless enable_image_tags'),
  })
  .meta({ id: 'ProductImage' });

export const ProductOption = z
  .object({ name: z.string(), values: z.array(z.string()), position: z.number().int() })
  .meta({ id: 'ProductOption' });

export const ProductVariant = z
  .object({
    id: z.string(),
    sku: nullableString,
    url: nullableString,
    title: nullableString,
    option1: nullableString.describe("The variant's value of options[0]; option2, option3 likewise"),
    option2: nullableString,
    option3: nullableString,
    is_available: z.boolean().nullable(),
    price: Price,
    image: ProductImage.nullable(),
    affiliate_link: nullableString,
  })
  .meta({ id: 'ProductVariant' });

/** The enrichment attributes (keys vary by product; all optional). null when enable_enrichment is false. */
export const ProductAttributes = z
  .looseObject({
    additional_attributes: z.array(z.string()).optional(),
    age_group: nullableString.optional(),
    gender: nullableString.optional(),
    summary: nullableString.optional(),
    features: z.array(z.string()).nullable().optional(),
    care_instructions: nullableString.optional(),
    color: z.object({ iscc_family: nullableString, merchant_label: nullableString }).nullable().optional(),
    material: z.object({ primary: nullableString, merchant_label: nullableString }).nullable().optional(),
    pattern: nullableString.optional(),
    closure_type: nullableString.optional(),
    season: z.array(z.string()).nullable().optional(),
    style: z.array(z.string()).nullable().optional(),
    mood: z.array(z.string()).nullable().optional(),
    occasion: z.array(z.string()).nullable().optional(),
    additional_product_information: nullableString.optional(),
  })
  .meta({
    id: 'ProductAttributes',
    description:
      'Enrichment attributes; keys vary by product. color.iscc_family is an ISCC-NBS level-1 name (lower case).',
  });

const ProvenanceSource = z
  .enum(['platform-json', 'json-ld', 'microdata', 'open-graph', 'page-text', 'browser', 'url'])
  .meta({
    id: 'ProvenanceSource',
    description:
      "Where a value was read: the platform's product JSON, JSON-LD, microdata, OpenGraph meta, the page's visible text (browser when a browser rendered the page), or the page's address",
  });

export const FieldProvenance = z
  .object({
    source: ProvenanceSource.describe("The source of the record's value"),
    also: z.array(ProvenanceSource).describe('Other sources stating the same value'),
    rejected: z
      .array(
        z.object({
          value: z
            .union([z.string(), num, z.boolean()])
            .describe('A value another source stated (texts cut at 300 characters)'),
          sources: z.array(ProvenanceSource),
        }),
      )
      .describe('Values other sources stated for this field that lost, with their sources; empty when all agree'),
  })
  .meta({ id: 'FieldProvenance' });

export const Provenance = z.record(z.string(), FieldProvenance).meta({
  id: 'Provenance',
  description:
    "Only when the request set include_provenance. Keys: title, description, brand, vendor, price, compare_at_price, currency, availability, sku (a product without variants), images, variants, variants[i].price; a field without a value has no key. Kept with the request's result, never in the stored record other requests are served from (docs/provenance.md)",
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
    attributes: ProductAttributes.nullable().describe('null when enable_enrichment is false'),
    price: Price,
    images: z.array(ProductImage),
    options: z.array(ProductOption),
    variants: z.array(ProductVariant),
    store_canonical_url: nullableString,
    store_domain: nullableString,
    platform: nullableString.describe(
      'shopify, woocommerce, bigcommerce, magento, salesforce_commerce_cloud, wix, squarespace, prestashop; null if unidentified',
    ),
    platform_id: nullableString,
    product_type: nullableString.describe('null when enable_enrichment is false'),
    taxonomy_product_category_id: nullableString.describe(
      'Shopify Standard Product Taxonomy gid; null when enable_enrichment is false',
    ),
    taxonomy_product_category_path: nullableString.describe('null when enable_enrichment is false'),
    tags: z.array(z.string()),
    video_url: nullableString,
    review_count: z.number().int().nullable(),
    average_rating: num.nullable(),
    rating_scale: num.nullable(),
    faqs: z.array(z.unknown()).nullable().describe('{question, answer}; null when enable_reviews is false'),
    reviews: z
      .array(z.unknown())
      .nullable()
      .describe('{author, rating, title, body, date}; null when enable_reviews is false'),
    updated_at: nullableString,
    similar_products: z.array(z.unknown()).nullable().describe('{url}; null when enable_similar_products is false'),
    affiliate_link: nullableString,
    fetched_with: z
      .enum(['http', 'browser'])
      .optional()
      .describe(
        'How the page was read: its HTML (http) or rendered in a browser (browser); absent on records stored before rendering existed',
      ),
    provenance: Provenance.optional().describe(
      'Only when the request set include_provenance: where each value came from',
    ),
  })
  .meta({
    id: 'FullProductRecord',
    description:
      'Every field is always present; a field governed by a flag that is off is null (enable_enrichment: attributes, product_type, taxonomy fields; enable_reviews: reviews, faqs; enable_image_tags: images[].attributes; enable_similar_products: similar_products).',
  });

export const OUTCOMES = [
  'success',
  'non_product_url',
  'malformed_url',
  'automated_access_not_permitted',
  'other',
] as const;

const outcomeFields = {
  outcome: z
    .enum(OUTCOMES)
    .describe('failed (retriable): automated_access_not_permitted, other; invalid: non_product_url, malformed_url'),
  retry: z
    .boolean()
    .describe(
      'true: probably transient, the URL may be resubmitted in a new request; false: the URL must be corrected',
    ),
  message: z.string().describe('Human-readable; empty string on success'),
  final_url: z.string().optional().describe('Only when the landing URL after redirects differs from the input'),
};

export const PerUrlResult = z
  .object({
    url: z.string().describe('The input URL, as sent'),
    product: FullProductRecord.nullable(),
    success: z.boolean(),
    ...outcomeFields,
  })
  .meta({ id: 'PerUrlResult' });

// ---- the rich legacy record of /api/products and /api/product ----
export const LegacyProductImage = z
  .object({
    id: z.string(),
    url: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    altText: nullableString,
    position: z.number().int(),
    variantIDs: z.array(z.string()),
    attributes: openObject.nullable().describe('Image tags; null unless enable_image_tags'),
  })
  .meta({ id: 'LegacyProductImage' });

export const LegacyProductVariant = z
  .object({
    id: z.string(),
    SKU: nullableString,
    image: LegacyProductImage.nullable(),
    price: nullableString.describe('Decimal string in the currency of price_currency, e.g. "19.99"'),
    compareAtPrice: nullableString.describe('Decimal string; null without a higher regular price'),
    title: nullableString,
    option1: nullableString,
    option2: nullableString,
    option3: nullableString,
    isAvailable: z.boolean().nullable(),
    url: nullableString,
  })
  .meta({ id: 'LegacyProductVariant' });

export const LegacyRichProductRecord = z
  .object({
    id: z.string(),
    title: nullableString,
    description: nullableString,
    description_html: nullableString,
    vendor: nullableString,
    brand: nullableString,
    url: z.string(),
    handle: nullableString,
    price_amount: num.nullable(),
    price_currency: nullableString,
    min_price: num.nullable().describe('Lowest variant price (the product price without variants)'),
    max_price: num.nullable().describe('Highest variant price (the product price without variants)'),
    is_available: z.boolean().nullable(),
    store_domain: nullableString,
    store_canonical_url: nullableString,
    tags: z.array(z.string()),
    images: z.array(LegacyProductImage),
    variants: z.array(LegacyProductVariant),
    options: z.array(ProductOption),
    attributes: ProductAttributes.nullable().describe('null when enable_enrichment is false'),
    platform: nullableString,
    platform_id: nullableString,
    video_url: nullableString,
    product_type: nullableString,
    taxonomy_product_category_id: nullableString,
    taxonomy_product_category_path: nullableString,
    review_count: z.number().int().nullable(),
    average_rating: num.nullable(),
    rating_scale: num.nullable(),
    reviews: z.array(z.unknown()).nullable().describe('null when enable_reviews is false'),
    faqs: z.array(z.unknown()).nullable().describe('null when enable_reviews is false'),
    updated_at: nullableString,
    provenance: Provenance.optional().describe(
      'Only when the request set include_provenance: where each value came from (price names price_amount, currency price_currency, variants[i].price the variant price)',
    ),
  })
  .meta({
    id: 'LegacyRichProductRecord',
    description:
      'The per-URL record of /api/products and /api/product: legacy names (price_amount, altText, variantIDs, SKU, string prices) over the full record. Every field is always present; flag-governed fields are null when their flag is off.',
  });

export const LegacyPerUrlResult = z
  .object({
    url: z.string().describe('The input URL, as sent'),
    success: z.boolean(),
    product: LegacyRichProductRecord.nullable(),
    ...outcomeFields,
  })
  .meta({
    id: 'LegacyPerUrlResult',
    description: 'One element per input URL, in input order; outcome, retry and message say why a URL failed',
  });

const legacyAttributeKeys = [
  'color',
  'material',
  'category',
  'gender',
  'season',
  'occasion',
  'fit',
  'length',
  'sleeve_type',
] as const;

export const LegacyProductRecord = z
  .object({
    id: z.string(),
    title: nullableString,
    description: nullableString,
    description_html: nullableString,
    vendor: nullableString,
    brand: nullableString,
    url: z.string(),
    price_amount: num.nullable(),
    price_currency: nullableString,
    min_price: num.nullable().describe('Lowest variant price (the product price without variants)'),
    max_price: num.nullable().describe('Highest variant price (the product price without variants)'),
    is_available: z.boolean().nullable(),
    product_type: nullableString,
    store_domain: nullableString,
    store_canonical_url: nullableString,
    collection_handle: nullableString.describe('Handle of a collection the product was listed in; null when unknown'),
    handle: nullableString,
    tags: z.array(z.string()),
    images: z.object({
      primary: nullableString,
      gallery: z.array(z.string()).describe('Every image URL after the primary one'),
    }),
    variants: z.object({
      color: z.array(z.string()).describe('Distinct colour option values'),
      size: z.array(z.string()).describe('Distinct size option values'),
      price_range: z.object({ min: num.nullable(), max: num.nullable() }),
    }),
    options: z.record(z.string(), z.array(z.string())).describe('Option name -> its values'),
    attributes: z
      .object(
        Object.fromEntries(legacyAttributeKeys.map((key) => [key, nullableString])) as Record<
          (typeof legacyAttributeKeys)[number],
          typeof nullableString
        >,
      )
      .describe('Flat attribute strings (colour family, material, taxonomy category, gender, ...); null where unknown'),
    created_at: nullableString.describe('When the service first stored the product; null when unknown'),
    updated_at: nullableString.describe('When the service last stored the product'),
    published_at: nullableString.describe("The store's publication date; null when the store does not say"),
  })
  .meta({
    id: 'LegacyProductRecord',
    description: 'Legacy product record of /api/search, /api/regular-search and /api/feed',
  });

export const MiniProductV1 = z
  .object({
    url: z.string(),
    title: nullableString,
    price_amount: num.nullable(),
    price_currency: nullableString,
    description: nullableString,
    images: z.array(z.string()),
    attributes: z
      .record(z.string(), z.string())
      .nullable()
      .describe('Flat attribute strings; null when enable_enrichment is false'),
  })
  .meta({ id: 'MiniProductV1' });

export const MiniProductV2 = z
  .object({
    url: z.string(),
    product: z.object({
      title: nullableString,
      price: Price,
      description: nullableString,
      images: z.array(z.array(z.string())).describe('One element per product image: its URL(s)'),
      attributes: z.record(z.string(), z.string()).nullable().describe('null when enable_enrichment is false'),
      product_type: nullableString.describe('null when enable_enrichment is false'),
      taxonomy_product_category_id: nullableString.describe('null when enable_enrichment is false'),
      taxonomy_product_category_path: nullableString.describe('null when enable_enrichment is false'),
    }),
  })
  .meta({ id: 'MiniProductV2' });

/** Outcome counts keyed by reason; a key is present only when its count is above 0. */
export const FailedByReason = z
  .partialRecord(z.enum(['automated_access_not_permitted', 'other']), z.number().int())
  .describe('Retriable failures by outcome; keys present only when count > 0');
export const InvalidByReason = z
  .partialRecord(z.enum(['non_product_url', 'malformed_url']), z.number().int())
  .describe('Invalid (not retriable) URLs by outcome; keys present only when count > 0');

export const ExtractResultCounts = z
  .object({
    products_requested: z.number().int().describe('Input entries, duplicates and malformed ones included'),
    products_successful: z.number().int(),
    products_failed: z.number().int(),
    products_failed_by_reason: FailedByReason,
    products_invalid: z.number().int(),
    products_invalid_by_reason: InvalidByReason,
    products_pending: z.number().int(),
  })
  .describe('successful + failed + invalid + pending = requested, at every read');

export const ExecutionState = z
  .enum(['pending', 'running', 'completed', 'failed'])
  .describe(
    'Exact state: pending (created), running, completed (results available), failed (failed, timed out or cancelled)',
  );
