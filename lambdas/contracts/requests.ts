// The request side of every operation's contract, keyed by operationId (lambdas/topology/routes):
// the schemas the pipeline validates a request's path, query and body with. Each operation's are
// built on first use (requestOf), so a route's function builds its own and none of the other
// operations'; the responses and the documentation (operations.ts, openapi.ts) are not loaded by a
// route at all. The OpenAPI document is generated from these same schema objects.
import * as z from 'zod';
import { CHANGE_TYPES, type ChangeType, PRODUCT_CHANGED } from '../domain/changes/model';
import {
  countryCode,
  executionIdPath,
  executionStatusFilter,
  flag,
  intField,
  intParam,
  MAX_PAGE,
  MAX_URL_LENGTH,
  nonEmptyString,
  pageParam,
  pageSizeParam,
  periodParam,
  urlList,
  urlString,
} from './common';
import { webhookField } from './webhooks';

/** What the pipeline validates of one operation's request (absent parts take no input). */
export interface OperationRequest {
  query?: z.ZodObject;
  body?: z.ZodType;
  params?: z.ZodObject;
}

const query = <S extends z.ZodRawShape>(shape: S) => z.object(shape);
const subscriptionIdPath = () =>
  z.object({ subscription_id: z.string().min(1).max(100).describe('A subscription id (whs_...)') });
const changeTypesParam = () =>
  z
    .string({ error: 'types must be a comma-separated list' })
    .transform((text, ctx) => {
      const types = text
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const unknown = types.find((t) => !(CHANGE_TYPES as readonly string[]).includes(t));
      if (unknown) ctx.addIssue({ code: 'custom', message: `types entries must be one of ${CHANGE_TYPES.join(', ')}` });
      return types as ChangeType[];
    })
    .optional();
const body = <S extends z.ZodRawShape>(shape: S) => z.object(shape, { error: 'request body must be a JSON object' });

const price = (name: string) =>
  z.number({ error: `filters.${name} must be a number` }).min(0, { error: `filters.${name} must not be negative` });

const searchFilters = () =>
  z
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

