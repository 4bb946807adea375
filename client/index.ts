// The typed client of the Product Data Service: openapi-fetch over the types generated from the
// served OpenAPI document (client/schema.d.ts, `npm run client:generate`), plus the helpers every
// integration writes for itself otherwise:
//   - 429 is retried after the response's Retry-After (seconds or HTTP date), a bounded number of
//     times, for every call (a 429 never started anything, so retrying a start is safe);
//   - waitFor(executionId, {kind}) polls the status operation at the spec's suggested intervals
//     (extractions every 5-10 s, 30-60 s while waiting on a crawl; crawls every 10-30 s), reports
//     progress and gives up at a maximum wait;
//   - paginate / extractResults / executions page through v2 lists.
// Used by the `pds` CLI (bin/pds.ts) and the e2e tests; nothing here reads the environment.
import createClient, { type Client } from 'openapi-fetch';
import { PdsApiError, PdsTimeoutError, PdsUnreachableError } from './errors';
import type { paths } from './schema';

export { PdsApiError, PdsTimeoutError, PdsUnreachableError } from './errors';
export type { components, operations, paths } from './schema';

export type Kind = 'extract' | 'crawl' | 'agentic';
export type Family = 'v1' | 'v2';

type Json<P extends keyof paths, M extends 'get' | 'post', S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

export type V2ExtractStatus = Json<'/v2/extract/{execution_id}', 'get', 200>;
export type V2CrawlStatus = Json<'/v2/crawl/{execution_id}', 'get', 200>;
export type V2AgenticStatus = Json<'/v2/agentic-search/{execution_id}', 'get', 200>;
export type V1ProductsStatus = Json<'/v1/products/{execution_id}', 'get', 200>;
export type V1CrawlStatus = Json<'/v1/crawl/{execution_id}', 'get', 200>;
export type PerUrlResult = NonNullable<V2ExtractStatus['data']>[number];
export type ExecutionSummary = Json<'/v2/extract', 'get', 200>['data'][number];

/** The final status body waitFor returns, by kind and family. */
export type StatusOf<K extends Kind, F extends Family = 'v2'> = F extends 'v1'
  ? K extends 'crawl'
    ? V1CrawlStatus
    : V1ProductsStatus
  : K extends 'extract'
    ? V2ExtractStatus
    : K extends 'crawl'
      ? V2CrawlStatus
      : V2AgenticStatus;

/** A polling interval range: the first wait is `minMs`, each further one 1.5x longer, up to `maxMs`. */
export interface PollInterval {
  minMs: number;
  maxMs: number;
}

export interface PollIntervals {
  extract: PollInterval;
  /** An extraction whose status names `meta.waiting_for` (vendor mode waiting on a crawl). */
  extractWaitingOnCrawl: PollInterval;
  crawl: PollInterval;
  /** Not in the spec; agentic searches finish in well under a second to a few seconds. */
  agentic: PollInterval;
}

/** The spec's suggested polling ("Events"): crawls 10-30 s, extractions 5-10 s, 30-60 s while waiting on a crawl. */
export const SPEC_POLL_INTERVALS: PollIntervals = {
  extract: { minMs: 5_000, maxMs: 10_000 },
  extractWaitingOnCrawl: { minMs: 30_000, maxMs: 60_000 },
  crawl: { minMs: 10_000, maxMs: 30_000 },
  agentic: { minMs: 2_000, maxMs: 5_000 },
};

/** Default maximum wait of waitFor (the spec advises a client-side maximum). */
export const DEFAULT_TIMEOUT_MS = 60 * 60 * 1000;

/** One status read, the same shape for every kind and family. */
export interface WaitProgress {
  executionId: string;
  kind: Kind;
  status: 'pending' | 'running' | 'completed' | 'failed';
  /** URLs finished (extract), listings found (crawl), candidates verified or dropped (agentic). */
  processed: number;
  /** URLs requested (extract), candidates (agentic); null while unknown and for crawls (no total). */
  total: number | null;
  /** Crawl: the running step's name; agentic: the step. */
  step?: string;
  /** Crawl: steps finished of `stepsTotal`. */
  stepsDone?: number;
  stepsTotal?: number;
  /** Vendor-mode extraction: the crawl it waits for. */
  waitingFor?: string;
  /** Status reads so far, this one included. */
  polls: number;
  elapsedMs: number;
  body: unknown;
}

