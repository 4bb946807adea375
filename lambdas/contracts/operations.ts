// Request and response schemas of every operation, keyed by operationId (lambdas/topology/routes).
// The pipeline validates requests with these and the OpenAPI document is generated from them.
import * as z from 'zod';
import {
  countryCode,
  EmptyMeta,
  executionIdPath,
  executionStatusFilter,
  flag,
  intField,
  LegacyMeta,
  nonEmptyString,
  urlString,
  MAX_URL_LENGTH,
  pageParam,
  pageSizeParam,
  periodParam,
  Timestamp,
  urlList,
  V1Meta,
  v2Envelope,
  V2Pagination,
  MAX_PAGE,
} from './common';
import { AFFILIATE_REASON_TEXT, AFFILIATE_REASONS } from '../domain/affiliate/reasons';
import { WebhookDelivery, webhookField, WebhookSecretResponse } from './webhooks';
import {
  AffiliateLinkResult,
  LegacyPerUrlResult,
  LegacyRichProductRecord,
  Collection,
  ExecutionState,
  ExecutionSummary,
  ExtractResultCounts,
  FailedByReason,
  FullProductRecord,
  InvalidByReason,
  LegacyProductRecord,
  Listing,
  MiniProductV1,
  MiniProductV2,
  OUTCOMES,
  PerUrlResult,
  UsageRecord,
  VendorSummary,
} from './entities';

export interface OperationContract {
  summary: string;
  description?: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  params?: z.ZodObject;
  success: { status: 200 | 202; schema: z.ZodType; description?: string };
  /** Codes (beyond auth, validation, rate limit and internal errors) this operation can answer. */
  errors?: Array<404 | 409 | 504>;
}

const query = <S extends z.ZodRawShape>(shape: S) => z.object(shape);
const body = <S extends z.ZodRawShape>(shape: S) => z.object(shape, { error: 'request body must be a JSON object' });

const AFFILIATE_DESCRIPTION =
  'Body `urls`: 1 to 100 strings (an empty list or more than 100 is 400). Each URL of a merchant in the network (matched by registrable domain, alternates and `www.`) becomes `network_link`; every other URL is `success` false with `network_link` null and a `reason`: ' +
  AFFILIATE_REASONS.map((reason) => `\`${reason}\` (${AFFILIATE_REASON_TEXT[reason]})`).join(', ') +
  ". `device_id` is the organization's, the same in every call.";

const price = (name: string) =>
  z.number({ error: `filters.${name} must be a number` }).min(0, { error: `filters.${name} must not be negative` });

const searchFilters = z
  .object(
    {
      min_price: price('min_price').optional().describe('Lowest price (inclusive), in the product currency'),
      max_price: price('max_price').optional().describe('Highest price (inclusive), in the product currency'),
      is_available: z.boolean({ error: 'filters.is_available must be a boolean' }).optional(),
      brand: z
        .array(z.string({ error: 'filters.brand must be an array of strings' }), {
          error: 'filters.brand must be an array of strings',
        })
        .max(50, { error: 'filters.brand must hold at most 50 brands' })
        .optional()
        .describe('Any of these brands (case-insensitive)'),
      attributes: z
        .record(
          z.string(),
          z.union([z.string(), z.array(z.string())], {
            error: 'filters.attributes must map keys to a string or an array of strings',
          }),
          { error: 'filters.attributes must map keys to a string or an array of strings' },
        )
        .optional()
        .describe(
          'Attribute key (color, gender, age_group, material, pattern, season, style, occasion, category, ...) -> a value or any of several values (case-insensitive); color takes colour words or ISCC-NBS families (navy matches blue)',
        ),
    },
    { error: 'filters must be an object' },
  )
  .refine((f) => f.min_price === undefined || f.max_price === undefined || f.min_price <= f.max_price, {
    error: 'filters.min_price must not be greater than filters.max_price',
    path: ['min_price'],
  })
  .optional()
  .describe('Exact filters: every returned product satisfies every filter');

/** A natural-language query: non-empty, bounded (a query is a sentence, not a document). */
const searchQuery = () => nonEmptyString('query').max(500, { error: 'query must be at most 500 characters' });

