// `npm run bench -- agentic-search`: what agentic search costs a caller, through HTTP on the
// local runtime, over a catalog extracted from the store simulator (loopback only):
//   - v1 /v1/agentic-search with fresh stored records reused (the default freshness window),
//   - the same with every candidate's page read live (PDS_AGENTIC_VERIFY_MAX_AGE_MS=0),
//   - v2 /v2/agentic-search, start to completed through the state machine and the SQS verifiers,
// beside the peer a client would build without it: /v2/agentic-search-mini for candidates, then
// /api/products with force_extraction for the best 8 (a fresh read of every page), in the same run.
// Politeness delay 0 on every side (the simulator is local); bounded in count and time.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';

const KEY = 'bench-agentic-key-0123456789';
const HOSTS = ['shopify-apparel.test', 'jsonld-shop.test', 'woo-home.test', 'microdata-shop.test'];
const PER_HOST = 60;
const QUERIES = 24;
const MAX_MS = 240_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(service: LocalService, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const parsed = await response.json();
  if (response.status >= 400)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 200)}`);
  return parsed;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, deadline: number): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error('bench: out of time');
    await sleep(25);
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const row = (name: string, ms: number[], products: number[], extra = '') =>
  console.log(
    `${name.padEnd(58)} p50 ${quantile(ms, 0.5).toFixed(0).padStart(5)} ms  p95 ${quantile(ms, 0.95).toFixed(0).padStart(5)} ms  products/query ${(products.reduce((a, b) => a + b, 0) / products.length).toFixed(1)}${extra}`,
  );

/** Shopper-style queries from the simulator's ground truth: "<material> <noun>". */
function queries(sim: StoreSimulator): string[] {
  const out = new Set<string>();
  for (let i = 0; out.size < QUERIES && i < PER_HOST; i++) {
    for (const host of HOSTS) {
      const [, material, ...noun] = sim.store(host).product(i).title.split(' ');
      out.add(`${material} ${noun.join(' ')}`.toLowerCase());
      if (out.size >= QUERIES) break;
    }
  }
  return [...out];
}

async function boot(dataDir: string, sim: StoreSimulator, env: Record<string, string> = {}): Promise<LocalService> {
  return startLocalService({
    port: 0,
    dataDir,
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RATE_LIMIT: '1000:2000',
      PDS_LOG_LEVEL: 'error',
      ...env,
    },
    bootstrapKeys: `${KEY}:bench-org`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
}

export default async function main(): Promise<void> {
  const deadline = Date.now() + MAX_MS;
  const sim = await startStoreSimulator({ productsPerStore: PER_HOST });
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-agentic-'));
  let service = await boot(dataDir, sim);
  try {
    const urls = HOSTS.flatMap((host) => Array.from({ length: PER_HOST }, (_, i) => sim.store(host).productUrl(i)));
    const started = Date.now();
    const job = await call(service, 'POST', '/v2/extract', { urls, enable_enrichment: true });
    const done = await until(
      () => call(service, 'GET', `/v2/extract/${job.execution_id}?page_size=1`),
      (b) => b.status !== 'pending' && b.status !== 'running',
      deadline,
    );
    await until(
      () => call(service, 'GET', '/api/feed?limit=1'),
      (b) => b.meta.totalItems >= done.meta.result.products_successful,
      deadline,
    );
    const qs = queries(sim);
    console.log(
      `catalog: ${done.meta.result.products_successful} products from ${HOSTS.length} simulator hosts, extracted and indexed in ${Date.now() - started} ms; ${qs.length} queries; load average ${loadavg()[0].toFixed(2)}`,
    );

    // Warm-up: the index, the extraction engine and the connections of every path.
    await call(service, 'POST', '/v1/agentic-search', { query: qs[0] });
    await call(service, 'POST', '/v2/agentic-search-mini', { query: qs[0] });

    const measure = async (name: string, run: (query: string) => Promise<number>, extra?: () => string) => {
      const ms: number[] = [];
      const products: number[] = [];
      for (const query of qs) {
        if (Date.now() > deadline) break;
        const t0 = performance.now();
        products.push(await run(query));
        ms.push(performance.now() - t0);
      }
      row(name, ms, products, extra?.() ?? '');
    };

    const pageReads = () =>
      HOSTS.reduce(
        (sum, host) =>
          sum +
          Array.from({ length: PER_HOST }, (_, i) => sim.hits(host, sim.store(host).productPath(i))).reduce(
            (a, b) => a + b,
            0,
          ),
        0,
      );

    let reads = pageReads();
    await measure(
      'v1 agentic-search, fresh stored records reused',
      async (query) => (await call(service, 'POST', '/v1/agentic-search', { query })).products.length,
      () => {
        const now = pageReads();
        const line = `  page reads ${now - reads}`;
        reads = now;
        return line;
      },
    );
    await measure('v2 agentic-search, start -> completed (state machine + SQS)', async (query) => {
      const { execution_id } = await call(service, 'POST', '/v2/agentic-search', { query, page_size: 8 });
      const body = await until(
        () => call(service, 'GET', `/v2/agentic-search/${execution_id}`),
        (b) => b.status === 'completed' || b.status === 'failed',
        deadline,
      );
      return body.data?.length ?? 0;
    });
    reads = pageReads();
    await measure(
      'peer: mini search + /api/products force_extraction (top 8)',
      async (query) => {
        const mini = await call(service, 'POST', '/v2/agentic-search-mini', { query, page_size: 8 });
        if (!mini.data.length) return 0;
        const extracted = await call(service, 'POST', '/api/products', {
          urls: mini.data.map((d: any) => d.url),
          force_extraction: true,
        });
        return extracted.products.filter((p: any) => p.success).length;
      },
      () => `  page reads ${pageReads() - reads}`,
    );

    // Live verification: the same service data, every candidate's page read again.
    await service.stop(2000);
    service = await boot(dataDir, sim, { PDS_AGENTIC_VERIFY_MAX_AGE_MS: '0' });
    await until(
      () => call(service, 'GET', '/api/feed?limit=1'),
      (b) => b.meta.totalItems >= done.meta.result.products_successful,
      deadline,
    );
    await call(service, 'POST', '/v1/agentic-search', { query: qs[0] });
    reads = pageReads();
    await measure(
      'v1 agentic-search, every candidate read live',
      async (query) => (await call(service, 'POST', '/v1/agentic-search', { query })).products.length,
      () => `  page reads ${pageReads() - reads}`,
    );
  } finally {
    await service.stop(2000);
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
