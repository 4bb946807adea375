// `npm run bench -- extract-throughput`: 1000 URLs from the store simulator extracted (a) in a
// plain loop with bounded concurrency and (b) through the local state machine (Prepare -> SQS
// batches -> workers -> Finalize, every result stored) with the same concurrency: at most
// CONCURRENCY extractions at once, shared by the batches in flight (PDS_EXTRACT_SLOTS). Prints both
// times, the overhead ratio (goal < 1.25x), memory, and the AWS SDK calls of the state machine run
// per 1000 URLs (goal < 400) by command; the bench's own status polls are counted apart.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLocalService } from '../../lambdas/local/service';
import { createContainer, getContainer } from '../../lambdas/composition/container';
import { loadConfig } from '../../lambdas/config';
import { eachLimited } from '../../lambdas/domain/extract-jobs/concurrency';
import type { ExtractOptions } from '../../lambdas/domain/extraction/types';
import { startStoreSimulator, listProductUrls } from '../stores';
import { countSdkCalls } from './_count-hook';

const URLS = 1000;
const HOSTS = [
  'jsonld-shop.test',
  'microdata-shop.test',
  'opengraph-shop.test',
  'productgroup-shop.test',
  'dom-shop.test',
];
/** URL extractions at once in both runs: the plain loop's lanes, the workers' shared PDS_EXTRACT_SLOTS. */
const CONCURRENCY = 8;
/** SQS batches in flight (poller concurrency): more than one, so another batch's URLs fill the slots a batch's tail leaves free. */
const BATCHES_IN_FLIGHT = 4;
const OPTIONS: ExtractOptions = {
  enableEnrichment: false,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};
const ORG = 'bench-throughput';
const MB = 1024 * 1024;

const cpuSeconds = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
/** Seconds the main thread's event loop was busy since `from` (CPU above also counts other threads). */
const mainBusySeconds = (from: ReturnType<typeof performance.eventLoopUtilization>) =>
  performance.eventLoopUtilization(from).active / 1000;

function memorySampler() {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const timer = setInterval(sample, 100);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakRssMb: peakRss / MB, peakHeapMb: peakHeap / MB };
    },
  };
}