/** Any JSON object; bounded so a profile always fits beside the execution it belongs to. */
export const MAX_PROFILE_BYTES = 32 * 1024;
const customerProfile = () =>
  z
    .record(z.string(), z.unknown(), { error: 'customer_profile must be an object' })
    .refine((profile) => Buffer.byteLength(JSON.stringify(profile)) <= MAX_PROFILE_BYTES, {
      error: `customer_profile must be at most ${MAX_PROFILE_BYTES / 1024} KB of JSON`,
    })
    .optional()
    .describe(
      'Any JSON object. Read defensively: preferences.in_stock_only and style.avoid are hard rules (never an out-of-stock or avoided product); style.color, style.fit, style.silhouette, style.aesthetic, usage_context.activities and purchase_behavior.value boost matching products. Unknown keys are ignored.',
    );

const legacySearchBody = body({
  query: searchQuery(),
  filters: searchFilters,
  page: intField('page', 1, MAX_PAGE).default(1),
  limit: intField('limit', 1, 100).default(20).describe('Products per page, 1 to 100 (default 20)'),
});
const legacySearchResponse = z.object({ products: z.array(LegacyProductRecord), meta: LegacyMeta });

const v1ExtractStatusResponse = z.object({
  status: ExecutionState,
  progress: z
    .object({
      products_processed: z.number().int().describe('URLs extracted successfully so far'),
      urls_completed: z.number().int().describe('URLs finished so far, whatever their outcome'),
      total_urls: z.number().int(),
      percent_complete: z.number().describe('Integer percent of URLs finished'),
    })
    .nullable()
    .describe('null while pending (not started yet)'),
  error: z.string().nullable().describe('null unless failed; "Execution was cancelled" after a cancel'),
  credits_used: z.number().int(),
  results: z
    .object({
      products: z.array(PerUrlResult).describe('One page of per-URL results, in input order'),
      meta: z
        .object({
          total_requested: z.number().int(),
          total_successful: z.number().int(),
          total_failed: z.number().int(),
          total_failed_by_reason: FailedByReason,
          total_invalid: z.number().int(),
          total_invalid_by_reason: InvalidByReason,
          total_pending: z.number().int(),
        })
        .describe('total_successful + total_failed + total_invalid + total_pending = total_requested'),
    })
    .optional()
    .describe('When completed; also when failed (cancelled, timed out), holding the URLs that finished'),
  pagination: z
    .object({
      page: z.number().int(),
      limit: z.number().int(),
      total_items: z.number().int(),
      total_pages: z.number().int(),
      has_next: z.boolean(),
      has_prev: z.boolean(),
    })
    .optional()
    .describe('Present with results'),
});

/** v1 URL lists: each entry a non-empty string (the index is named when one is not). */
const v1UrlList = (max: number) =>
  urlList('urls', max).superRefine((urls, ctx) => {
    const index = urls.findIndex((url) => !url.trim());
    if (index >= 0)
      ctx.addIssue({ code: 'custom', path: [index], message: `urls[${index}] must be a non-empty string` });
  });

/**
 * v2 URL lists: any entries, so that every bad one (not a string, empty, malformed) is reported
 * together in `invalid_urls` by the handler; documented as strings.
 */
const v2UrlList = z
  .array(z.unknown(), { error: 'urls must be an array of strings' })
  .min(1, { error: 'urls must contain at least 1 URL' })
  .max(1000, { error: 'urls must contain at most 1000 URLs' })
  .meta({ items: { type: 'string', maxLength: MAX_URL_LENGTH } } as Record<string, unknown>)
  .describe(
    `Product URLs (an array even for one URL), at most 1000, each at most ${MAX_URL_LENGTH} characters (longer ones are reported in invalid_urls); normalised server-side (scheme added, fragment and tracking parameters removed); duplicates are fetched once`,
  );

const FRESHNESS = `A stored record of the same URL and country_code extracted within the last 24 hours with every part the request turns on is served instead of a new fetch (meta/product result shows it) unless \`force_extraction\` is true.`;

const legacyFlags = {
  enable_enrichment: flag('enable_enrichment', true).describe(
    'Default true: attributes, product_type and taxonomy fields',
  ),
  country_code: countryCode().describe('Two-letter code from the supported list; default us'),
};
const v1StartResponse = z.object({ success: z.literal(true), execution_id: z.string() });
const v1ListQuery = query({ status: executionStatusFilter(), limit: pageSizeParam(20, 'limit') });
const v1ListResponse = z.object({ executions: z.array(ExecutionSummary) });
const v1CancelResponse = z.object({ success: z.literal(true), execution_id: z.string(), status: z.literal('failed') });
const v1ExtractStatusQuery = query({ page: pageParam(), limit: pageSizeParam(50, 'limit') });

