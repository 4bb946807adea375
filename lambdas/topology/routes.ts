// The one route table: plain data. The CDK stack (lib/) and the local server (lambdas/local/)
// are both built from it, so a route cannot exist in one and not the other.

export type Family = 'legacy' | 'v1' | 'v2' | 'public';
export type Scope = 'search' | 'catalog' | 'extract' | 'crawl' | 'affiliate' | 'usage';
export type Method = 'GET' | 'POST' | 'DELETE';

export interface Route {
  /** OpenAPI operationId and the stable name of the route everywhere (logs, CDK ids). */
  operationId: string;
  method: Method;
  /** Path template in API Gateway form (`{execution_id}`); also the usage-metering key. */
  path: string;
  /** Handler module under lambdas/http/, without extension; it exports `handler`. */
  handler: string;
  family: Family;
  /** Scope the caller's key needs; null for unauthenticated routes. */
  scope: Scope | null;
}

/** The family a raw path belongs to, so unknown paths still get their family's error shape. */
export const familyOf = (path: string): Family =>
  path.startsWith('/api/') ? 'legacy' : path.startsWith('/v1/') ? 'v1' : path.startsWith('/v2/') ? 'v2' : 'public';

/** A route's family is its path's: derived, never stated twice. */
const r = (operationId: string, method: Method, path: string, scope: Scope | null, handler: string): Route => ({
  operationId,
  method,
  path,
  family: familyOf(path),
  scope,
  handler,
});

