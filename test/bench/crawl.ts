// `npm run bench -- crawl`: a 10,000-product Shopify-like store and a 10,000-product sitemap-only
// store crawled (a) through the local state machine (POST /v2/crawl, poll GET /v2/crawl/{id}) and
// (b) by Crawlee's CheerioCrawler following links from the home page, in the same run; then the
// 100,000-product store through the service (peak RSS, goal < 500 MB) and GET /v2/listings page 1
// vs page 1,000 of that vendor. Requests are counted at the store simulator, so both sides are
// measured the same way. Each side runs in its own child process (the simulator stays in this
// one), so its peak RSS is its own. Politeness delay 0 on both sides.
// Env: CRAWL_BENCH_SIZE (default 10000), CRAWL_BENCH_HUGE (default 100000; 0 skips that part),
// CRAWL_BENCH_PARTS (default "shopify,sitemap,huge").
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStoreSimulator, type RequestCounts, type StoreSimulator } from '../stores';
import { countSdkCalls } from './_count-hook';
import {
  crawlThroughService,
  measureListingsPages,
  memorySampler,
  readAllCollections,
  readAllListings,
  runCrawlee,
  seconds,
  startBenchService,
} from './_crawl-kit';

const SIZE = Number(process.env.CRAWL_BENCH_SIZE ?? 10_000);
const HUGE_SIZE = Number(process.env.CRAWL_BENCH_HUGE ?? 100_000);
const PARTS = new Set((process.env.CRAWL_BENCH_PARTS ?? 'shopify,sitemap,huge').split(','));
const SHOPIFY = 'shopify-collections.test';
const SITEMAP = 'sitemap-only.test';
const HUGE = 'shopify-huge.test';
const CHILD_ENV = 'PDS_BENCH_CRAWL_CHILD';
const here = dirname(fileURLToPath(import.meta.url));

type Job =
  | { side: 'crawlee'; origin: string; maxRequests: number }
  | { side: 'service'; resolveEnv: string; vendor: string; readListings: boolean; pagingSamples: number };

interface ServiceResult {
  ok: true;
  status: string;
  error: string | null;
  ms: number;
  listingsTotal: number;
  collectionsTotal: number;
  listingUrls: string[];
  listedTotal: number;
  collections: Array<{ url: string; products_total: number }>;
  peakRssMb: number;
  /** RSS of the booted service just before the crawl starts (modules, engines, empty tables). */
  rssAtStartMb: number;
  peakHeapMb: number;
  /** CPU seconds (user + system) of the child process during the crawl: less sensitive than wall time to other load on the machine. */
  cpuS: number;
  paging: Array<{ page: number; items: number; p50: number; p90: number }>;
  /** AWS SDK calls of the crawl by command (embedded DynamoDB, SQS, Step Functions). */
  sdkCalls: Array<[string, number]>;
  /** meta.duration_ms: the execution's own duration. */
  durationMs: number | null;
}
interface PeerResult {
  ok: true;
  ms: number;
  requests: number;
  failed: number;
  listingPaths: string[];
  peakRssMb: number;
  cpuS: number;
}
type Failed = { ok: false; error: string };

async function runJob(job: Job): Promise<ServiceResult | PeerResult> {
  const memory = memorySampler();
  const cpu = process.cpuUsage();
  const cpuSeconds = () => {
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1e6;
  };
  if (job.side === 'crawlee') {
    const run = await runCrawlee(job.origin, job.maxRequests);
    return { ok: true, ...run, peakRssMb: memory.stop(), cpuS: cpuSeconds() };
  }
  const svc = await startBenchService({ resolveEnv: job.resolveEnv, workerConcurrency: 4 });
  try {
    const calls = countSdkCalls();
    calls.reset();
    const rssAtStartMb = process.memoryUsage.rss() / (1024 * 1024);
    const run = await crawlThroughService(svc, job.vendor);
    const sdkCalls = calls.counts();
    const cpuS = cpuSeconds();
    const peakRssMb = memory.stop();
    const listed =
      job.readListings && run.status === 'completed'
        ? await readAllListings(svc, job.vendor)
        : { urls: [], totalItems: 0 };
    const collections = run.status === 'completed' ? await readAllCollections(svc, job.vendor) : [];
    const paging =
      job.pagingSamples > 0 && run.status === 'completed'
        ? await measureListingsPages(
            svc,
            job.vendor,
            [1, Math.max(2, Math.min(1000, Math.ceil(run.listingsTotal / 100)))],
            job.pagingSamples,
          )
        : [];
    return {
      ok: true,
      status: run.status,
      error: run.error,
      ms: run.ms,
      listingsTotal: run.listingsTotal,
      collectionsTotal: run.collectionsTotal,
      listingUrls: listed.urls,
      listedTotal: listed.totalItems,
      collections,
      peakRssMb,
      peakHeapMb: memory.peakHeapMb(),
      rssAtStartMb,
      cpuS,
      paging,
      sdkCalls,
      durationMs: run.body.meta?.duration_ms ?? null,
    };
  } finally {
    await svc.stop();
  }
}