const legacySearchBody = () =>
  body({
    query: searchQuery(),
    filters: searchFilters(),
    page: intField('page', 1, MAX_PAGE).default(1),
    limit: intField('limit', 1, 100).default(20).describe('Products per page, 1 to 100 (default 20)'),
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
const v2UrlList = () =>
  z
    .array(z.unknown(), { error: 'urls must be an array of strings' })
    .min(1, { error: 'urls must contain at least 1 URL' })
    .max(1000, { error: 'urls must contain at most 1000 URLs' })
    .meta({ items: { type: 'string', maxLength: MAX_URL_LENGTH } } as Record<string, unknown>)
    .describe(
      `Product URLs (an array even for one URL), at most 1000, each at most ${MAX_URL_LENGTH} characters (longer ones are reported in invalid_urls); normalised server-side (scheme added, fragment and tracking parameters removed); duplicates are fetched once`,
    );

/** Whether a browser renders the page (docs/rendering.md). */
const renderMode = () =>
  z
    .enum(['auto', 'always', 'never'], { error: 'render must be one of auto, always, never' })
    .optional()
    .describe(
      'auto (default): the HTML first, a browser only when it yields no product and the page is built by scripts; always: render every page in a browser; never: the HTML only. Records say which in fetched_with',
    );

/** Whether records carry `provenance` (docs/provenance.md). */
const provenanceFlag = () =>
  flag('include_provenance', false).describe(
    'Default false: true adds provenance to each record: per field, the source of its value (json-ld, microdata, open-graph, platform-json, page-text, browser, url), the sources agreeing, and the values other sources stated that lost. Not kept with stored records: a request asking for it always reads the page',
  );

const legacyFlags = () => ({
  enable_enrichment: flag('enable_enrichment', true).describe(
    'Default true: attributes, product_type and taxonomy fields',
  ),
  country_code: countryCode().describe('Two-letter code from the supported list; default us'),
});

const v1ListQuery = () => query({ status: executionStatusFilter(), limit: pageSizeParam(20, 'limit') });
const v1ExtractStatusQuery = () => query({ page: pageParam(), limit: pageSizeParam(50, 'limit') });
const v2ListQuery = () => query({ status: executionStatusFilter(), page: pageParam(), page_size: pageSizeParam(20) });

const crawlBodyV1 = () =>
  body({
    domain: urlString('domain').optional(),
    url: urlString('url').optional(),
    max_listings: intField('max_listings', 1, 1_000_000).optional(),
    country_code: countryCode(),
    webhook: webhookField(),
  }).refine((b) => b.domain !== undefined || b.url !== undefined, {
    error: 'domain is required (a hostname or any URL of the store)',
    path: ['domain'],
  });

const REQUESTS = {
  health: () => ({}),
  openapi: () => ({}),
  legacySearch: () => ({
    body: legacySearchBody(),
  }),
  legacyRegularSearch: () => ({
    body: legacySearchBody(),
  }),
  legacyProducts: () => ({
    body: body({
      urls: urlList('urls', 50).describe('Product URLs, at most 50'),
      ...legacyFlags(),
      force_extraction: flag('force_extraction', false).describe(
        'true: always fetch anew, never serve a stored record',
      ),
      render: renderMode(),
      include_provenance: provenanceFlag(),
    }),
  }),
  legacyProduct: () => ({
    body: body({
      url: urlString('url').describe('Product URL'),
      enable_enrichment: flag('enable_enrichment', true),
      enable_reviews: flag('enable_reviews', false).describe('Default false: reviews, faqs'),
      enable_image_tags: flag('enable_image_tags', false).describe('Default false: images[].attributes'),
      country_code: countryCode(),
      force_extraction: flag('force_extraction', false).describe(
        'true: always fetch anew, never serve a stored record',
      ),
      render: renderMode(),
      include_provenance: provenanceFlag(),
    }),
  }),
  legacyFeed: () => ({
    query: query({
      vendor: z.string().optional(),
      updated_since: z.iso.datetime({ offset: true, error: 'updated_since must be an ISO 8601 timestamp' }).optional(),
      page: pageParam(),
      limit: pageSizeParam(50, 'limit'),
    }),
  }),
  legacyVendors: () => ({}),
  legacyUsage: () => ({
    query: query({ period: periodParam() }),
  }),
  v1AgenticSearchMini: () => ({
    body: body({ query: searchQuery(), enable_enrichment: flag('enable_enrichment', true) }),
  }),
  v1AgenticSearch: () => ({
    body: body({ query: searchQuery(), customer_profile: customerProfile() }),
  }),
  v1Listings: () => ({
    body: body({
      vendor: urlString('vendor'),
      page: intField('page', 1, MAX_PAGE).default(1),
      page_size: intField('page_size', 1, 100).default(10),
      collection_urls: urlList('collection_urls', 100, 0).optional(),
    }),
  }),
  v1Collections: () => ({
    body: body({
      vendor: urlString('vendor'),
      page: intField('page', 1, MAX_PAGE).default(1),
      page_size: intField('page_size', 1, 100).default(10),
    }),
  }),
  v1ProductsStart: () => ({
    body: body({
      urls: v1UrlList(1000).describe('Non-empty array of non-empty strings, at most 1000'),
      enable_enrichment: flag('enable_enrichment', true),
      country_code: countryCode(),
      enable_reviews: flag('enable_reviews', false),
      enable_image_tags: flag('enable_image_tags', false),
      render: renderMode(),
      include_provenance: provenanceFlag(),
      webhook: webhookField(),
    }),
  }),
  v1ProductsList: () => ({
    query: v1ListQuery(),
  }),
  v1ProductsStatus: () => ({
    params: executionIdPath(),
    query: v1ExtractStatusQuery(),
  }),
  v1ProductsCancel: () => ({
    params: executionIdPath(),
  }),
  v1ExtractStart: () => ({
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
      render: renderMode(),
      include_provenance: provenanceFlag(),
      webhook: webhookField(),
    }),
  }),
  v1ExtractList: () => ({
    query: v1ListQuery(),
  }),
  v1ExtractStatus: () => ({
    params: executionIdPath(),
    query: v1ExtractStatusQuery(),
  }),
  v1ExtractCancel: () => ({
    params: executionIdPath(),
  }),
  v1Affiliate: () => ({
    body: body({ urls: urlList('urls', 100) }),
  }),
  v1CrawlStart: () => ({
    body: crawlBodyV1(),
  }),
  v1CrawlList: () => ({
    query: v1ListQuery(),
  }),
  v1CrawlStatus: () => ({
    params: executionIdPath(),
  }),
  v1CrawlCancel: () => ({
    params: executionIdPath(),
  }),
  v1Vendors: () => ({}),
  v2AgenticSearchMini: () => ({
    body: body({
      query: searchQuery(),
      enable_enrichment: flag('enable_enrichment', true),
      page_size: intField('page_size', 1, 10).default(10),
      page: intField('page', 1, 10).default(1).describe('1-based page within the best 10 matches'),
    }),
  }),
  v2AgenticSearchStart: () => ({
    body: body({
      query: searchQuery(),
      customer_profile: customerProfile(),
      page_size: intField('page_size', 1, 8).default(8).describe('Products wanted, 1 to 8 (default 8)'),
      enable_enrichment: flag('enable_enrichment', false).describe(
        'Default false: attributes, product_type and taxonomy fields are null',
      ),
      webhook: webhookField(),
    }),
  }),
  v2AgenticSearchStatus: () => ({
    params: executionIdPath(),
  }),
  v2Listings: () => ({
    query: query({
      vendor: urlString('vendor'),
      page: pageParam(),
      page_size: pageSizeParam(20),
      collection_url: z
        .string()
        .max(MAX_URL_LENGTH, { error: `collection_url must be at most ${MAX_URL_LENGTH} characters` })
        .optional(),
    }),
  }),
  v2Collections: () => ({
    query: query({ vendor: urlString('vendor'), page: pageParam(), page_size: pageSizeParam(20) }),
  }),
  v2Vendors: () => ({
    query: query({ page: pageParam(), page_size: pageSizeParam(20) }),
  }),
  v2FeedGoogleMerchant: () => ({
    query: query({
      vendor: urlString('vendor').describe('Hostname or any URL of the store'),
      country_code: countryCode().describe(
        'The target country of the feed: only records extracted for it (default us)',
      ),
      format: z
        .enum(['json', 'xml'], { error: 'format must be json or xml' })
        .default('json')
        .describe(
          '`json`: items and refused items in a paging envelope; `xml`: the RSS 2.0 document Merchant Center fetches',
        ),
      page_size: intParam('page_size', 1, 500)
        .default(100)
        .describe('Product records per page, 1 to 500 (default 100); each gives one item per variant'),
      cursor: z
        .string({ error: 'cursor must be a string' })
        .max(2000, { error: 'cursor must be at most 2000 characters' })
        .optional()
        .describe(
          "The previous page's `pagination.next_cursor` (or the XML `Link: rel=next`); omitted: the first page",
        ),
    }),
  }),
  v2Usage: () => ({
    query: query({ period: periodParam(), page: pageParam(), page_size: pageSizeParam(20) }),
  }),
  v2Affiliate: () => ({
    body: body({ urls: urlList('urls', 100) }),
  }),
  v2CrawlStart: () => ({
    body: body({
      vendor: urlString('vendor').describe('Hostname or any URL of the store'),
      max_listings: intField('max_listings', 1, 1_000_000).optional(),
      country_code: countryCode(),
      webhook: webhookField(),
    }),
  }),
  v2CrawlList: () => ({
    query: v2ListQuery(),
  }),
  v2CrawlStatus: () => ({
    params: executionIdPath(),
  }),
  v2CrawlCancel: () => ({
    params: executionIdPath(),
  }),
  v2ExtractStart: () => ({
    body: body({
      urls: v2UrlList().optional(),
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
      render: renderMode(),
      include_provenance: provenanceFlag(),
      webhook: webhookField(),
    }).refine((b) => (b.urls === undefined) !== (b.vendor === undefined), {
      error: 'exactly one of urls and vendor is required',
    }),
  }),
  v2ExtractList: () => ({
    query: v2ListQuery(),
  }),
  v2ExtractStatus: () => ({
    params: executionIdPath(),
    query: query({ page: pageParam(), page_size: pageSizeParam(50) }),
  }),
  v2ExtractCancel: () => ({
    params: executionIdPath(),
  }),
  v2WebhookSecret: () => ({}),
  v2WebhookSecretRotate: () => ({}),
  v2WebhookDeliveries: () => ({
    query: query({
      execution_id: z
        .string({ error: 'execution_id is required' })
        .min(1, { error: 'execution_id is required' })
        .max(200, { error: 'execution_id must be at most 200 characters' }),
    }),
  }),
  v2Changes: () => ({
    query: query({
      vendor: urlString('vendor')
        .optional()
        .describe('Hostname or any URL of the store; omitted: every vendor the organization may see'),
      since: z.iso
        .datetime({ error: 'since must be an ISO 8601 timestamp' })
        .optional()
        .describe('Only changes seen at or after this time'),
      types: changeTypesParam().describe(
        `Comma-separated change types to return: ${CHANGE_TYPES.join(', ')} (default all)`,
      ),
      page_size: intParam('page_size', 1, 500)
        .default(100)
        .describe('Observations per page, 1 to 500 (default 100); each holds one or more changes'),
      cursor: z
        .string({ error: 'cursor must be a string' })
        .max(20_000, { error: 'cursor must be at most 20000 characters' })
        .optional()
        .describe(
          "The previous page's `pagination.next_cursor`; omitted: from `since` (or the organization's first extraction or crawl of the vendor)",
        ),
    }),
  }),
  v2ChangeSubscriptionCreate: () => ({
    body: body({
      url: urlString('url').describe('Absolute http(s) URL of a public receiver'),
      events: z
        .array(z.literal(PRODUCT_CHANGED, { error: `events entries must be ${PRODUCT_CHANGED}` }), {
          error: 'events must be an array of event names',
        })
        .min(1, { error: 'events must name at least one event' })
        .max(1, { error: 'events must not repeat an event' })
        .describe(`The events to deliver: ["${PRODUCT_CHANGED}"]`),
      vendors: z
        .array(urlString('vendors entries'), { error: 'vendors must be an array of hostnames' })
        .max(100, { error: 'vendors must hold at most 100 entries' })
        .optional()
        .describe('Only these vendors (hostnames or store URLs); omitted: every vendor the organization may see'),
      types: z
        .array(z.enum(CHANGE_TYPES, { error: `types entries must be one of ${CHANGE_TYPES.join(', ')}` }), {
          error: 'types must be an array of change types',
        })
        .optional()
        .describe('Only these change types (default all)'),
    }),
  }),
  v2ChangeSubscriptionList: () => ({}),
  v2ChangeSubscriptionDelete: () => ({ params: subscriptionIdPath() }),
  v2ChangeSubscriptionDeliveries: () => ({ params: subscriptionIdPath() }),
} satisfies Record<string, () => OperationRequest>;

export type OperationId = keyof typeof REQUESTS;
type Requests = { [Op in OperationId]: ReturnType<(typeof REQUESTS)[Op]> };
type Out<T> = T extends z.ZodType ? z.output<T> : Record<string, never>;

/** The validated request an operation's implementation receives. */
export interface RequestOf<Op extends OperationId> {
  body: Requests[Op] extends { body: infer B } ? Out<B> : Record<string, never>;
  query: Requests[Op] extends { query: infer Q } ? Out<Q> : Record<string, never>;
  params: Requests[Op] extends { params: infer P } ? Out<P> : Record<string, never>;
}

const built = new Map<OperationId, OperationRequest>();

/** An operation's request schemas, built once per process (the same objects for every caller). */
export function requestOf<Op extends OperationId>(operationId: Op): Requests[Op] {
  let request = built.get(operationId);
  if (!request) {
    request = REQUESTS[operationId]();
    built.set(operationId, request);
  }
  return request as Requests[Op];
}