export interface WaitOptions<K extends Kind, F extends Family = 'v2'> {
  kind: K;
  family?: F;
  /** Maximum wait; PdsTimeoutError after it. Default 1 hour. */
  timeoutMs?: number;
  onProgress?: (progress: WaitProgress) => void;
  /** Overrides of the spec's intervals (tests, impatient scripts). */
  intervals?: Partial<PollIntervals>;
  signal?: AbortSignal;
}

export interface PdsClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Default polling intervals of waitFor (default SPEC_POLL_INTERVALS). */
  intervals?: Partial<PollIntervals>;
  /** 429 retries per call before the 429 is returned (default 5). */
  maxRateLimitRetries?: number;
  /** Longest single Retry-After wait honoured (default 60 s; longer ones are capped). */
  maxRetryAfterMs?: number;
  /**
   * Retries of a request that is safe to repeat (GET, or a start carrying an Idempotency-Key) after
   * a network failure or a 502/503/504 (default 2, after 0.5 s and 1 s).
   */
  maxNetworkRetries?: number;
  /**
   * Give every start operation without an Idempotency-Key header a fresh one (default true), so the
   * retries above can never start the same work twice.
   */
  idempotentStarts?: boolean;
  /** Sleeps (tests record them); default a timer that an AbortSignal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
}

export interface PdsClient {
  /** The typed openapi-fetch client: `api.GET('/v2/vendors', { params: { query: { page_size: 10 } } })`. */
  api: Client<paths>;
  baseUrl: string;
  waitFor<K extends Kind, F extends Family = 'v2'>(
    executionId: string,
    options: WaitOptions<K, F>,
  ): Promise<StatusOf<K, F>>;
  /** Every per-URL result of a v2 extraction, page by page (input order). */
  extractResults(
    executionId: string,
    options?: { pageSize?: number; maxPages?: number },
  ): AsyncGenerator<PerUrlResult[]>;
  /** The organization's v2 executions of one kind, most recent first, page by page. */
  executions(
    kind: 'extract' | 'crawl',
    options?: { status?: 'processing' | 'completed' | 'failed'; pageSize?: number; maxPages?: number },
  ): AsyncGenerator<ExecutionSummary[]>;
}

const MAX_POLLS = 100_000;

/** The start operations (POST), which accept an Idempotency-Key. */
const START_PATHS = new Set([
  '/v2/extract',
  '/v2/crawl',
  '/v2/agentic-search',
  '/v1/products',
  '/v1/extract',
  '/v1/crawl',
]);
const IDEMPOTENCY_HEADER = 'idempotency-key';

export const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Milliseconds a 429 asks to wait: Retry-After in seconds or as an HTTP date; `fallbackMs` without one. */
export function retryAfterMs(headers: Headers, fallbackMs: number, now = Date.now()): number {
  const value = headers.get('retry-after')?.trim();
  if (!value) return fallbackMs;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? fallbackMs : Math.max(0, date - now);
}