/**
 * Runs one job in a child process (same bench entry, job in the environment). The answer comes
 * back in a file: the child's stdout carries the service's own logs.
 */
function inChild<T>(job: Job): Promise<T | Failed> {
  const dir = mkdtempSync(join(tmpdir(), 'pds-bench-crawl-child-'));
  const resultFile = join(dir, 'result.json');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'run.ts'), 'crawl'], {
      env: { ...process.env, [CHILD_ENV]: JSON.stringify({ job, resultFile }) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString('utf8')).slice(-2000);
    });
    // Bounded: a side that hangs is reported, not waited for forever.
    const timer = setTimeout(() => child.kill('SIGKILL'), 40 * 60 * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(readFileSync(resultFile, 'utf8')));
      } catch {
        resolve({ ok: false, error: `child exited ${code} without a result: ${errors.slice(-500)}` });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

const key = (url: string) => {
  const u = new URL(url);
  return `${u.hostname.replace(/^www\./, '')}${u.pathname.replace(/\/$/, '')}`;
};
const fmt = (n: number) => n.toLocaleString('en-US');
const sdk = (calls: Array<[string, number]>) =>
  `${fmt(calls.reduce((sum, [, n]) => sum + n, 0))} AWS SDK calls (${calls
    .slice(0, 6)
    .map(([name, n]) => `${name.replace(/Command$/, '')} ${fmt(n)}`)
    .join(', ')})`;
const kinds = (c: RequestCounts) =>
  (['api', 'sitemap', 'listing', 'product', 'robots', 'asset', 'other'] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${k} ${fmt(c[k])}`)
    .join(', ');

function compareListings(sim: StoreSimulator, host: string, found: string[]) {
  const truth = new Set(sim.catalog(host).listingUrls().map(key));
  const seen = new Set(found.map(key));
  let hits = 0;
  for (const k of seen) if (truth.has(k)) hits++;
  return { truth: truth.size, found: hits, extra: seen.size - hits, duplicates: found.length - seen.size };
}

function compareCollections(
  sim: StoreSimulator,
  host: string,
  collections: Array<{ url: string; products_total: number }>,
) {
  const truth = new Map(sim.catalog(host).collections.map((c) => [key(c.url), c.size()]));
  const exact = collections.filter((c) => truth.get(key(c.url)) === c.products_total).length;
  return { truth: truth.size, reported: collections.length, exact };
}

async function compareStore(sim: StoreSimulator, host: string) {
  const catalog = sim.catalog(host);
  console.log(
    `  ${host}: ${fmt(catalog.listingCount())} listings in ${catalog.collections.length} collections (${catalog.kind} store)`,
  );

  sim.resetRequestCounts(host);
  const origin = await sim.listenAs(host);
  const peer = await inChild<PeerResult>({ side: 'crawlee', origin, maxRequests: Math.ceil(SIZE * 1.5) + 2000 });
  const peerCounts = sim.requestCounts(host);
  if (peer.ok) {
    const p = compareListings(
      sim,
      host,
      peer.listingPaths.map((path) => `https://${host}${path}`),
    );
    console.log(
      `    Crawlee CheerioCrawler: ${seconds(peer.ms)} (CPU ${peer.cpuS.toFixed(1)} s), ${fmt(peerCounts.total)} requests at the store (${kinds(peerCounts)}; Crawlee counted ${fmt(peer.requests)}, ${peer.failed} failed), ${fmt(p.found)}/${fmt(p.truth)} listings found, peak RSS ${peer.peakRssMb.toFixed(0)} MB`,
    );
  } else console.log(`    Crawlee CheerioCrawler: did not finish: ${peer.error}`);

  sim.resetRequestCounts(host);
  const svc = await inChild<ServiceResult>({
    side: 'service',
    resolveEnv: sim.resolveEnv,
    vendor: host,
    readListings: true,
    pagingSamples: 0,
  });
  const svcCounts = sim.requestCounts(host);
  if (!svc.ok || svc.status !== 'completed') {
    console.log(
      `    service (local state machine): did not complete: ${svc.ok ? `${svc.status} ${svc.error ?? ''}` : svc.error}`,
    );
    return;
  }
  const s = compareListings(sim, host, svc.listingUrls);
  const c = compareCollections(sim, host, svc.collections);
  console.log(
    `    service (local state machine): ${seconds(svc.ms)} (CPU ${svc.cpuS.toFixed(1)} s, service + embedded engines), ${fmt(svcCounts.total)} requests at the store (${kinds(svcCounts)}), ${fmt(s.found)}/${fmt(s.truth)} listings found (listings_total ${fmt(svc.listingsTotal)}, GET /v2/listings total_items ${fmt(svc.listedTotal)}, ${s.extra} extra, ${s.duplicates} duplicates), ${c.exact}/${c.truth} collections with the exact products_total (${c.reported} reported), peak RSS ${svc.peakRssMb.toFixed(0)} MB (${svc.rssAtStartMb.toFixed(0)} MB booted before the crawl; V8 heap ${svc.peakHeapMb.toFixed(0)} MB); ${sdk(svc.sdkCalls)}`,
  );
  if (peer.ok) {
    const faster = peer.ms / svc.ms;
    const fewer = peerCounts.total / svcCounts.total;
    const met = faster >= 10 && fewer >= 10 && s.found === s.truth;
    console.log(
      `    ratios: ${faster.toFixed(1)}x faster (${(peer.cpuS / svc.cpuS).toFixed(1)}x less CPU), ${fewer.toFixed(1)}x fewer requests than Crawlee${host === SHOPIFY ? ` (goal >= 10x both, all listings found: ${met ? 'MET' : 'NOT MET'})` : ''}`,
    );
  }
}

