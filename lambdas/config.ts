// The only module that reads process.env: parsed once per cold start, passed in everywhere else.
import { ENV } from './topology/env';
import { compileLinkTemplate, DEFAULT_LINK_TEMPLATE } from './domain/affiliate/template';
import { QUEUES } from './topology/queues';
import { WORKFLOWS } from './topology/workflows';

export interface Config {
  tableName: string;
  queueUrls: Record<string, string>;
  stateMachineArns: Record<string, string>;
  endpoints: { dynamodb?: string; sqs?: string; stepFunctions?: string };
  region: string;
  rateLimit: { ratePerSecond: number; burst: number };
  /** host -> "ip:port" (PDS_RESOLVE), lower-case hosts. */
  resolve: Record<string, string>;
  crawlDelayMs: number;
  /** How long a host-gate slot stays held by a worker that died mid-request (PDS_HOST_LEASE_MS). */
  hostLeaseMs: number;
  affiliateMerchantsFile?: string;
  /** PDS_AFFILIATE_LINK_TEMPLATE, checked at load (placeholders, absolute http(s) URL). */
  affiliateLinkTemplate: string;
  /** country code -> proxy URL (PDS_EGRESS_PROXIES="de=http://proxy:8080,..."). */
  egressProxies: Record<string, string>;
  /** Operational metrics: CloudWatch EMF on Lambda, an in-memory tally elsewhere. */
  metrics: 'emf' | 'memory';
  /** X-Ray annotations and AWS SDK subsegments on Lambda (active tracing); a no-op elsewhere. */
  tracing: boolean;
  /** PDS_LOG_LEVEL: 'debug' | 'info' | 'warn' | 'error' (default info). */
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /**
   * PDS_EXTRACT_SLOTS: URL extractions at once in this process, shared by every extract-worker
   * invocation (the local runtime runs several batches at once; a Lambda instance runs one).
   * Undefined: each batch extracts up to its own concurrency.
   */
  extractSlots: number | undefined;
  /** PDS_RENDER_BUDGET_MS: a page rendered in the browser ends as `other` past this (default 20 s). */
  renderBudgetMs: number;
  /** PDS_RENDER_FUNCTION: where this process has no browser, pages are rendered by this function (docs/rendering.md). */
  renderFunction?: string;
  /** On AWS Lambda (AWS_LAMBDA_FUNCTION_NAME set): Chromium runs as one process there (docs/rendering.md). */
  lambda?: boolean;
  /**
   * Fault injection for tests and benchmarks, never set in production: PDS_FAULT_RATE = share of
   * extract-worker invocations that crash partway; PDS_DUPLICATE_RATE = share of messages sent
   * to the queue once more (SQS at-least-once delivery, made frequent).
   */
  faults: { crashRate: number; duplicateRate: number };
  /** PDS_DATA_DIR: where local state persists (the search index snapshot); unset on AWS. */
  dataDir?: string;
  /**
   * PDS_USAGE_WRITE_BEHIND_MS (default 1000): usage counts of a long-lived process (`npm start`)
   * are written up to this many ms after the response instead of before it, and on stop. 0, and
   * always on Lambda (which may freeze once it has answered): written before the response.
   */
  usageWriteBehindMs: number | undefined;
  /**
   * PDS_RATE_LIMIT_LEASES (default on; `off`): fast buckets under concurrent calls take tokens
   * ahead for 50 ms (adapters/dynamodb/ratelimit.ts); off, every admission is one table update.
   */
  rateLimitLeases: boolean;
  /** PDS_SEARCH_BUCKET: the S3 bucket holding the search index snapshot (AWS). */
  searchSnapshotBucket?: string;
  /** PDS_SEARCH_ENDPOINT: the OpenSearch domain's endpoint (AWS, `-c pds:search=opensearch`); unset: the in-process index. */
  searchEndpoint?: string;
  /** PDS_SEARCH_READER_ROLES: role ARNs the OpenSearch indexer maps to read-only access (comma-separated). */
  searchReaderRoles: string[];
  /**
   * PDS_AGENTIC_VERIFY_MAX_AGE_MS: a stored record younger than this answers an agentic search's
   * verification instead of a new page read (default the products' freshness window, 24 h;
   * 0 reads every candidate's page live).
   */
  agenticVerifyMaxAgeMs: number;
  /**
   * Webhooks: PDS_WEBHOOK_RETRY_DELAYS = seconds before each retry (default 60,300,900,3600:
   * five attempts); PDS_WEBHOOK_ALLOW_PRIVATE=true lets webhooks target private and loopback
   * addresses (local development; PDS_RESOLVE hosts are always allowed).
   */
  webhooks: { retryDelaysSeconds: number[]; allowPrivateTargets: boolean };
}

const pairs = (raw: string | undefined): Array<[string, string]> =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const i = s.indexOf('=');
      if (i <= 0) throw new Error(`Expected key=value, got "${s}"`);
      return [s.slice(0, i).trim().toLowerCase(), s.slice(i + 1).trim()];
    });

