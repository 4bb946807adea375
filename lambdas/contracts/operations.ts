// Every operation's contract, keyed by operationId (lambdas/topology/routes): its request schemas
// (requests.ts, what the pipeline validates), its documentation, and its success status and
// response schema. The OpenAPI document is generated from these; a route's function loads only
// requests.ts.
import * as z from 'zod';
import { EmptyMeta, LegacyMeta, Timestamp, V1Meta, v2Envelope, V2Pagination } from './common';
import { AFFILIATE_REASON_TEXT, AFFILIATE_REASONS } from '../domain/affiliate/reasons';
import { type OperationId, type OperationRequest, requestOf } from './requests';
import { WebhookDelivery, WebhookSecretResponse } from './webhooks';
import { MERCHANT_FEED_DESCRIPTION, MerchantFeedPage } from './feeds';
import {
  CHANGES_DESCRIPTION,
  ChangePage,
  ChangeSubscription,
  ChangeSubscriptionDeliveries,
  SUBSCRIPTION_DESCRIPTION,
} from './changes';
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

export type { OperationId, RequestOf } from './requests';

export interface OperationContract extends OperationRequest {
  summary: string;
  description?: string;
  success: { status: 200 | 202; schema: z.ZodType; description?: string };
  /** Codes (beyond auth, validation, rate limit and internal errors) this operation can answer. */
  errors?: Array<404 | 409 | 504>;
}

const AFFILIATE_DESCRIPTION =
  'Body `urls`: 1 to 100 strings (an empty list or more than 100 is 400). Each URL of a merchant in the network (matched by registrable domain, alternates and `www.`) becomes `network_link`; every other URL is `success` false with `network_link` null and a `reason`: ' +
  AFFILIATE_REASONS.map((reason) => `\`${reason}\` (${AFFILIATE_REASON_TEXT[reason]})`).join(', ') +
  ". `device_id` is the organization's, the same in every call.";

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

const FRESHNESS = `A stored record of the same URL and country_code extracted within the last 24 hours with every part the request turns on is served instead of a new fetch (meta/product result shows it) unless \`force_extraction\` is true.`;

const v1StartResponse = z.object({ success: z.literal(true), execution_id: z.string() });
const v1ListResponse = z.object({ executions: z.array(ExecutionSummary) });
const v1CancelResponse = z.object({ success: z.literal(true), execution_id: z.string(), status: z.literal('failed') });