export default async function main(): Promise<void> {
  const child = process.env[CHILD_ENV];
  if (child) {
    const { job, resultFile } = JSON.parse(child) as { job: Job; resultFile: string };
    let result: ServiceResult | PeerResult | Failed;
    try {
      result = await runJob(job);
    } catch (error) {
      result = { ok: false, error: (error as Error).message ?? String(error) };
    }
    writeFileSync(resultFile, JSON.stringify(result));
    // Crawlee and the pollers may leave timers behind: the child's answer is out, end it.
    process.exit(0);
  }

  const sim = await startStoreSimulator({
    storeSizes: { [SHOPIFY]: SIZE, [SITEMAP]: SIZE, [HUGE]: Math.max(1, HUGE_SIZE) },
  });
  try {
    console.log(
      `crawl: ${fmt(SIZE)}-product stores, the service's crawl (local state machine, PDS_CRAWL_DELAY_MS=0) beside Crawlee ${crawleeVersion()} CheerioCrawler following links from the home page (no delay); requests counted at the store simulator`,
    );
    if (PARTS.has('shopify')) await compareStore(sim, SHOPIFY);
    if (PARTS.has('sitemap')) await compareStore(sim, SITEMAP);
    if (HUGE_SIZE > 0 && PARTS.has('huge')) {
      sim.resetRequestCounts(HUGE);
      // This process holds only the simulator: its peak shows the lazy store stays flat.
      const simBefore = process.memoryUsage.rss() / (1024 * 1024);
      const simMemory = memorySampler();
      const huge = await inChild<ServiceResult>({
        side: 'service',
        resolveEnv: sim.resolveEnv,
        vendor: HUGE,
        readListings: false,
        pagingSamples: 30,
      });
      const counts = sim.requestCounts(HUGE);
      const simPeak = simMemory.stop();
      if (!huge.ok || huge.status !== 'completed') {
        console.log(
          `  ${HUGE} (${fmt(HUGE_SIZE)} products): did not complete: ${huge.ok ? `${huge.status} ${huge.error ?? ''}` : huge.error}`,
        );
      } else {
        const c = compareCollections(sim, HUGE, huge.collections);
        console.log(
          `  ${HUGE}: ${fmt(HUGE_SIZE)} products through the service: ${seconds(huge.ms)} (CPU ${huge.cpuS.toFixed(1)} s), ${fmt(counts.total)} requests (${kinds(counts)}), listings_total ${fmt(huge.listingsTotal)}/${fmt(sim.catalog(HUGE).listingCount())}, ${c.exact}/${c.truth} exact collections, peak RSS ${huge.peakRssMb.toFixed(0)} MB (${huge.rssAtStartMb.toFixed(0)} MB booted before the crawl; V8 heap ${huge.peakHeapMb.toFixed(0)} MB; goal < 500 MB: ${huge.peakRssMb < 500 ? 'MET' : 'NOT MET'}); ${sdk(huge.sdkCalls)}`,
        );
        console.log(
          `    the store simulator serving it (this process): RSS ${simBefore.toFixed(0)} MB before, peak ${simPeak.toFixed(0)} MB during the crawl`,
        );
        const [first, thousandth] = huge.paging;
        if (first && thousandth) {
          const ratio = thousandth.p50 / first.p50;
          console.log(
            `  GET /v2/listings of that vendor, page_size 100, 30 samples each: page 1 p50 ${first.p50.toFixed(1)} ms (p90 ${first.p90.toFixed(1)}), page ${fmt(thousandth.page)} p50 ${thousandth.p50.toFixed(1)} ms (p90 ${thousandth.p90.toFixed(1)}, ${thousandth.items} items): ${ratio.toFixed(2)}x (goal within 2x: ${ratio <= 2 ? 'MET' : 'NOT MET'})`,
          );
        }
      }
    }
  } finally {
    await sim.close();
  }
}

function crawleeVersion(): string {
  try {
    return JSON.parse(readFileSync(join(here, '../../node_modules/@crawlee/cheerio/package.json'), 'utf8')).version;
  } catch {
    return '';
  }
}
