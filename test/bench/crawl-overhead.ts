// `npm run bench -- crawl-overhead`: the orchestration overhead of the crawl, as extract-throughput
// measures the extraction's. The same store crawled (a) by a plain loop over the crawl's own
// domain functions (method, collections, the planner's waves of listing pages read with
// CONCURRENCY pages at once, listings and collection members kept in memory) and (b) through
// the local state machine (Determining -> Discovering -> Analyzing -> waves of SQS batches of
// listing pages -> Finalize with the index rebuild; every listing, member page and outcome stored
// in the embedded DynamoDB) with CONCURRENCY batches in flight, one page at a time each. Prints
// both times (the loop's as the mean of a run before and one after the state machine's), the ratio, and the state machine's AWS SDK calls per 1000 listings (the bench's own
// status polls counted apart), for a Shopify-like store and a sitemap + HTML store.
// Env: CRAWL_OVERHEAD_SIZE (products per store, default 10000), CRAWL_OVERHEAD_HOSTS.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../../lambdas/local/service';
import { createContainer, getContainer } from '../../lambdas/composition/container';
import { crawlOf } from '../../lambdas/composition/crawl';
import { fetcherOf } from '../../lambdas/composition/fetcher';
import { loadConfig } from '../../lambdas/config';
import { eachLimited } from '../../lambdas/domain/extract-jobs/concurrency';
import {
  determineMethod,
  discoverCollections,
  pageOutcome,
  readListingPage,
} from '../../lambdas/domain/crawl/discovery';
import { planSequences, planWave } from '../../lambdas/domain/crawl/steps';
import { MAX_WAVES, type CrawlPlan, type PageOutcome } from '../../lambdas/domain/crawl/model';
import type { PageFetcher } from '../../lambdas/ports/fetcher';
import { startStoreSimulator } from '../stores';
import { countSdkCalls } from './_count-hook';

const SIZE = Number(process.env.CRAWL_OVERHEAD_SIZE ?? 10_000);
const HOSTS = (process.env.CRAWL_OVERHEAD_HOSTS ?? 'shopify-collections.test,sitemap-only.test').split(',');
/** Pages read at once in both runs: the loop's lanes, the state machine's batches in flight (one page at a time each). */
const CONCURRENCY = 4;
const ORG = 'bench-crawl-overhead';
const KEY = 'bench-crawl-overhead-key-01';

const fmt = (n: number) => n.toLocaleString('en-US');

/** The crawl as a plain loop: the same domain functions, nothing stored. */
async function plainCrawl(fetcher: PageFetcher, vendor: string) {
  const origin = `https://${vendor}`;
  const countryCode = 'us';
  const choice = await determineMethod(fetcher, origin, countryCode);
  const collections = await discoverCollections(fetcher, choice.origin, countryCode, {
    method: choice.method,
    collectionSitemaps: choice.collectionSitemaps,
    categories: choice.categories,
  });
  const plan: CrawlPlan = {
    crawlId: 'plain-loop',
    vendor,
    displayName: choice.displayName || vendor,
    origin: choice.origin,
    method: choice.method,
    fallbacks: choice.fallbacks,
    currency: choice.currency,
    maxListings: null,
    countryCode,
    collections,
    sequences: [],
    wave: 0,
    collectionSitemaps: choice.collectionSitemaps,
    productSitemaps: choice.productSitemaps,
    incomplete: false,
    primaryCount: choice.primaryCount,
  };
  plan.sequences = planSequences(plan);
  const context = { origin: plan.origin, currency: plan.currency, countryCode };
  const listings = new Map<string, number>();
  const members = new Map<string, Set<string>>();
  const outcomes = new Map<string, PageOutcome>();
  let pages = 0;
  for (let wave = 1; wave <= MAX_WAVES; wave++) {
    const tasks = planWave(plan, outcomes, listings.size);
    if (!tasks.length) break;
    await eachLimited(tasks, CONCURRENCY, async (task) => {
      const read = await readListingPage(fetcher, task, context);
      pages++;
      if (task.primary) read.listings.forEach((l, k) => listings.set(l.url, task.order + k));
      if (task.collection) {
        const set = members.get(task.collection) ?? new Set<string>();
        for (const l of read.listings) set.add(l.url);
        members.set(task.collection, set);
      }
      outcomes.set(`${task.seq}#${task.n}`, pageOutcome(task, read));
    });
  }
  return { listings: listings.size, collections: members.size, pages };
}