export const ROUTES: readonly Route[] = [
  // unauthenticated
  r('health', 'GET', '/health', null, 'public/health'),
  r('openapi', 'GET', '/openapi.json', null, 'public/openapi'),

  // legacy /api
  r('legacySearch', 'POST', '/api/search', 'search', 'legacy/search'),
  r('legacyRegularSearch', 'POST', '/api/regular-search', 'search', 'legacy/regular-search'),
  r('legacyProducts', 'POST', '/api/products', 'extract', 'legacy/products'),
  r('legacyProduct', 'POST', '/api/product', 'extract', 'legacy/product'),
  r('legacyFeed', 'GET', '/api/feed', 'search', 'legacy/feed'),
  r('legacyVendors', 'GET', '/api/vendors', 'catalog', 'legacy/vendors'),
  r('legacyUsage', 'GET', '/api/usage', 'usage', 'legacy/usage'),

  // v1
  r('v1AgenticSearchMini', 'POST', '/v1/agentic-search-mini', 'search', 'v1/agentic-search-mini'),
  r('v1AgenticSearch', 'POST', '/v1/agentic-search', 'search', 'v1/agentic-search'),
  r('v1Listings', 'POST', '/v1/listings', 'catalog', 'v1/listings'),
  r('v1Collections', 'POST', '/v1/collections', 'catalog', 'v1/collections'),
  r('v1ProductsStart', 'POST', '/v1/products', 'extract', 'v1/products-start'),
  r('v1ProductsList', 'GET', '/v1/products', 'extract', 'v1/products-list'),
  r('v1ProductsStatus', 'GET', '/v1/products/{execution_id}', 'extract', 'v1/products-status'),
  r('v1ProductsCancel', 'DELETE', '/v1/products/{execution_id}', 'extract', 'v1/products-cancel'),
  r('v1ExtractStart', 'POST', '/v1/extract', 'extract', 'v1/extract-start'),
  r('v1ExtractList', 'GET', '/v1/extract', 'extract', 'v1/extract-list'),
  r('v1ExtractStatus', 'GET', '/v1/extract/{execution_id}', 'extract', 'v1/extract-status'),
  r('v1ExtractCancel', 'DELETE', '/v1/extract/{execution_id}', 'extract', 'v1/extract-cancel'),
  r('v1Affiliate', 'POST', '/v1/affiliate', 'affiliate', 'v1/affiliate'),
  r('v1CrawlStart', 'POST', '/v1/crawl', 'crawl', 'v1/crawl-start'),
  r('v1CrawlList', 'GET', '/v1/crawl', 'crawl', 'v1/crawl-list'),
  r('v1CrawlStatus', 'GET', '/v1/crawl/{execution_id}', 'crawl', 'v1/crawl-status'),
  r('v1CrawlCancel', 'DELETE', '/v1/crawl/{execution_id}', 'crawl', 'v1/crawl-cancel'),
  r('v1Vendors', 'GET', '/v1/vendors', 'catalog', 'v1/vendors'),

  // v2
  r('v2AgenticSearchMini', 'POST', '/v2/agentic-search-mini', 'search', 'v2/agentic-search-mini'),
  r('v2AgenticSearchStart', 'POST', '/v2/agentic-search', 'search', 'v2/agentic-search-start'),
  r('v2AgenticSearchStatus', 'GET', '/v2/agentic-search/{execution_id}', 'search', 'v2/agentic-search-status'),
  r('v2Listings', 'GET', '/v2/listings', 'catalog', 'v2/listings'),
  r('v2Collections', 'GET', '/v2/collections', 'catalog', 'v2/collections'),
  r('v2Vendors', 'GET', '/v2/vendors', 'catalog', 'v2/vendors'),
  r('v2FeedGoogleMerchant', 'GET', '/v2/feeds/google-merchant', 'catalog', 'v2/feed-google-merchant'),
  r('v2Usage', 'GET', '/v2/usage', 'usage', 'v2/usage'),
  r('v2Affiliate', 'POST', '/v2/affiliate', 'affiliate', 'v2/affiliate'),
  r('v2CrawlStart', 'POST', '/v2/crawl', 'crawl', 'v2/crawl-start'),
  r('v2CrawlList', 'GET', '/v2/crawl', 'crawl', 'v2/crawl-list'),
  r('v2CrawlStatus', 'GET', '/v2/crawl/{execution_id}', 'crawl', 'v2/crawl-status'),
  r('v2CrawlCancel', 'DELETE', '/v2/crawl/{execution_id}', 'crawl', 'v2/crawl-cancel'),
  r('v2ExtractStart', 'POST', '/v2/extract', 'extract', 'v2/extract-start'),
  r('v2ExtractList', 'GET', '/v2/extract', 'extract', 'v2/extract-list'),
  r('v2ExtractStatus', 'GET', '/v2/extract/{execution_id}', 'extract', 'v2/extract-status'),
  r('v2ExtractCancel', 'DELETE', '/v2/extract/{execution_id}', 'extract', 'v2/extract-cancel'),
  // Webhooks: account-level, so the `usage` scope (the start operations take a `webhook` field).
  r('v2WebhookSecret', 'GET', '/v2/webhooks/secret', 'usage', 'v2/webhook-secret'),
  r('v2WebhookSecretRotate', 'POST', '/v2/webhooks/secret', 'usage', 'v2/webhook-secret-rotate'),
  r('v2WebhookDeliveries', 'GET', '/v2/webhooks/deliveries', 'usage', 'v2/webhook-deliveries'),
  // The change feed of the vendors an organization extracted or crawled, and its webhooks.
  r('v2Changes', 'GET', '/v2/changes', 'catalog', 'v2/changes'),
  r('v2ChangeSubscriptionCreate', 'POST', '/v2/webhooks/subscriptions', 'usage', 'v2/webhook-subscriptions-create'),
  r('v2ChangeSubscriptionList', 'GET', '/v2/webhooks/subscriptions', 'usage', 'v2/webhook-subscriptions-list'),
  r(
    'v2ChangeSubscriptionDelete',
    'DELETE',
    '/v2/webhooks/subscriptions/{subscription_id}',
    'usage',
    'v2/webhook-subscriptions-delete',
  ),
  r(
    'v2ChangeSubscriptionDeliveries',
    'GET',
    '/v2/webhooks/subscriptions/{subscription_id}/deliveries',
    'usage',
    'v2/webhook-subscriptions-deliveries',
  ),
];