const v2StartResponse = (meta: z.ZodType) => z.object({ execution_id: z.string(), status: z.literal('pending'), meta });
const v2CancelResponse = z.object({ execution_id: z.string(), status: z.literal('failed'), error: z.string() });
const timing = {
  start_date: Timestamp.nullable(),
  stop_date: Timestamp.nullable(),
  duration_ms: z.number().int().nullable(),
};

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
    ...requestOf('legacySearch'),
    summary: 'Filtered natural-language product search',
    description:
      'The query is understood (price phrases, colours, gender, negations, brands, categories, synonyms, typos): hard constraints filter, soft ones boost. `filters` are exact. Products are ranked best first; meta pages them.',
    success: { status: 200, schema: legacySearchResponse },
  },
  legacyRegularSearch: {
    ...requestOf('legacyRegularSearch'),
    summary: 'Search by keywords and filters only (no query understanding, no re-ranking)',
    description: 'The body and response of /api/search; the query is matched as keywords only.',
    success: { status: 200, schema: legacySearchResponse },
  },
  legacyProducts: {
    ...requestOf('legacyProducts'),
    summary: 'Synchronous batch extraction of up to 50 product URLs',
    description: `Every input URL gets one element, in input order; a failing URL never affects the others and says why in outcome, retry and message (malformed and empty entries are outcome malformed_url). URLs are fetched at most 8 at a time; duplicates (same normalised URL) are fetched once. ${FRESHNESS} Credits: 1 per successful product (+1 with enrichment); failed and invalid URLs cost nothing. \`urls_processed\` lists the distinct normalised URLs that were looked up.`,
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
    ...requestOf('legacyProduct'),
    summary: 'Single product by URL (synchronous)',
    description: `${FRESHNESS} A URL that cannot be a product URL at all is 400 INVALID_PARAMETER; a page that cannot be extracted is 200 with \`product\` null, \`meta.found\` false and the reason in meta.outcome, meta.retry and meta.message. Credits: 1 for a product, +1 each for enrichment, reviews and image tags when on.`,
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
    ...requestOf('legacyFeed'),
    summary: 'Product feed, most recently updated first',
    success: { status: 200, schema: z.object({ products: z.array(LegacyProductRecord), meta: LegacyMeta }) },
  },
  legacyVendors: {
    summary: 'Every vendor known to the service, in one response',
    description: 'Errors carry `code`: TIMEOUT, DB_TIMEOUT, DB_ERROR or INTERNAL_ERROR.',
    success: { status: 200, schema: z.object({ vendors: z.array(VendorSummary) }) },
    errors: [504],
  },
  legacyUsage: {
    ...requestOf('legacyUsage'),
    summary: "The caller's API usage per operation over a period",
    success: { status: 200, schema: z.object({ usage: z.array(UsageRecord), period: z.string() }) },
  },

  // ---- v1 ----
  v1AgenticSearchMini: {
    ...requestOf('v1AgenticSearchMini'),
    summary: 'Fast AI-enriched search, up to 10 products',
    description:
      'Credits: 1, +1 with enrichment (meta.credits_used). With enable_enrichment false, attributes are null.',
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
    ...requestOf('v1AgenticSearch'),
    summary: 'Profile-personalised search, up to 8 products (synchronous)',
    description:
      'Understands the query, retrieves candidates, applies customer_profile, and verifies the top candidates against the live product page (a stored record younger than the freshness window is reused); a candidate whose page fails or lacks a title, price or image is dropped, so fewer than 8 may come back. Credits: 5 (meta.credits_used).',
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
    ...requestOf('v1Listings'),
    summary: "A vendor's product listings",
    description:
      'Listings as the latest crawl left them, in URL order. `collection_urls` restricts them to those collections (scheme, www., trailing slash, query and fragment ignored). A vendor the service has never seen is 404; a known vendor without listings gives an empty page.',
    success: { status: 200, schema: z.object({ listings: z.array(Listing), meta: V1Meta }) },
    errors: [404],
  },
  v1Collections: {
    ...requestOf('v1Collections'),
    summary: "A vendor's collections, highest products_total first",
    description:
      "products_total is exactly the number of the collection's products listed for the vendor. A vendor the service has never seen is 404; a known vendor without collections gives an empty page.",
    success: { status: 200, schema: z.object({ collections: z.array(Collection), meta: V1Meta }) },
    errors: [404],
  },
  v1ProductsStart: {
    ...requestOf('v1ProductsStart'),
    summary: 'Start an asynchronous extraction of up to 1000 product URLs',
    description:
      'Returns `products-batch-{uuid}`; poll GET /v1/products/{execution_id}. URLs are normalised server-side; a malformed entry does not fail the request but becomes a result with outcome malformed_url; duplicates are fetched once and every index gets its own result. Credits: 1 per successful product, +1 each for enrichment, reviews and image tags when on.',
    success: { status: 200, schema: v1StartResponse },
  },
  v1ProductsList: {
    ...requestOf('v1ProductsList'),
    summary: "The caller's extraction executions, most recent first",
    description:
      "Every extraction of the caller's organization (v1 and v2). List items show `processing` for pending and running executions.",
    success: { status: 200, schema: v1ListResponse },
  },
  v1ProductsStatus: {
    ...requestOf('v1ProductsStatus'),
    summary: 'Status and, when completed, results of an extraction',
    description:
      'Results are paged by `page` and `limit` (default 50). An unknown id, or one of another organization, is 404.',
    success: { status: 200, schema: v1ExtractStatusResponse },
    errors: [404],
  },
  v1ProductsCancel: {
    ...requestOf('v1ProductsCancel'),
    summary: 'Cancel an extraction',
    description:
      'The execution becomes failed with error "Execution was cancelled"; URLs already finished stay readable. A finished execution is 409 CONFLICT.',
    success: { status: 200, schema: v1CancelResponse },
    errors: [404, 409],
  },
  v1ExtractStart: {
    ...requestOf('v1ExtractStart'),
    summary: 'Start a vendor-based extraction',
    description:
      'Extracts the listings of `domain` (max_products first). With `crawl_id` of a running crawl it waits for it (pending; cancelling it then is 409) and fails with "The crawl this extraction was waiting for failed or was canceled" if that crawl fails; a vendor without listings and no `crawl_id` starts a crawl itself and waits. An unknown crawl_id is 404.',
    success: { status: 200, schema: v1StartResponse },
    errors: [404],
  },
  v1ExtractList: {
    ...requestOf('v1ExtractList'),
    summary: "The caller's vendor-based extractions",
    success: { status: 200, schema: v1ListResponse },
  },
  v1ExtractStatus: {
    ...requestOf('v1ExtractStatus'),
    summary: 'Status of a vendor-based extraction',
    success: { status: 200, schema: v1ExtractStatusResponse },
    errors: [404],
  },
  v1ExtractCancel: {
    ...requestOf('v1ExtractCancel'),
    summary: 'Cancel a vendor-based extraction',
    success: { status: 200, schema: v1CancelResponse },
    errors: [404, 409],
  },
  v1Affiliate: {
    ...requestOf('v1Affiliate'),
    summary: 'Convert up to 100 product URLs into affiliate tracking links',
    description: AFFILIATE_DESCRIPTION,
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
    ...requestOf('v1CrawlStart'),
    summary: 'Start a crawl of a store',
    description:
      'Body `domain` (hostname or any URL of the store; `url` is an alias), optional `max_listings`, `country_code`.',
    success: { status: 200, schema: v1StartResponse },
  },
  v1CrawlList: {
    ...requestOf('v1CrawlList'),
    summary: "The caller's crawls, most recent first",
    success: { status: 200, schema: v1ListResponse },
  },
  v1CrawlStatus: {
    ...requestOf('v1CrawlStatus'),
    summary: 'Status of a crawl',
    success: { status: 200, schema: z.object({ status: ExecutionState, total_listings_found: z.number().int() }) },
    errors: [404],
  },
  v1CrawlCancel: {
    ...requestOf('v1CrawlCancel'),
    summary: 'Stop a crawl',
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
    ...requestOf('v2AgenticSearchMini'),
    summary: 'Fast AI-enriched search, up to 10 products',
    description:
      'The best 10 matches, paged by page and page_size (page_size default 10). With enable_enrichment false, attributes, product_type and the taxonomy fields are null. Credits: 1, +1 with enrichment; meta is empty.',
    success: { status: 200, schema: v2Envelope(MiniProductV2, EmptyMeta) },
  },
  v2AgenticSearchStart: {
    ...requestOf('v2AgenticSearchStart'),
    summary: 'Start an asynchronous profile-personalised search',
    description:
      'Starts an execution (agentic-{uuid}) whose steps are Understand query, Retrieve candidates, Verify candidates (live product pages, in parallel) and Rank; poll GET /v2/agentic-search/{execution_id}. Credits: 5, charged at start.',
    success: { status: 202, schema: v2StartResponse(z.object({ credits_used: z.number().int() })) },
  },
  v2AgenticSearchStatus: {
    ...requestOf('v2AgenticSearchStatus'),
    summary: 'Status and results of an agentic search',
    description:
      "data and pagination once completed: up to page_size verified products, best first. Another organization's execution is 404.",
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
    ...requestOf('v2Listings'),
    summary: "A vendor's product listings",
    description:
      'Listings as the latest crawl left them, in URL order. `collection_url` restricts them to one collection (scheme, www., trailing slash, query and fragment ignored). A vendor the service has never seen is 404; a known vendor without listings gives an empty page.',
    success: { status: 200, schema: v2Envelope(Listing, EmptyMeta) },
    errors: [404],
  },
  v2Collections: {
    ...requestOf('v2Collections'),
    summary: "A vendor's collections, highest products_total first",
    description:
      "products_total is exactly the number of the collection's products listed for the vendor. A vendor the service has never seen is 404; a known vendor without collections gives an empty page.",
    success: { status: 200, schema: v2Envelope(Collection, EmptyMeta) },
    errors: [404],
  },
  v2Vendors: {
    ...requestOf('v2Vendors'),
    summary: 'Vendors known to the service, paged, ordered by vendor key',
    success: { status: 200, schema: v2Envelope(VendorSummary, EmptyMeta) },
    errors: [504],
  },
  v2FeedGoogleMerchant: {
    ...requestOf('v2FeedGoogleMerchant'),
    summary: "A vendor's products as a Google Merchant Center feed, by cursor",
    description: MERCHANT_FEED_DESCRIPTION,
    success: { status: 200, schema: MerchantFeedPage },
    errors: [404],
  },
  v2Usage: {
    ...requestOf('v2Usage'),
    summary: "The caller's API usage per operation, highest total_calls first",
    success: { status: 200, schema: v2Envelope(UsageRecord, z.object({ period: z.string() })) },
  },
  v2Affiliate: {
    ...requestOf('v2Affiliate'),
    summary: 'Convert up to 100 product URLs into affiliate tracking links',
    description: `${AFFILIATE_DESCRIPTION} The results are one page: \`pagination\` covers them all.`,
    success: {
      status: 200,
      schema: v2Envelope(
        AffiliateLinkResult,
        z.object({ total_processed: z.number().int(), successful: z.number().int(), failed: z.number().int() }),
      ),
    },
  },
  v2CrawlStart: {
    ...requestOf('v2CrawlStart'),
    summary: 'Start a crawl of a store',
    description:
      "Discovers the store's collections and listings: Shopify public JSON, the WooCommerce Store API, sitemaps (gzip children included), then HTML category pages, best first; a fast path refused (401/403/404, or disallowed by robots.txt) falls back to the next. robots.txt, per-host politeness and Retry-After are obeyed. `max_listings` keeps exactly that many. A complete re-crawl removes listings the store no longer lists. Credits: 1 at start, +1 per 100 listings found. Poll GET /v2/crawl/{execution_id}.",
    success: { status: 202, schema: v2StartResponse(z.object({ credits_used: z.number().int() })) },
  },
  v2CrawlList: {
    ...requestOf('v2CrawlList'),
    summary: "The caller's crawls, most recent first",
    success: { status: 200, schema: v2Envelope(ExecutionSummary, EmptyMeta) },
  },
  v2CrawlStatus: {
    ...requestOf('v2CrawlStatus'),
    summary: 'Status of a crawl (own organization only)',
    description:
      'The four steps by name in order (completed, running, pending, failed); meta.progress while pending or running, null when finished; meta.result holds the totals (found so far while running). A cancelled crawl is failed with "Execution was cancelled" and what it found stays listed.',
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
    ...requestOf('v2CrawlCancel'),
    summary: 'Stop a crawl',
    success: { status: 200, schema: v2CancelResponse },
    errors: [404, 409],
  },
  v2ExtractStart: {
    ...requestOf('v2ExtractStart'),
    summary: 'Start an extraction from URLs or from a vendor',
    description:
      'Exactly one of `urls` and `vendor`; both or neither is 400 INVALID_PARAMETER. URL mode: any entry that is not a string, empty or malformed fails the whole request with 400 INVALID_PARAMETER and `invalid_urls` [{index, url, problem}] listing every bad entry; duplicates are accepted and fetched once. Vendor mode extracts the vendor\'s listings (max_products first): with `crawl_id` of a crawl still running it is `pending` with meta.waiting_for and starts when that crawl completes (it fails with "The crawl this extraction was waiting for failed or was canceled" when the crawl fails or is cancelled); a vendor without listings and no `crawl_id` starts a crawl itself and waits for it. meta.listings_count and meta.products_to_process say what it will extract. Flags default to false. `meta.credits_used` is 0 at start: credits are 1 per successful product, +1 each for enrichment, reviews, image tags and similar products when on.',
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
    ...requestOf('v2ExtractList'),
    summary: "The caller's extractions, most recent first",
    description:
      "Every extraction of the caller's organization (v1 and v2). List items show `processing` for pending and running executions.",
    success: { status: 200, schema: v2Envelope(ExecutionSummary, EmptyMeta) },
  },
  v2ExtractStatus: {
    ...requestOf('v2ExtractStatus'),
    summary: 'Status and, when completed, per-URL results of an extraction',
    description:
      '`data` (one page of per-URL results in input order, each with the full product record) and `pagination` appear when completed, and for a failed (cancelled, timed-out) execution they hold the URLs that finished. meta.result: successful + failed + invalid + pending = requested at every read. An unknown id, or one of another organization, is 404.',
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
    ...requestOf('v2ExtractCancel'),
    summary: 'Cancel an extraction',
    description:
      'The execution becomes failed with error "Execution was cancelled"; URLs already finished stay readable. A finished execution, or one waiting on a crawl, is 409 CONFLICT.',
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
    ...requestOf('v2WebhookDeliveries'),
    summary: "An execution's webhook delivery log",
    description:
      "One entry per event delivered to the execution's webhook, oldest first, with every attempt (time, receiver status, error). Any execution of the caller's organization (extraction, crawl, agentic search, v1 or v2); another organization's or an unknown id is 404. Needs the `usage` scope.",
    success: {
      status: 200,
      schema: z.object({ execution_id: z.string(), data: z.array(WebhookDelivery) }),
    },
    errors: [404],
  },
  v2Changes: {
    ...requestOf('v2Changes'),
    summary: 'Price, availability and listing changes of the vendors the organization extracted or crawled, by cursor',
    description: CHANGES_DESCRIPTION,
    success: { status: 200, schema: ChangePage },
    errors: [404, 504],
  },
  v2ChangeSubscriptionCreate: {
    ...requestOf('v2ChangeSubscriptionCreate'),
    summary: 'Subscribe a webhook to the change feed',
    description: SUBSCRIPTION_DESCRIPTION,
    success: { status: 200, schema: ChangeSubscription },
  },
  v2ChangeSubscriptionList: {
    ...requestOf('v2ChangeSubscriptionList'),
    summary: "The organization's change-feed subscriptions",
    description: 'Oldest first. Needs the `usage` scope.',
    success: { status: 200, schema: z.object({ data: z.array(ChangeSubscription) }) },
  },
  v2ChangeSubscriptionDelete: {
    ...requestOf('v2ChangeSubscriptionDelete'),
    summary: 'Delete a change-feed subscription',
    description:
      "Nothing more is sent to it (a delivery in flight may still finish). Another organization's or an unknown id is 404.",
    success: { status: 200, schema: z.object({ id: z.string(), deleted: z.literal(true) }) },
    errors: [404],
  },
  v2ChangeSubscriptionDeliveries: {
    ...requestOf('v2ChangeSubscriptionDeliveries'),
    summary: "A change-feed subscription's delivery log",
    description:
      "One entry per delivery, oldest first (up to 500), with every attempt (time, receiver status, error). Another organization's or an unknown id is 404.",
    success: { status: 200, schema: ChangeSubscriptionDeliveries },
    errors: [404],
  },
} satisfies Record<OperationId, OperationContract>;

/** The success body an operation returns (its response schema's input type). */
export type ResponseOf<Op extends OperationId> = z.input<(typeof CONTRACTS)[Op]['success']['schema']>;