export default async function main(): Promise<void> {
  const sim = await startStoreSimulator({ storeSizes: Object.fromEntries(HOSTS.map((host) => [host, SIZE])) });
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-crawl-overhead-'));
  try {
    console.log(
      `crawl-overhead: ${fmt(SIZE)}-product stores, ${CONCURRENCY} listing pages at once in both runs (state machine: ${CONCURRENCY} SQS batches in flight, PDS_CRAWL_DELAY_MS=0)`,
    );
    const config = loadConfig({ PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0' });
    const loopFetcher = fetcherOf(createContainer(config));
    const service = await startLocalService({
      port: 0,
      dataDir,
      env: {
        PDS_RESOLVE: sim.resolveEnv,
        PDS_CRAWL_DELAY_MS: '0',
        PDS_RATE_LIMIT: '10000:20000',
        PDS_FAULT_RATE: '0',
        PDS_DUPLICATE_RATE: '0',
      },
      bootstrapKeys: `${KEY}:${ORG}`,
      workerConcurrency: CONCURRENCY,
      log: () => undefined,
    });
    try {
      const sdkCalls = countSdkCalls();
      sdkCalls.onlyQueues(['crawl-work']);
      for (const host of HOSTS) {
        // (a) the plain loop, once before and once after the state machine (the load drifts; the
        //     first run also pays the JIT's warm-up): the ratio is against their mean.
        const plainRun = async () => {
          sim.resetRequestCounts(host);
          const start = Date.now();
          const loop = await plainCrawl(loopFetcher, host);
          return { ...loop, ms: Date.now() - start, requests: sim.requestCounts(host).total };
        };
        const loopBefore = await plainRun();

        // (b) the state machine, started and polled through the crawl use-cases (polls counted apart).
        sim.resetRequestCounts(host);
        sdkCalls.reset();
        const jobs = crawlOf(getContainer()).jobs;
        const machineStart = Date.now();
        const { execution_id: executionId } = await jobs.start({ org: ORG, vendor: host, countryCode: 'us' });
        // When the store saw the crawl's last request: what follows is the end of the crawl (index rebuild).
        let lastRequestMs = 0;
        let seen = sim.requestCounts(host).total;
        const watch = setInterval(() => {
          const now = sim.requestCounts(host).total;
          if (now !== seen) {
            seen = now;
            lastRequestMs = Date.now() - machineStart;
          }
        }, 20);
        const poll = () => sdkCalls.aside(() => jobs.status({ org: ORG, executionId }));
        let status = await poll();
        let polls = 1;
        for (; polls < 20_000 && status.status !== 'completed' && status.status !== 'failed'; polls++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          status = await poll();
        }
        const machineMs = Date.now() - machineStart;
        clearInterval(watch);
        const machineRequests = sim.requestCounts(host).total;
        const loopAfter = await plainRun();
        const loopMs = (loopBefore.ms + loopAfter.ms) / 2;
        const loop = loopAfter;
        const loopRequests = loopAfter.requests;
        const calls = sdkCalls.counts();
        const total = calls.reduce((sum, [, n]) => sum + n, 0);
        const pollCalls = sdkCalls.asideCounts().reduce((sum, [, n]) => sum + n, 0);
        const listingsTotal = status.result.listings_total;
        const per1000 = listingsTotal ? (total / listingsTotal) * 1000 : Number.NaN;
        const ratio = machineMs / loopMs;
        console.log(`  ${host} (${fmt(sim.catalog(host).listingCount())} listings):`);
        console.log(
          `    plain loop:          ${(loopMs / 1000).toFixed(2)} s (mean of ${(loopBefore.ms / 1000).toFixed(2)} s before and ${(loopAfter.ms / 1000).toFixed(2)} s after the state machine), ${fmt(loop.pages)} listing pages, ${fmt(loop.listings)} listings, ${loop.collections} collections read, ${fmt(loopRequests)} requests at the store`,
        );
        console.log(
          `    local state machine: ${(machineMs / 1000).toFixed(2)} s (${status.status}), listings_total ${fmt(listingsTotal)}, ${fmt(machineRequests)} requests at the store; last store request to completed (Finalize: the listings index and collection totals) ${((machineMs - lastRequestMs) / 1000).toFixed(2)} s`,
        );
        console.log(`    overhead ratio: ${ratio.toFixed(2)}x`);
        console.log(
          `    AWS SDK calls per 1000 listings: ${per1000.toFixed(0)}; in this crawl ${fmt(total)} (${calls
            .map(([name, n]) => `${name.replace(/Command$/, '')} ${fmt(n)}`)
            .join(
              ', ',
            )}), plus ${fmt(pollCalls)} by the bench's ${polls} status polls and ${fmt(sdkCalls.idleCounts())} receives of the idle pollers of the other workflows' queues`,
        );
      }
      console.log(
        `  machine load average (1, 5, 15 min) at the end: ${loadavg()
          .map((n) => n.toFixed(2))
          .join(' ')} on ${availableParallelism()} cores`,
      );
    } finally {
      await service.stop(2000);
    }
  } finally {
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