/** Data of an openapi-fetch result, or PdsApiError with the status and body. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  throw new PdsApiError(result.response.status, result.error ?? null, what);
}

/**
 * Pages through a paginated v2 read: `fetchPage(page)` returns one page's body; stops after the
 * page without `pagination.has_next`, an empty page, or `maxPages`.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<{ data?: T[]; pagination?: { has_next: boolean } }>,
  { maxPages = 10_000 }: { maxPages?: number } = {},
): AsyncGenerator<T[]> {
  for (let page = 1; page <= maxPages; page++) {
    const body = await fetchPage(page);
    const items = body.data ?? [];
    if (items.length) yield items;
    if (!body.pagination?.has_next || !items.length) return;
  }
}

function statusPath(kind: Kind, family: Family, executionId: string): string {
  const id = encodeURIComponent(executionId);
  if (family === 'v2') return `/v2/${kind === 'agentic' ? 'agentic-search' : kind}/${id}`;
  if (kind === 'agentic') throw new Error('v1 agentic search is synchronous: there is nothing to wait for');
  if (kind === 'crawl') return `/v1/crawl/${id}`;
  // v1 URL-list extractions are products-batch-<uuid>; vendor extractions are read under /v1/extract.
  return executionId.startsWith('products-batch-') ? `/v1/products/${id}` : `/v1/extract/${id}`;
}

/** The uniform progress of one status body. */
export function progressOf(
  kind: Kind,
  family: Family,
  body: any,
): Omit<WaitProgress, 'executionId' | 'polls' | 'elapsedMs'> {
  const status = body?.status;
  if (family === 'v1') {
    if (kind === 'crawl') return { kind, status, processed: body.total_listings_found ?? 0, total: null, body };
    return {
      kind,
      status,
      processed: body.progress?.urls_completed ?? 0,
      total: body.progress?.total_urls ?? null,
      body,
    };
  }
  if (kind === 'extract') {
    const progress = body.meta?.progress;
    return {
      kind,
      status,
      processed: progress?.products_processed ?? 0,
      total: progress ? progress.products_total : null,
      ...(body.meta?.waiting_for ? { waitingFor: body.meta.waiting_for } : {}),
      body,
    };
  }
  if (kind === 'crawl') {
    const steps: Array<{ name: string; status: string }> = body.meta?.steps ?? [];
    const running = steps.find((s) => s.status !== 'completed' && s.status !== 'pending') ?? undefined;
    return {
      kind,
      status,
      processed: body.meta?.progress?.listings_found ?? body.meta?.result?.listings_total ?? 0,
      total: null,
      ...(running ? { step: running.name } : {}),
      stepsDone: steps.filter((s) => s.status === 'completed').length,
      stepsTotal: steps.length,
      body,
    };
  }
  const progress = body.meta?.progress;
  return {
    kind,
    status,
    processed: (progress?.candidates_verified ?? 0) + (progress?.candidates_dropped ?? 0),
    total: progress?.candidates_total || null,
    ...(progress?.step ? { step: progress.step } : {}),
    body,
  };
}

