// Environment variable names the CDK stack sets on every Lambda; only lambdas/config.ts reads
// them. Each queue's and workflow's own variable is declared once, in its topology entry
// (QueueSpec.envVar, WorkflowSpec.envVar).
export const ENV = {
  tableName: 'PDS_TABLE_NAME',
  /** Set only locally: endpoints of the embedded engines. */
  dynamodbEndpoint: 'PDS_DYNAMODB_ENDPOINT',
  sqsEndpoint: 'PDS_SQS_ENDPOINT',
  stepFunctionsEndpoint: 'PDS_SFN_ENDPOINT',
  rateLimit: 'PDS_RATE_LIMIT',
  resolve: 'PDS_RESOLVE',
  crawlDelayMs: 'PDS_CRAWL_DELAY_MS',
  affiliateMerchants: 'PDS_AFFILIATE_MERCHANTS',
  /** The network link template: {merchant_id}, {device_id}, {url} (URL-encoded deep link). */
  affiliateLinkTemplate: 'PDS_AFFILIATE_LINK_TEMPLATE',
  egressProxies: 'PDS_EGRESS_PROXIES',
  logLevel: 'PDS_LOG_LEVEL',
  /** URL extractions at once per process, shared by all extract-worker batches it runs. */
  extractSlots: 'PDS_EXTRACT_SLOTS',
  /** A rendered page's time budget in ms (default 20000): load, settle, read. */
  renderBudgetMs: 'PDS_RENDER_BUDGET_MS',
  hostLeaseMs: 'PDS_HOST_LEASE_MS',
  /** The render function's direct entry (set on the synchronous functions on AWS, which ship no browser). */
  renderFunction: 'PDS_RENDER_FUNCTION',
  /** Fault injection for tests and benchmarks only. */
  faultRate: 'PDS_FAULT_RATE',
  duplicateRate: 'PDS_DUPLICATE_RATE',
  /** Usage counts written this many ms behind responses off Lambda (default 1000; 0: before each response). */
  usageWriteBehindMs: 'PDS_USAGE_WRITE_BEHIND_MS',
  /** `off`: no rate-limit leases (every admission one table update). */
  rateLimitLeases: 'PDS_RATE_LIMIT_LEASES',
  /** Local state directory (the local runtime sets it; search keeps its index snapshot there). */
  dataDir: 'PDS_DATA_DIR',
  /** S3 bucket of the search index snapshot (set by the CDK stack on search Lambdas and the indexer). */
  searchSnapshotBucket: 'PDS_SEARCH_BUCKET',
  /** The OpenSearch domain's endpoint (https://...), set instead of the bucket with `-c pds:search=opensearch`. */
  searchEndpoint: 'PDS_SEARCH_ENDPOINT',
  /** The IAM roles of the functions that search, comma-separated: the indexer maps them to read-only access. */
  searchReaderRoles: 'PDS_SEARCH_READER_ROLES',
  /** Freshness window of an agentic search's verification (ms). */
  agenticVerifyMaxAgeMs: 'PDS_AGENTIC_VERIFY_MAX_AGE_MS',
  /** Webhook backoff: seconds before each retry, comma-separated (default 60,300,900,3600). */
  webhookRetryDelays: 'PDS_WEBHOOK_RETRY_DELAYS',
  /** `true`: webhooks may target private and loopback addresses (local development only). */
  webhookAllowPrivate: 'PDS_WEBHOOK_ALLOW_PRIVATE',
} as const;