export default async function main(): Promise<void> {
  const sim = await startStoreSimulator({ productsPerStore: URLS * 2 });
  const per = URLS / HOSTS.length;
  // Different products for the two runs, so neither benefits from the other's warm caches.
  const loopUrls = HOSTS.flatMap((host) => listProductUrls(sim.store(host), { offset: 0, limit: per }));
  const machineUrls = HOSTS.flatMap((host) => listProductUrls(sim.store(host), { offset: URLS, limit: per }));
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-throughput-'));
  try {
    // (a) plain loop: the same engine composition, results kept in memory only.
    const extractUrl = createContainer(loadConfig({ PDS_RESOLVE: sim.resolveEnv, PDS_CRAWL_DELAY_MS: '0' })).extractUrl;
    const loopMemory = memorySampler();
    const loopCpu = process.cpuUsage();
    const loopLoop = performance.eventLoopUtilization();
    const loopStart = Date.now();
    let loopSuccess = 0;
    await eachLimited(loopUrls, CONCURRENCY, async (url) => {
      if ((await extractUrl(url, OPTIONS)).success) loopSuccess++;
    });
    const loopMs = Date.now() - loopStart;
    const loopCpuS = cpuSeconds(process.cpuUsage(loopCpu));
    const loopBusyS = mainBusySeconds(loopLoop);
    const loopMem = loopMemory.stop();

    // (b) the local state machine.
    const service = await startLocalService({
      port: 0,
      dataDir,
      env: {
        PDS_RESOLVE: sim.resolveEnv,
        PDS_CRAWL_DELAY_MS: '0',
        PDS_FAULT_RATE: '0',
        PDS_DUPLICATE_RATE: '0',
        PDS_EXTRACT_SLOTS: String(CONCURRENCY),
      },
      bootstrapKeys: `bench-throughput-key-01:${ORG}`,
      workerConcurrency: BATCHES_IN_FLIGHT,
      log: () => undefined,
    });
    try {
      const jobs = getContainer().extractJobs;
      const sdkCalls = countSdkCalls();
      sdkCalls.onlyQueues(['extract-work']);
      sdkCalls.reset();
      const machineMemory = memorySampler();
      const machineCpu = process.cpuUsage();
      const machineLoop = performance.eventLoopUtilization();
      const machineStart = Date.now();
      const { execution_id } = await jobs.start({
        org: ORG,
        kind: 'extract-urls',
        urls: machineUrls,
        options: OPTIONS,
      });
      // The bench's polls are the client's work, not the service's: counted apart.
      // Where the run's time goes besides extracting: when the store saw its first and last request.
      const fetched = () => HOSTS.reduce((n, host) => n + sim.requestCounts(host).total, 0);
      const fetchedBefore = fetched();
      let firstFetchMs: number | null = null;
      let lastFetchMs = 0;
      let lastFetched = fetchedBefore;
      const watch = setInterval(() => {
        const now = fetched();
        if (now !== lastFetched) {
          firstFetchMs ??= Date.now() - machineStart;
          lastFetchMs = Date.now() - machineStart;
          lastFetched = now;
        }
      }, 20);
      const poll = () => sdkCalls.aside(() => jobs.status({ org: ORG, executionId: execution_id }));
      let status = await poll();
      let polls = 1;
      for (; polls < 6000 && status.status !== 'completed' && status.status !== 'failed'; polls++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = await poll();
      }
      clearInterval(watch);
      const machineMs = Date.now() - machineStart;
      const machineCpuS = cpuSeconds(process.cpuUsage(machineCpu));
      const machineBusyS = mainBusySeconds(machineLoop);
      const machineMem = machineMemory.stop();
      const calls = sdkCalls.counts();
      const pollCalls = sdkCalls.asideCounts().reduce((sum, [, n]) => sum + n, 0);
      const totalCalls = calls.reduce((sum, [, n]) => sum + n, 0);
      const per1000 = (totalCalls / machineUrls.length) * 1000;
      const ratio = machineMs / loopMs;

      console.log(
        `extract-throughput: ${URLS} URLs over ${HOSTS.length} simulated stores, concurrency ${CONCURRENCY} in both runs (state machine: PDS_EXTRACT_SLOTS=${CONCURRENCY} shared by ${BATCHES_IN_FLIGHT} SQS batches in flight)`,
      );
      console.log(
        `  plain loop:          ${(loopMs / 1000).toFixed(2)} s, ${(URLS / (loopMs / 1000)).toFixed(0)} URLs/s, ${loopSuccess} successful, CPU ${loopCpuS.toFixed(1)} s (main thread busy ${loopBusyS.toFixed(1)} s), peak RSS ${loopMem.peakRssMb.toFixed(0)} MB, peak heap ${loopMem.peakHeapMb.toFixed(0)} MB`,
      );
      console.log(
        `  local state machine: ${(machineMs / 1000).toFixed(2)} s, ${(URLS / (machineMs / 1000)).toFixed(0)} URLs/s, ${status.result.products_successful} successful (${status.status}), CPU ${machineCpuS.toFixed(1)} s (main thread busy ${machineBusyS.toFixed(1)} s), peak RSS ${machineMem.peakRssMb.toFixed(0)} MB, peak heap ${machineMem.peakHeapMb.toFixed(0)} MB`,
      );
      console.log(
        `    of which: start to the first page request ${((firstFetchMs ?? 0) / 1000).toFixed(2)} s, last page request to completed ${((machineMs - lastFetchMs) / 1000).toFixed(2)} s (status polled every 100 ms)`,
      );
      const slots = getContainer().extractSlots;
      console.log(
        `  state machine extractions at once: at most ${slots?.peak ?? 'unknown'} (PDS_EXTRACT_SLOTS=${slots?.size ?? 'unset'})`,
      );
      console.log(`  overhead ratio: ${ratio.toFixed(2)}x (goal < 1.25x) ${ratio < 1.25 ? 'MET' : 'NOT MET'}`);
      console.log(
        `  AWS SDK calls per 1000 URLs: ${per1000.toFixed(0)} (goal < 400) ${per1000 < 400 ? 'MET' : 'NOT MET'}; in this run ${totalCalls} (${calls.map(([name, n]) => `${name.replace(/Command$/, '')} ${n}`).join(', ')}), plus ${pollCalls} by the bench's ${polls} status polls and ${sdkCalls.idleCounts()} receives of the idle pollers of the other workflows' queues`,
      );
      const load = loadavg()
        .map((n) => n.toFixed(2))
        .join(' ');
      console.log(`  machine load average (1, 5, 15 min) at the end: ${load} on ${availableParallelism()} cores`);
      console.log(
        '  (the state machine run also stores every per-URL result, product record and vendor count in the embedded DynamoDB)',
      );
    } finally {
      await service.stop(2000);
    }
  } finally {
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
