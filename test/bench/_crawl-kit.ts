// Shared parts of the crawl benchmarks (crawl, crawl-faults, listings-paging): the local service
// driven over real HTTP (POST /v2/crawl, poll GET /v2/crawl/{id}, page GET /v2/listings), the
// Crawlee CheerioCrawler peer, and a peak-memory sampler. Every loop is bounded in count and time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalService } from '../../lambdas/local/service';

const MB = 1024 * 1024;

/** Peak RSS (returned by stop, MB) and peak V8 heap (`peakHeapMb()`), sampled every everyMs. */
export function memorySampler(everyMs = 100) {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const timer = setInterval(sample, everyMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peakRss / MB;
    },
    peakHeapMb: () => peakHeap / MB,
  };
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export interface BenchService {
  service: LocalService;
  key: string;
  request<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

const KEY = 'bench-crawl-key-0000001';
const ORG = 'bench-crawl';

/** The whole local service (embedded engines, state machines, pollers, HTTP) on port 0, its own data dir. */
export async function startBenchService(options: {
  resolveEnv: string;
  env?: Record<string, string>;
  workerConcurrency?: number;
  queueRetrySeconds?: number;
}): Promise<BenchService> {
  // Loaded here, not at module load: the Crawlee side of a bench runs without the service's modules.
  const { startLocalService } = await import('../../lambdas/local/service');
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-crawl-'));
  const service = await startLocalService({
    port: 0,
    dataDir,
    // Politeness 0 on both sides of the comparison; no rate limit on the bench's own polling.
    env: {
      PDS_RESOLVE: options.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RATE_LIMIT: '10000:20000',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
      ...options.env,
    },
    bootstrapKeys: `${KEY}:${ORG}`,
    workerConcurrency: options.workerConcurrency,
    queueRetrySeconds: options.queueRetrySeconds,
    log: () => undefined,
  });
  return {
    service,
    key: KEY,
    async request(method, path, body) {
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text for the error message
      }
      return { status: response.status, body: parsed as any };
    },
    async stop() {
      await service.stop(2000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CrawlRun {
  executionId: string;
  status: string;
  error: string | null;
  /** POST to finished, as a client sees it. */
  ms: number;
  polls: number;
  listingsTotal: number;
  collectionsTotal: number;
  /** The last status body. */
  body: any;
}

/** POST /v2/crawl, then GET /v2/crawl/{id} every pollMs until completed or failed (or timeoutMs). */
export async function crawlThroughService(
  svc: BenchService,
  vendor: string,
  options: { maxListings?: number; pollMs?: number; timeoutMs?: number; onPoll?: (body: any) => void } = {},
): Promise<CrawlRun> {
  const pollMs = options.pollMs ?? 100;
  const timeoutMs = options.timeoutMs ?? 20 * 60 * 1000;
  const started = Date.now();
  const start = await svc.request('POST', '/v2/crawl', {
    vendor,
    ...(options.maxListings ? { max_listings: options.maxListings } : {}),
  });
  if (start.status !== 202)
    throw new Error(`POST /v2/crawl answered ${start.status}: ${JSON.stringify(start.body).slice(0, 300)}`);
  const executionId: string = start.body.execution_id;
  let body: any = start.body;
  let polls = 0;
  for (; polls < timeoutMs / pollMs && Date.now() - started < timeoutMs; polls++) {
    const reply = await svc.request('GET', `/v2/crawl/${executionId}`);
    if (reply.status !== 200)
      throw new Error(
        `GET /v2/crawl/${executionId} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`,
      );
    body = reply.body;
    options.onPoll?.(body);
    if (body.status === 'completed' || body.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return {
    executionId,
    status: body.status,
    error: body.error ?? null,
    ms: Date.now() - started,
    polls,
    listingsTotal: body.meta?.result?.listings_total ?? 0,
    collectionsTotal: body.meta?.result?.collections_total ?? 0,
    body,
  };
}

/** Every listing URL of a vendor through GET /v2/listings (page_size 100), in the order served. */
export async function readAllListings(
  svc: BenchService,
  vendor: string,
  collectionUrl?: string,
): Promise<{ urls: string[]; totalItems: number }> {
  const urls: string[] = [];
  let totalItems = 0;
  for (let page = 1; page <= 10_000; page++) {
    const query = new URLSearchParams({
      vendor,
      page: String(page),
      page_size: '100',
      ...(collectionUrl ? { collection_url: collectionUrl } : {}),
    });
    const reply = await svc.request('GET', `/v2/listings?${query}`);
    if (reply.status !== 200)
      throw new Error(`GET /v2/listings answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
    totalItems = reply.body.pagination.total_items;
    urls.push(...reply.body.data.map((l: { url: string }) => l.url));
    if (!reply.body.pagination.has_next) break;
  }
  return { urls, totalItems };
}

/** Every collection of a vendor through GET /v2/collections. */
export async function readAllCollections(
  svc: BenchService,
  vendor: string,
): Promise<Array<{ url: string; products_total: number }>> {
  const out: Array<{ url: string; products_total: number }> = [];
  for (let page = 1; page <= 1000; page++) {
    const reply = await svc.request(
      'GET',
      `/v2/collections?${new URLSearchParams({ vendor, page: String(page), page_size: '100' })}`,
    );
    if (reply.status !== 200)
      throw new Error(`GET /v2/collections answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
    out.push(...reply.body.data);
    if (!reply.body.pagination.has_next) break;
  }
  return out;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** p50/p90 of GET /v2/listings for each page, requests interleaved so both see the same conditions. */
export async function measureListingsPages(
  svc: BenchService,
  vendor: string,
  pages: number[],
  samples: number,
  pageSize = 100,
) {
  const times = new Map(pages.map((p) => [p, [] as number[]]));
  const counts = new Map(pages.map((p) => [p, 0]));
  // One warm-up round: first-call costs (module load, caches) are not the steady state.
  for (const page of pages)
    await svc.request('GET', `/v2/listings?vendor=${encodeURIComponent(vendor)}&page=${page}&page_size=${pageSize}`);
  for (let round = 0; round < samples; round++) {
    for (const page of pages) {
      const started = performance.now();
      const reply = await svc.request(
        'GET',
        `/v2/listings?vendor=${encodeURIComponent(vendor)}&page=${page}&page_size=${pageSize}`,
      );
      times.get(page)!.push(performance.now() - started);
      if (reply.status !== 200) throw new Error(`GET /v2/listings page ${page} answered ${reply.status}`);
      counts.set(page, reply.body.data.length);
    }
  }
  return pages.map((page) => ({
    page,
    items: counts.get(page)!,
    p50: percentile(times.get(page)!, 50),
    p90: percentile(times.get(page)!, 90),
  }));
}

export interface PeerRun {
  ms: number;
  /** Requests Crawlee reports (finished + failed). */
  requests: number;
  failed: number;
  /** Paths of the product pages it found (pages with schema.org Product data). */
  listingPaths: string[];
}

/**
 * Crawlee's CheerioCrawler as its users run it: start at the home page, follow every same-host
 * link (enqueueLinks' default), and count a listing for every page that carries Product data.
 * In-memory storage only; nothing written to disk.
 */
export async function runCrawlee(origin: string, maxRequestsPerCrawl: number): Promise<PeerRun> {
  process.env.CRAWLEE_STORAGE_DIR ??= mkdtempSync(join(tmpdir(), 'pds-bench-crawlee-'));
  const { CheerioCrawler, Configuration, log, LogLevel } = await import('@crawlee/cheerio');
  log.setLevel(LogLevel.WARNING);
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const listings = new Set<string>();
  const crawler = new CheerioCrawler(
    {
      maxRequestsPerCrawl,
      maxRequestRetries: 2,
      requestHandlerTimeoutSecs: 30,
      async requestHandler({ $, request, enqueueLinks }) {
        const isProduct = $('script[type="application/ld+json"]')
          .toArray()
          .some((el) => /"@type"\s*:\s*"Product(Group)?"/.test($(el).text()));
        if (isProduct) listings.add(new URL(request.loadedUrl ?? request.url).pathname);
        await enqueueLinks();
      },
    },
    config,
  );
  const started = Date.now();
  const stats = await crawler.run([`${origin}/`]);
  const ms = Date.now() - started;
  rmSync(process.env.CRAWLEE_STORAGE_DIR, { recursive: true, force: true });
  return {
    ms,
    requests: stats.requestsFinished + stats.requestsFailed,
    failed: stats.requestsFailed,
    listingPaths: [...listings],
  };
}