const v2StartResponse = (meta: z.ZodType) => z.object({ execution_id: z.string(), status: z.literal('pending'), meta });
const v2ListQuery = query({ status: executionStatusFilter(), page: pageParam(), page_size: pageSizeParam(20) });
const v2CancelResponse = z.object({ execution_id: z.string(), status: z.literal('failed'), error: z.string() });
const timing = {
  start_date: Timestamp.nullable(),
  stop_date: Timestamp.nullable(),
  duration_ms: z.number().int().nullable(),
};

const crawlBodyV1 = body({
  domain: urlString('domain').optional(),
  url: urlString('url').optional(),
  max_listings: intField('max_listings', 1, 1_000_000).optional(),
  country_code: countryCode(),
  webhook: webhookField(),
}).refine((b) => b.domain !== undefined || b.url !== undefined, {
  error: 'domain is required (a hostname or any URL of the store)',
  path: ['domain'],
});

export const CONTRACTS = {
  // ---- public ----
  health: {
    summary: 'Liveness: 200 once the service is ready',
    success: { status: 200, schema: z.object({ status: z.literal('ok') }) },
  },
  openapi: {
    summary: 'This OpenAPI 3.1 document',
    success: { status: 200, schema: z.looseObject({ openapi: z.string() }) },
  },

  // ---- legacy ----
  legacySearch: {
    summary: 'Filtered natural-language product search',
    description:
      'The query is understood (price phrases, colours, gender, negations, brands, categories, synonyms, typos): hard constraints filter, soft ones boost. `filters` are exact. Products are ranked best first; meta pages them.',
    body: legacySearchBody,
    success: { status: 200, schema: legacySearchResponse },
  },
  legacyRegularSearch: {
    summary: 'Search by keywords and filters only (no query understanding, no re-ranking)',
    description: 'The body and response of /api/search; the query is matched as keywords only.',
    body: legacySearchBody,
    success: { status: 200, schema: legacySearchResponse },
  },
  legacyProducts: {
    summary: 'Synchronous batch extraction of up to 50 product URLs',
    description: `Every input URL gets one element, in input order; a failing URL never affects the others and says why in outcome, retry and message (malformed and empty entries are outcome malformed_url). URLs are fetched at most 8 at a time; duplicates (same normalised URL) are fetched once. ${FRESHNESS} Credits: 1 per successful product (+1 with enrichment); failed and invalid URLs cost nothing. \`urls_processed\` lists the distinct normalised URLs that were looked up.`,
    body: body({
      urls: urlList('urls', 50).describe('Product URLs, at most 50'),
      ...legacyFlags,
      force_extraction: flag('force_extraction', false).describe(
        'true: always fetch anew, never serve a stored record',
      ),
    }),
    success: {
      status: 200,
      schema: z.object({
        products: z.array(LegacyPerUrlResult),
        meta: z.object({
          total_requested: z.number().int(),
          total_successful: z.number().int(),
          total_failed: z.number().int().describe('Every unsuccessful URL (failed and invalid)'),
          urls_processed: z.array(z.string()),
          credits_used: z.number().int(),
        }),
      }),
    },
  },
  legacyProduct: {
    summary: 'Single product by URL (synchronous)',
    description: `${FRESHNESS} A URL that cannot be a product URL at all is 400 INVALID_PARAMETER; a page that cannot be extracted is 200 with \`product\` null, \`meta.found\` false and the reason in meta.outcome, meta.retry and meta.message. Credits: 1 for a product, +1 each for enrichment, reviews and image tags when on.`,
    body: body({
      url: urlString('url').describe('Product URL'),
      enable_enrichment: flag('enable_enrichment', true),
      enable_reviews: flag('enable_reviews', false).describe('Default false: reviews, faqs'),
      enable_image_tags: flag('enable_image_tags', false).describe('Default false: images[].attributes'),
      country_code: countryCode(),
      force_extraction: flag('force_extraction', false).describe(
        'true: always fetch anew, never serve a stored record',
      ),
    }),
    success: {
      status: 200,
      schema: z.object({
        product: LegacyRichProductRecord.nullable(),
        meta: z.object({
          found: z.boolean(),
          url: z.string().describe('The normalised URL that was looked up'),
          outcome: z.enum(OUTCOMES),
          retry: z.boolean(),
          message: z.string(),
          final_url: z.string().optional(),
          from_store: z.boolean().describe('true when a stored record (within the freshness window) was served'),
          credits_used: z.number().int(),
        }),
      }),
    },
  },
  legacyFeed: {
    summary: 'Product feed, most recently updated first',
    query: query({
      vendor: z.string().optional(),
      updated_since: z.iso.datetime({ offset: true, error: 'updated_since must be an ISO 8601 timestamp' }).optional(),
      page: pageParam(),
      limit: pageSizeParam(50, 'limit'),
    }),
    success: { status: 200, schema: z.object({ products: z.array(LegacyProductRecord), meta: LegacyMeta }) },
  },
  legacyVendors: {
    summary: 'Every vendor known to the service, in one response',
    description: 'Errors carry `code`: TIMEOUT, DB_TIMEOUT, DB_ERROR or INTERNAL_ERROR.',
    success: { status: 200, schema: z.object({ vendors: z.array(VendorSummary) }) },
    errors: [504],
  },
  legacyUsage: {
    summary: "The caller's API usage per operation over a period",
    query: query({ period: periodParam() }),
    success: { status: 200, schema: z.object({ usage: z.array(UsageRecord), period: z.string() }) },
  },

  // ---- v1 ----
  v1AgenticSearchMini: {
    summary: 'Fast AI-enriched search, up to 10 products',
    description:
      'Credits: 1, +1 with enrichment (meta.credits_used). With enable_enrichment false, attributes are null.',
    body: body({ query: searchQuery(), enable_enrichment: flag('enable_enrichment', true) }),
    success: {
      status: 200,
      schema: z.object({
        products: z.array(MiniProductV1),
        meta: z.object({
          totalItems: z.number().int().describe('Products returned'),
          urls: z.array(z.string()),
          credits_used: z.number().int(),
        }),
      }),
    },
  },
  v1AgenticSearch: {
    summary: 'Profile-personalised search, up to 8 products (synchronous)',
    description:
      'Understands the query, retrieves candidates, applies customer_profile, and verifies the top candidates against the live product page (a stored record younger than the freshness window is reused); a candidate whose page fails or lacks a title, price or image is dropped, so fewer than 8 may come back. Credits: 5 (meta.credits_used).',
    body: body({ query: searchQuery(), customer_profile: customerProfile() }),
    success: {
      status: 200,
      schema: z.object({
        products: z.array(LegacyRichProductRecord),
        meta: z.object({
          urls: z.array(z.string()),
          totalItems: z.number().int().describe('Products returned'),
          credits_used: z.number().int(),
        }),
      }),
    },
  },
  v1Listings: {
    summary: "A vendor's product listings",
    description:
      'Listings as the latest crawl left them, in URL order. `collection_urls` restricts them to those collections (scheme, www., trailing slash, query and fragment ignored). A vendor the service has never seen is 404; a known vendor without listings gives an empty page.',
    body: body({
      vendor: urlString('vendor'),
      page: intField('page', 1, MAX_PAGE).default(1),
      page_size: intField('page_size', 1, 100).default(10),
      collection_urls: urlList('collection_urls', 100, 0).optional(),
    }),
    success: { status: 200, schema: z.object({ listings: z.array(Listing), meta: V1Meta }) },
    errors: [404],
  },
  v1Collections: {
    summary: "A vendor's collections, highest products_total first",
    description:
      "products_total is exactly the number of the collection's products listed for the vendor. A vendor the service has never seen is 404; a known vendor without collections gives an empty page.",
    body: body({
      vendor: urlString('vendor'),
      page: intField('page', 1, MAX_PAGE).default(1),
      page_size: intField('page_size', 1, 100).default(10),
    }),
    success: { status: 200, schema: z.object({ collections: z.array(Collection), meta: V1Meta }) },
    errors: [404],
  },
  v1ProductsStart: {
    summary: 'Start an asynchronous extraction of up to 1000 product URLs',
    description:
      'Returns `products-batch-{uuid}`; poll GET /v1/products/{execution_id}. URLs are normalised server-side; a malformed entry does not fail the request but becomes a result with outcome malformed_url; duplicates are fetched once and every index gets its own result. Credits: 1 per successful product, +1 each for enrichment, reviews and image tags when on.',
    body: body({
      urls: v1UrlList(1000).describe('Non-empty array of non-empty strings, at most 1000'),
      enable_enrichment: flag('enable_enrichment', true),
      country_code: countryCode(),
      enable_reviews: flag('enable_reviews', false),
      enable_image_tags: flag('enable_image_tags', false),
      webhook: webhookField(),
    }),
    success: { status: 200, schema: v1StartResponse },
  },
  v1ProductsList: {
    summary: "The caller's extraction executions, most recent first",
    description:
      "Every extraction of the caller's organization (v1 and v2). List items show `processing` for pending and running executions.",
    query: v1ListQuery,
    success: { status: 200, schema: v1ListResponse },
  },
  v1ProductsStatus: {
    summary: 'Status and, when completed, results of an extraction',
    description:
      'Results are paged by `page` and `limit` (default 50). An unknown id, or one of another organization, is 404.',
    params: executionIdPath(),
    query: v1ExtractStatusQuery,
    success: { status: 200, schema: v1ExtractStatusResponse },
    errors: [404],
  },
  v1ProductsCancel: {
    summary: 'Cancel an extraction',
    description:
      'The execution becomes failed with error "Execution was cancelled"; URLs already finished stay readable. A finished execution is 409 CONFLICT.',
    params: executionIdPath(),
    success: { status: 200, schema: v1CancelResponse },
    errors: [404, 409],
  },
  v1ExtractStart: {
    summary: 'Start a vendor-based extraction',
    description:
      'Extracts the listings of `domain` (max_products first). With `crawl_id` of a running crawl it waits for it (pending; cancelling it then is 409) and fails with "The crawl this extraction was waiting for failed or was canceled" if that crawl fails; a vendor without listings and no `crawl_id` starts a crawl itself and waits. An unknown crawl_id is 404.',
    body: body({
      domain: urlString('domain'),
      max_products: intField('max_products', 1, 1_000_000).optional(),
      enable_enrichment: flag('enable_enrichment', true),
      country_code: countryCode(),
      enable_reviews: flag('enable_reviews', true),
      enable_image_tags: flag('enable_image_tags', true),
      crawl_id: z
        .string({ error: 'crawl_id must be a string' })
        .max(200, { error: 'crawl_id must be at most 200 characters' })
        .optional(),
      webhook: webhookField(),
    }),
    success: { status: 200, schema: v1StartResponse },
    errors: [404],
  },
  v1ExtractList: {
    summary: "The caller's vendor-based extractions",
    query: v1ListQuery,
    success: { status: 200, schema: v1ListResponse },
  },
  v1ExtractStatus: {
    summary: 'Status of a vendor-based extraction',
    params: executionIdPath(),
    query: v1ExtractStatusQuery,
    success: { status: 200, schema: v1ExtractStatusResponse },
    errors: [404],
  },
  v1ExtractCancel: {
    summary: 'Cancel a vendor-based extraction',
    params: executionIdPath(),
    success: { status: 200, schema: v1CancelResponse },
    errors: [404, 409],
  },
  v1Affiliate: {
    summary: 'Convert up to 100 product URLs into affiliate tracking links',
    description: AFFILIATE_DESCRIPTION,
    body: body({ urls: urlList('urls', 100) }),
    success: {
      status: 200,
      schema: z.object({
        results: z.array(AffiliateLinkResult),
        total_processed: z.number().int(),
        successful: z.number().int(),
        failed: z.number().int(),
      }),
    },
  },
  v1CrawlStart: {
    summary: 'Start a crawl of a store',
    description:
      'Body `domain` (hostname or any URL of the store; `url` is an alias), optional `max_listings`, `country_code`.',
    body: crawlBodyV1,
    success: { status: 200, schema: v1StartResponse },
  },
  v1CrawlList: {
    summary: "The caller's crawls, most recent first",
    query: v1ListQuery,
    success: { status: 200, schema: v1ListResponse },
  },
  v1CrawlStatus: {
    summary: 'Status of a crawl',
    params: executionIdPath(),
    success: { status: 200, schema: z.object({ status: ExecutionState, total_listings_found: z.number().int() }) },
    errors: [404],
  },
  v1CrawlCancel: {
    summary: 'Stop a crawl',
    params: executionIdPath(),
    success: { status: 200, schema: v1CancelResponse },
    errors: [404, 409],
  },
  v1Vendors: {
    summary: 'Every vendor, without paging',
    success: { status: 200, schema: z.object({ data: z.array(VendorSummary), meta: EmptyMeta }) },
    errors: [504],
  },

  // ---- v2 ----
  v2AgenticSearchMini: {
    summary: 'Fast AI-enriched search, up to 10 products',
    description:
      'The best 10 matches, paged by page and page_size (page_size default 10). With enable_enrichment false, attributes, product_type and the taxonomy fields are null. Credits: 1, +1 with enrichment (meta.credits_used).',
    body: body({
      query: searchQuery(),
      enable_enrichment: flag('enable_enrichment', true),
      page_size: intField('page_size', 1, 10).default(10),
      page: intField('page', 1, 10).default(1).describe('1-based page within the best 10 matches'),
    }),
    success: { status: 200, schema: v2Envelope(MiniProductV2, z.object({ credits_used: z.number().int() })) },
  },
  v2AgenticSearchStart: {
    summary: 'Start an asynchronous profile-personalised search',
    description:
      'Starts an execution (agentic-{uuid}) whose steps are Understand query, Retrieve candidates, Verify candidates (live product pages, in parallel) and Rank; poll GET /v2/agentic-search/{execution_id}. Credits: 5, charged at start.',
    body: body({
      query: searchQuery(),
      customer_profile: customerProfile(),
      page_size: intField('page_size', 1, 8).default(8).describe('Products wanted, 1 to 8 (default 8)'),
      enable_enrichment: flag('enable_enrichment', false).describe(
        'Default false: attributes, product_type and taxonomy fields are null',
      ),
      webhook: webhookField(),
    }),
    success: { status: 202, schema: v2StartResponse(z.object({ credits_used: z.number().int() })) },
  },
  v2AgenticSearchStatus: {
    summary: 'Status and results of an agentic search',
    description:
      "data and pagination once completed: up to page_size verified products, best first. Another organization's execution is 404.",
    params: executionIdPath(),
    success: {
      status: 200,
      schema: z.object({
        execution_id: z.string(),
        status: ExecutionState,
        error: z.string().nullable(),
        data: z
          .array(z.object({ url: z.string(), product: FullProductRecord }))
          .optional()
          .describe('When completed'),
        pagination: V2Pagination.optional().describe('When completed'),
        meta: z.object({
          query: z.string(),
          progress: z.object({
            step: z.enum(['pending', 'understanding', 'retrieving', 'verifying', 'ranking', 'done']),
            candidates_total: z.number().int(),
            candidates_verified: z.number().int().describe('Candidates whose live page gave a complete product'),
            candidates_dropped: z
              .number()
              .int()
              .describe('Candidates whose page failed or lacked a title, price or image'),
            percent_complete: z.number().int(),
          }),
          ...timing,
          credits_used: z.number().int(),
        }),
      }),
    },
    errors: [404],
  },
  v2Listings: {
    summary: "A vendor's product listings",
    description:
      'Listings as the latest crawl left them, in URL order. `collection_url` restricts them to one collection (scheme, www., trailing slash, query and fragment ignored). A vendor the service has never seen is 404; a known vendor without listings gives an empty page.',
    query: query({
      vendor: urlString('vendor'),
      page: pageParam(),
      page_size: pageSizeParam(20),
      collection_url: z
        .string()
        .max(MAX_URL_LENGTH, { error: `collection_url must be at most ${MAX_URL_LENGTH} characters` })
        .optional(),
    }),
    success: { status: 200, schema: v2Envelope(Listing, EmptyMeta) },
    errors: [404],
  },
  v2Collections: {
    summary: "A vendor's collections, highest products_total first",
    description:
      "products_total is exactly the number of the collection's products listed for the vendor. A vendor the service has never seen is 404; a known vendor without collections gives an empty page.",
    query: query({ vendor: urlString('vendor'), page: pageParam(), page_size: pageSizeParam(20) }),
    success: { status: 200, schema: v2Envelope(Collection, EmptyMeta) },
    errors: [404],
  },
  v2Vendors: {
    summary: 'Vendors known to the service, paged, ordered by vendor key',
    query: query({ page: pageParam(), page_size: pageSizeParam(20) }),
    success: { status: 200, schema: v2Envelope(VendorSummary, EmptyMeta) },
    errors: [504],
  },
  v2Usage: {
    summary: "The caller's API usage per operation, highest total_calls first",
    query: query({ period: periodParam(), page: pageParam(), page_size: pageSizeParam(20) }),
    success: { status: 200, schema: v2Envelope(UsageRecord, z.object({ period: z.string() })) },
  },
  v2Affiliate: {
    summary: 'Convert up to 100 product URLs into affiliate tracking links',
    description: `${AFFILIATE_DESCRIPTION} The results are one page: \`pagination\` covers them all.`,
    body: body({ urls: urlList('urls', 100) }),
    success: {
      status: 200,
      schema: v2Envelope(
        AffiliateLinkResult,
        z.object({ total_processed: z.number().int(), successful: z.number().int(), failed: z.number().int() }),
      ),
    },
  },
  v2CrawlStart: {
    summary: 'Start a crawl of a store',
    description:
      "Discovers the store's collections and listings: Shopify public JSON, the WooCommerce Store API, sitemaps (gzip children included), then HTML category pages, best first; a fast path refused (401/403/404, or disallowed by robots.txt) falls back to the next. robots.txt, per-host politeness and Retry-After are obeyed. `max_listings` keeps exactly that many. A complete re-crawl removes listings the store no longer lists. Credits: 1 at start, +1 per 100 listings found. Poll GET /v2/crawl/{execution_id}.",
    body: body({
      vendor: urlString('vendor').describe('Hostname or any URL of the store'),
      max_listings: intField('max_listings', 1, 1_000_000).optional(),
      country_code: countryCode(),
      webhook: webhookField(),
    }),
    success: { status: 202, schema: v2StartResponse(z.object({ credits_used: z.number().int() })) },
  },
  v2CrawlList: {
    summary: "The caller's crawls, most recent first",
    query: v2ListQuery,
    success: { status: 200, schema: v2Envelope(ExecutionSummary, EmptyMeta) },
  },
  v2CrawlStatus: {
    summary: 'Status of a crawl (own organization only)',
    description:
      'The four steps by name in order (completed, running, pending, failed); meta.progress while pending or running, null when finished; meta.result holds the totals (found so far while running). A cancelled crawl is failed with "Execution was cancelled" and what it found stays listed.',
    params: executionIdPath(),
    success: {
      status: 200,
      schema: z.object({
        execution_id: z.string(),
        status: ExecutionState,
        error: z.string().nullable(),
        meta: z.object({
          vendor: z.string(),
          ...timing,
          progress: z.object({ collections_found: z.number().int(), listings_found: z.number().int() }).nullable(),
          steps: z.array(z.object({ name: z.string(), status: z.string() })),
          result: z.object({ collections_total: z.number().int(), listings_total: z.number().int() }),
        }),
      }),
    },
    errors: [404],
  },
  v2CrawlCancel: {
    summary: 'Stop a crawl',
    params: executionIdPath(),
    success: { status: 200, schema: v2CancelResponse },
    errors: [404, 409],
  },
  v2ExtractStart: {
    summary: 'Start an extraction from URLs or from a vendor',
    description:
      'Exactly one of `urls` and `vendor`; both or neither is 400 INVALID_PARAMETER. URL mode: any entry that is not a string, empty or malformed fails the whole request with 400 INVALID_PARAMETER and `invalid_urls` [{index, url, problem}] listing every bad entry; duplicates are accepted and fetched once. Vendor mode extracts the vendor\'s listings (max_products first): with `crawl_id` of a crawl still running it is `pending` with meta.waiting_for and starts when that crawl completes (it fails with "The crawl this extraction was waiting for failed or was canceled" when the crawl fails or is cancelled); a vendor without listings and no `crawl_id` starts a crawl itself and waits for it. meta.listings_count and meta.products_to_process say what it will extract. Flags default to false. `meta.credits_used` is 0 at start: credits are 1 per successful product, +1 each for enrichment, reviews, image tags and similar products when on.',
    body: body({
      urls: v2UrlList.optional(),
      vendor: urlString('vendor').optional(),
      max_products: intField('max_products', 1, 1_000_000).optional(),
      crawl_id: z
        .string({ error: 'crawl_id must be a string' })
        .max(200, { error: 'crawl_id must be at most 200 characters' })
        .optional(),
      enable_enrichment: flag('enable_enrichment', false),
      enable_reviews: flag('enable_reviews', false),
      enable_image_tags: flag('enable_image_tags', false),
      enable_similar_products: flag('enable_similar_products', false),
      country_code: countryCode(),
      webhook: webhookField(),
    }).refine((b) => (b.urls === undefined) !== (b.vendor === undefined), {
      error: 'exactly one of urls and vendor is required',
    }),
    success: {
      status: 202,
      schema: v2StartResponse(
        z.object({
          credits_used: z.number().int(),
          url_count: z.number().int().optional().describe('URL mode: input entries, duplicates included'),
          listings_count: z.number().int().optional(),
          products_to_process: z.number().int().optional(),
        }),
      ),
    },
    errors: [404],
  },
  v2ExtractList: {
    summary: "The caller's extractions, most recent first",
    description:
      "Every extraction of the caller's organization (v1 and v2). List items show `processing` for pending and running executions.",
    query: v2ListQuery,
    success: { status: 200, schema: v2Envelope(ExecutionSummary, EmptyMeta) },
  },
  v2ExtractStatus: {
    summary: 'Status and, when completed, per-URL results of an extraction',
    description:
      '`data` (one page of per-URL results in input order, each with the full product record) and `pagination` appear when completed, and for a failed (cancelled, timed-out) execution they hold the URLs that finished. meta.result: successful + failed + invalid + pending = requested at every read. An unknown id, or one of another organization, is 404.',
    params: executionIdPath(),
    query: query({ page: pageParam(), page_size: pageSizeParam(50) }),
    success: {
      status: 200,
      schema: z.object({
        execution_id: z.string(),
        status: ExecutionState,
        error: z.string().nullable().describe('null unless failed; "Execution was cancelled" after a cancel'),
        data: z.array(PerUrlResult).optional(),
        pagination: v2Envelope(z.unknown(), EmptyMeta).shape.pagination.optional(),
        meta: z.object({
          progress: z.object({
            products_processed: z.number().int().describe('URLs finished, whatever their outcome'),
            products_total: z.number().int(),
            percent_complete: z.number().describe('Integer percent of URLs finished'),
          }),
          ...timing,
          result: ExtractResultCounts,
          credits_used: z.number().int(),
          waiting_for: z.string().optional().describe('Vendor mode: the crawl this extraction waits for'),
        }),
      }),
    },
    errors: [404],
  },
  v2ExtractCancel: {
    summary: 'Cancel an extraction',
    description:
      'The execution becomes failed with error "Execution was cancelled"; URLs already finished stay readable. A finished execution, or one waiting on a crawl, is 409 CONFLICT.',
    params: executionIdPath(),
    success: { status: 200, schema: v2CancelResponse },
    errors: [404, 409],
  },
  v2WebhookSecret: {
    summary: "The organization's webhook signing secret",
    description:
      'Created on first use (this call, or the first start with a `webhook`). Receivers check `X-PDS-Signature: v1=<hex>` = HMAC-SHA256 of `{X-PDS-Timestamp}.{raw body}` under it, and refuse old timestamps. Needs the `usage` scope (account-level operations).',
    success: { status: 200, schema: WebhookSecretResponse },
  },
  v2WebhookSecretRotate: {
    summary: "Rotate the organization's webhook signing secret",
    description:
      'A new secret replaces the old one at once: every attempt signed from now on (redeliveries included) uses it. Needs the `usage` scope.',
    success: { status: 200, schema: WebhookSecretResponse },
  },
  v2WebhookDeliveries: {
    summary: "An execution's webhook delivery log",
    description:
      "One entry per event delivered to the execution's webhook, oldest first, with every attempt (time, receiver status, error). Any execution of the caller's organization (extraction, crawl, agentic search, v1 or v2); another organization's or an unknown id is 404. Needs the `usage` scope.",
    query: query({
      execution_id: z
        .string({ error: 'execution_id is required' })
        .min(1, { error: 'execution_id is required' })
        .max(200, { error: 'execution_id must be at most 200 characters' }),
    }),
    success: {
      status: 200,
      schema: z.object({ execution_id: z.string(), data: z.array(WebhookDelivery) }),
    },
    errors: [404],
  },
} satisfies Record<string, OperationContract>;

export type OperationId = keyof typeof CONTRACTS;
type Contracts = typeof CONTRACTS;
type Out<T> = T extends z.ZodType ? z.output<T> : Record<string, never>;

/** The validated request an operation's implementation receives. */
export interface RequestOf<Op extends OperationId> {
  body: Contracts[Op] extends { body: infer B } ? Out<B> : Record<string, never>;
  query: Contracts[Op] extends { query: infer Q } ? Out<Q> : Record<string, never>;
  params: Contracts[Op] extends { params: infer P } ? Out<P> : Record<string, never>;
}

/** The success body an operation returns (its response schema's input type). */
export type ResponseOf<Op extends OperationId> = z.input<Contracts[Op]['success']['schema']>;