export function createPdsClient(options: PdsClientOptions): PdsClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const sleep = options.sleep ?? defaultSleep;
  const maxRetries = options.maxRateLimitRetries ?? 5;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const baseFetch = options.fetch ?? globalThis.fetch;
  const defaultIntervals: PollIntervals = { ...SPEC_POLL_INTERVALS, ...options.intervals };

  const maxNetworkRetries = options.maxNetworkRetries ?? 2;

  /**
   * fetch with bounded 429 retries after Retry-After, and bounded retries of a repeatable request
   * (GET, or a start with an Idempotency-Key) after a network failure or a 502/503/504; a network
   * failure left over becomes PdsUnreachableError.
   */
  const fetchWithRetry = async (request: Request): Promise<Response> => {
    const repeatable = request.method === 'GET' || request.method === 'HEAD' || request.headers.has(IDEMPOTENCY_HEADER);
    let rateLimited = 0;
    let failures = 0;
    let conflicts = 0;
    for (let attempt = 0; attempt <= maxRetries + maxNetworkRetries + 3; attempt++) {
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (error) {
        if ((error as Error)?.name === 'AbortError') throw error;
        if (!repeatable || failures >= maxNetworkRetries) throw new PdsUnreachableError(baseUrl, error);
        await sleep(500 * 2 ** failures++, request.signal);
        continue;
      }
      let wait: number | undefined;
      if (response.status === 429 && rateLimited < maxRetries) {
        wait = Math.min(maxRetryAfterMs, retryAfterMs(response.headers, 1000 * 2 ** rateLimited++));
      } else if (repeatable && [502, 503, 504].includes(response.status) && failures < maxNetworkRetries) {
        wait = 500 * 2 ** failures++;
      } else if (response.status === 409 && failures > 0 && request.headers.has(IDEMPOTENCY_HEADER) && conflicts < 3) {
        // A retried start whose first attempt is still being answered: ask again a moment later.
        wait = 1000 * ++conflicts;
      }
      if (wait === undefined) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
    throw new PdsUnreachableError(baseUrl, new Error('too many retries'));
  };

  const api = createClient<paths>({
    baseUrl,
    headers: { 'x-api-key': options.apiKey },
    fetch: fetchWithRetry,
  });
  if (options.idempotentStarts ?? true) {
    api.use({
      onRequest({ request, schemaPath }) {
        if (request.method === 'POST' && START_PATHS.has(schemaPath) && !request.headers.has(IDEMPOTENCY_HEADER))
          request.headers.set(IDEMPOTENCY_HEADER, globalThis.crypto.randomUUID());
        return request;
      },
    });
  }

  async function waitFor<K extends Kind, F extends Family = 'v2'>(
    executionId: string,
    waitOptions: WaitOptions<K, F>,
  ): Promise<StatusOf<K, F>> {
    const { kind, onProgress, signal } = waitOptions;
    const family: Family = waitOptions.family ?? 'v2';
    const timeoutMs = waitOptions.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const intervals: PollIntervals = { ...defaultIntervals, ...waitOptions.intervals };
    const path = statusPath(kind, family, executionId);
    const started = Date.now();
    const deadline = started + timeoutMs;
    let last: unknown;
    let wait = 0;
    let range: PollInterval | undefined;

    for (let polls = 1; polls <= MAX_POLLS; polls++) {
      signal?.throwIfAborted();
      const { data, error, response } = await api.GET(path as any, { signal } as any);
      if (response.status === 429) {
        // The client's own retries were used up: keep waiting as long as the maximum wait allows.
        const pause = Math.min(retryAfterMs(response.headers, 5_000), deadline - Date.now());
        if (pause <= 0) throw new PdsTimeoutError(executionId, timeoutMs, last);
        await sleep(pause, signal);
        continue;
      }
      if (!response.ok) throw new PdsApiError(response.status, error ?? null, `GET ${path}`);
      last = data;
      const progress = progressOf(kind, family, data);
      onProgress?.({ ...progress, executionId, polls, elapsedMs: Date.now() - started });
      if (progress.status === 'completed' || progress.status === 'failed') return data as StatusOf<K, F>;

      const wanted =
        kind === 'extract'
          ? progress.waitingFor
            ? intervals.extractWaitingOnCrawl
            : intervals.extract
          : kind === 'crawl'
            ? intervals.crawl
            : intervals.agentic;
      // A new range (e.g. the crawl an extraction waited for finished) starts again at its minimum.
      wait = range === wanted ? Math.min(wanted.maxMs, Math.round(wait * 1.5)) : wanted.minMs;
      range = wanted;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new PdsTimeoutError(executionId, timeoutMs, last);
      await sleep(Math.min(wait, remaining), signal);
    }
    throw new PdsTimeoutError(executionId, timeoutMs, last);
  }

  return {
    api,
    baseUrl,
    waitFor,
    extractResults(executionId, { pageSize = 100, maxPages } = {}) {
      return paginate(
        async (page) =>
          unwrap(
            await api.GET('/v2/extract/{execution_id}', {
              params: { path: { execution_id: executionId }, query: { page, page_size: pageSize } },
            }),
            `GET /v2/extract/${executionId}`,
          ),
        { maxPages },
      );
    },
    executions(kind, { status, pageSize = 100, maxPages } = {}) {
      const path = kind === 'extract' ? ('/v2/extract' as const) : ('/v2/crawl' as const);
      return paginate(
        async (page) =>
          unwrap(
            await api.GET(path, { params: { query: { page, page_size: pageSize, ...(status ? { status } : {}) } } }),
            `GET ${path}`,
          ),
        { maxPages },
      );
    },
  };
}