export function parseRateLimit(raw: string | undefined): { ratePerSecond: number; burst: number } {
  if (!raw) return { ratePerSecond: 20, burst: 40 };
  const [rps, burst] = raw.split(':').map(Number);
  if (!(rps > 0) || !(burst > 0)) throw new Error(`PDS_RATE_LIMIT must be <rps>:<burst>, got "${raw}"`);
  return { ratePerSecond: rps, burst };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const queueUrls: Record<string, string> = {};
  for (const queue of QUEUES) if (env[queue.envVar]) queueUrls[queue.name] = env[queue.envVar]!;
  const stateMachineArns: Record<string, string> = {};
  for (const workflow of WORKFLOWS) if (env[workflow.envVar]) stateMachineArns[workflow.name] = env[workflow.envVar]!;
  return {
    tableName: env[ENV.tableName] ?? 'pds',
    queueUrls,
    stateMachineArns,
    endpoints: {
      dynamodb: env[ENV.dynamodbEndpoint] || undefined,
      sqs: env[ENV.sqsEndpoint] || undefined,
      stepFunctions: env[ENV.stepFunctionsEndpoint] || undefined,
    },
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    rateLimit: parseRateLimit(env[ENV.rateLimit]),
    resolve: Object.fromEntries(pairs(env[ENV.resolve])),
    crawlDelayMs: env[ENV.crawlDelayMs] !== undefined ? Number(env[ENV.crawlDelayMs]) : 1000,
    // Past the fetcher's longest attempt (45 s, connect to last byte), so a live worker keeps its slot.
    hostLeaseMs: Number(env[ENV.hostLeaseMs]) > 0 ? Number(env[ENV.hostLeaseMs]) : 60_000,
    affiliateMerchantsFile: env[ENV.affiliateMerchants] || undefined,
    affiliateLinkTemplate: compileLinkTemplate(env[ENV.affiliateLinkTemplate] || DEFAULT_LINK_TEMPLATE).source,
    egressProxies: Object.fromEntries(pairs(env[ENV.egressProxies])),
    metrics: env.AWS_LAMBDA_FUNCTION_NAME ? 'emf' : 'memory',
    tracing: Boolean(env.AWS_LAMBDA_FUNCTION_NAME) && env.POWERTOOLS_TRACE_ENABLED !== 'false',
    logLevel: parseLogLevel(env[ENV.logLevel]),
    extractSlots: parseSlots(env[ENV.extractSlots]),
    renderBudgetMs: parseRenderBudget(env[ENV.renderBudgetMs]),
    renderFunction: env[ENV.renderFunction] || undefined,
    lambda: Boolean(env.AWS_LAMBDA_FUNCTION_NAME),
    faults: { crashRate: parseRate(env[ENV.faultRate]), duplicateRate: parseRate(env[ENV.duplicateRate]) },
    dataDir: env[ENV.dataDir] || undefined,
    usageWriteBehindMs: env.AWS_LAMBDA_FUNCTION_NAME ? undefined : parseWriteBehind(env[ENV.usageWriteBehindMs]),
    rateLimitLeases: env[ENV.rateLimitLeases] !== 'off',
    searchSnapshotBucket: env[ENV.searchSnapshotBucket] || undefined,
    searchEndpoint: env[ENV.searchEndpoint] || undefined,
    searchReaderRoles: (env[ENV.searchReaderRoles] ?? '').split(',').filter(Boolean),
    agenticVerifyMaxAgeMs: parseMaxAge(env[ENV.agenticVerifyMaxAgeMs], DAY_MS),
    webhooks: {
      retryDelaysSeconds: parseRetryDelays(env[ENV.webhookRetryDelays]),
      allowPrivateTargets: env[ENV.webhookAllowPrivate] === 'true',
    },
  };
}

function parseRenderBudget(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 20_000;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1000 || ms > 120_000)
    throw new Error(`PDS_RENDER_BUDGET_MS must be whole milliseconds from 1000 to 120000, got "${raw}"`);
  return ms;
}

function parseWriteBehind(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return 1000;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > 60_000)
    throw new Error(`PDS_USAGE_WRITE_BEHIND_MS must be whole milliseconds from 0 to 60000, got "${raw}"`);
  return ms === 0 ? undefined : ms;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
function parseLogLevel(raw: string | undefined): Config['logLevel'] {
  if (!raw) return 'info';
  const level = raw.toLowerCase() as Config['logLevel'];
  if (!LOG_LEVELS.includes(level))
    throw new Error(`PDS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level;
}

function parseSlots(raw: string | undefined): number | undefined {
  const value = Math.floor(Number(raw ?? 0));
  return Number.isFinite(value) && value > 0 ? Math.min(value, 256) : undefined;
}

function parseRate(raw: string | undefined): number {
  const value = Number(raw ?? 0);
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

/** The products' freshness window (domain/products/catalog PRODUCT_FRESHNESS_MS). */
const DAY_MS = 24 * 60 * 60 * 1000;

function parseMaxAge(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`PDS_AGENTIC_VERIFY_MAX_AGE_MS must be a number of milliseconds >= 0, got "${raw}"`);
  return Math.floor(value);
}

/** The webhook backoff: 1, 5, 15 and 60 minutes unless configured. */
export function parseRetryDelays(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return [60, 300, 900, 3600];
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (delays.length > 20 || delays.some((d) => !Number.isInteger(d) || d < 0 || d > 86_400))
    throw new Error(
      `PDS_WEBHOOK_RETRY_DELAYS must be at most 20 comma-separated whole seconds (0 to 86400), got "${raw}"`,
    );
  return delays;
}
