// `npm run bench -- extract-throughput`: 1000 URLs from the store simulator extracted (a) in a
// plain loop with bounded concurrency and (b) through the local state machine (Prepare -> SQS
// batches -> workers -> Finalize, every result stored) with the same concurrency: at most
// CONCURRENCY extractions at once, shared by the batches in flight (PDS_EXTRACT_SLOTS). A state
// machine run lasts from the start request until the execution's completion (its stop_date), and
// the moment the bench's status poll saw it is printed beside it. Prints both times, the overhead
// ratio (goal < 1.25x), memory, and the AWS SDK calls of the state machine run
// per 1000 URLs (guard: at most 250) by command and by what they touch; the bench's own status
// polls are counted apart. The
// two runs alternate for EXTRACT_THROUGHPUT_ROUNDS rounds (default 3) on fresh products each,
// after one untimed warm-up run of each kind, and the median of the rounds' ratios is the figure:
// on a shared machine the load drifts. Beside it,
// the main-thread CPU each run used (Linux: the kernel's per-thread accounting), which does not
// grow when other processes take the core: the loop saturates the main thread, so the CPU the
// state machine adds there is what its time ratio follows on a quiet machine (the embedded
// engines run on it too). The other threads (V8's helpers, zlib's and LevelDB's pools) are shown
// apart: on 2 cores they take turns with the main thread.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLocalService } from '../../lambdas/local/service';
import { createContainer, getContainer } from '../../lambdas/composition/container';
import { extractSlotsOf } from '../../lambdas/composition/extract-batch';
import { extractJobsOf } from '../../lambdas/composition/extract-jobs';
import { extractUrlOf } from '../../lambdas/composition/extraction';
import { loadConfig } from '../../lambdas/config';
import { ENV } from '../../lambdas/topology/env';
import { eachLimited } from '../../lambdas/domain/extract-jobs/concurrency';
import { startStoreSimulator, listProductUrls } from '../stores';
import { countSdkCalls } from './_count-hook';
import { PLAIN_OPTIONS } from '../fakes/extract-options';

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
const OPTIONS = PLAIN_OPTIONS;
const ORG = 'bench-throughput';
/** The bench's status polls: while URLs are in progress, and once every URL is processed. */
const POLL_MS = 250;
const FINAL_POLL_MS = 10;
const MB = 1024 * 1024;

const cpuSeconds = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
/**
 * CPU seconds of this process's main thread and of all its threads, from the kernel's per-thread
 * accounting (/proc/self/task, Linux; null elsewhere). Unlike the event loop's busy time, the
 * main thread's CPU does not grow when other processes take its core, so it compares runs on a
 * loaded machine; the other threads are zlib's, LevelDB's and the resolver's pools and V8's helpers
 * (the embedded engines run on the main thread).
 */
function threadCpuSeconds(): ThreadCpu | null {
  try {
    const ticks = (tid: string) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[11]) + Number(fields[12]);
    };
    const main = ticks(String(process.pid));
    let all = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        all += ticks(tid);
      } catch {
        // A thread that ended meanwhile.
      }
    }
    // USER_HZ is 100 on Linux.
    return { main: main / 100, all: all / 100 };
  } catch {
    return null;
  }
}
interface ThreadCpu {
  main: number;
  all: number;
}
/** CPU seconds by thread since `from`: the main thread and all the others (GC, zlib's pool, ...). */
const byThread = (threads: ReturnType<typeof threadCpuSince>) => ({ mainCpuS: threads?.main ?? null, threads });
const threadCpuSince = (from: ThreadCpu | null) => {
  const now = threadCpuSeconds();
  if (!from || !now) return null;
  const main = now.main - from.main;
  return { main, other: now.all - from.all - main };
};

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

/** Loop and state machine runs alternate this many times (order swapped each round): the machine's load drifts. */
const ROUNDS = Math.max(1, Number(process.env.EXTRACT_THROUGHPUT_ROUNDS ?? 3));

interface RunFigures {
  ms: number;
  cpuS: number;
  busyS: number;
  /** The main thread's CPU seconds (null where the kernel does not tell). */
  mainCpuS: number | null;
  /** CPU seconds by thread (null where the kernel does not tell). */
  threads: ReturnType<typeof threadCpuSince>;
  peakRssMb: number;
  peakHeapMb: number;
  successful: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export default async function main(): Promise<void> {
  const per = URLS / HOSTS.length;
  // Two runs per round, and one of each kind to warm up.
  const sim = await startStoreSimulator({ productsPerStore: per * 2 * (ROUNDS + 1) });
  // Different products for every run, so none benefits from another's warm caches or stored marks.
  const urlsOf = (run: number) =>
    HOSTS.flatMap((host) => listProductUrls(sim.store(host), { offset: run * per, limit: per }));
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-throughput-'));
  try {
    // The service runs from the start, so both kinds of run see its idle pollers alike.
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
      // (a) plain loop: the same engine composition, results kept in memory only. Its fetcher takes
      // its turns from the host gate in the service's table, as every fetcher does.
      const extractUrl = extractUrlOf(
        createContainer(
          loadConfig({
            PDS_RESOLVE: sim.resolveEnv,
            PDS_CRAWL_DELAY_MS: '0',
            [ENV.tableName]: service.tableName,
            [ENV.dynamodbEndpoint]: service.dynamodbEndpoint,
          }),
        ),
      );
      const plainLoop = async (urls: string[]): Promise<RunFigures> => {
        const memory = memorySampler();
        const cpu = process.cpuUsage();
        const threads = threadCpuSeconds();
        const loop = performance.eventLoopUtilization();
        const start = Date.now();
        let successful = 0;
        await eachLimited(urls, CONCURRENCY, async (url) => {
          if ((await extractUrl(url, OPTIONS)).success) successful++;
        });
        const ms = Date.now() - start;
        const mem = memory.stop();
        return {
          ms,
          cpuS: cpuSeconds(process.cpuUsage(cpu)),
          busyS: mainBusySeconds(loop),
          ...byThread(threadCpuSince(threads)),
          ...mem,
          successful,
        };
      };

      // (b) the local state machine.
      const jobs = extractJobsOf(getContainer());
      const sdkCalls = countSdkCalls();
      sdkCalls.onlyQueues(['extract-work']);
      const stateMachine = async (urls: string[]) => {
        sdkCalls.reset();
        const memory = memorySampler();
        const cpu = process.cpuUsage();
        const threads = threadCpuSeconds();
        const loop = performance.eventLoopUtilization();
        const start = Date.now();
        const { execution_id } = await jobs.start({ org: ORG, kind: 'extract-urls', urls, options: OPTIONS });
        // Where the run's time goes besides extracting: when the store saw its first and last request.
        const fetched = () => HOSTS.reduce((n, host) => n + sim.requestCounts(host).total, 0);
        let firstFetchMs: number | null = null;
        let lastFetchMs = 0;
        let lastFetched = fetched();
        const watch = setInterval(() => {
          const now = fetched();
          if (now !== lastFetched) {
            firstFetchMs ??= Date.now() - start;
            lastFetchMs = Date.now() - start;
            lastFetched = now;
          }
        }, 20);
        // The bench's polls are the client's work, not the service's: counted apart.
        const poll = () => sdkCalls.aside(() => jobs.status({ org: ORG, executionId: execution_id }));
        let status = await poll();
        let polls = 1;
        // The run's end is the execution's stop_date, so the polls only find it: every 250 ms while
        // URLs are in progress (each poll is a status read this process serves, CPU the extraction
        // would otherwise have), every 10 ms once every URL is processed (only Finalize is left),
        // for the sighting printed beside it.
        for (; polls < 6000 && status.status !== 'completed' && status.status !== 'failed'; polls++) {
          const finishing = status.progress.products_processed >= status.progress.products_total;
          await new Promise((resolve) => setTimeout(resolve, finishing ? FINAL_POLL_MS : POLL_MS));
          status = await poll();
        }
        clearInterval(watch);
        const seenMs = Date.now() - start;
        const mem = memory.stop();
        // The run ends when the service completed the execution (its stop_date, this process's
        // clock), not when a poll happened to see it: a poll every POLL_MS until every URL is
        // counted lands its sighting up to POLL_MS after the completion, which is the client's
        // sampling. The sighting is printed beside it.
        const stoppedAt = status.stop_date ? Date.parse(status.stop_date) : Number.NaN;
        const ms = Number.isFinite(stoppedAt) ? Math.max(0, stoppedAt - start) : seenMs;
        const figures: RunFigures = {
          ms,
          cpuS: cpuSeconds(process.cpuUsage(cpu)),
          busyS: mainBusySeconds(loop),
          ...byThread(threadCpuSince(threads)),
          ...mem,
          successful: status.result.products_successful,
        };
        return {
          figures,
          status: status.status,
          firstFetchMs: firstFetchMs ?? 0,
          tailMs: ms - lastFetchMs,
          seenMs,
          calls: sdkCalls.counts(),
          byTarget: sdkCalls.byTarget(),
          pollCalls: sdkCalls.asideCounts().reduce((sum, [, n]) => sum + n, 0),
          polls,
          idle: sdkCalls.idleCounts(),
        };
      };

      console.log(
        `extract-throughput: ${URLS} URLs over ${HOSTS.length} simulated stores, concurrency ${CONCURRENCY} in both runs (state machine: PDS_EXTRACT_SLOTS=${CONCURRENCY} shared by ${BATCHES_IN_FLIGHT} SQS batches in flight); ${ROUNDS} rounds, the two runs alternating`,
      );
      const describe = (f: RunFigures) =>
        `${(f.ms / 1000).toFixed(2)} s, ${(URLS / (f.ms / 1000)).toFixed(0)} URLs/s, ${f.successful} successful, CPU ${f.cpuS.toFixed(1)} s (main thread: CPU ${f.mainCpuS?.toFixed(2) ?? 'n/a'} s, busy ${f.busyS.toFixed(1)} s), peak RSS ${f.peakRssMb.toFixed(0)} MB, peak heap ${f.peakHeapMb.toFixed(0)} MB${f.threads ? `; other threads' CPU (GC, zlib, LevelDB, ...) ${f.threads.other.toFixed(2)} s` : ''}`;
      // One untimed run of each kind first: the first run of either pays for compiling its code
      // (the loop's first round was ~50% slower than its later ones), which would make round 1's
      // ratio say little about either.
      const warmUpStarted = performance.now();
      await plainLoop(urlsOf(2 * ROUNDS));
      await stateMachine(urlsOf(2 * ROUNDS + 1));
      console.log(
        `  warm-up (one untimed run of each kind): ${((performance.now() - warmUpStarted) / 1000).toFixed(1)} s`,
      );
      const loops: RunFigures[] = [];
      const machines: Array<Awaited<ReturnType<typeof stateMachine>>> = [];
      for (let round = 0; round < ROUNDS; round++) {
        const loopUrls = urlsOf(2 * round);
        const machineUrls = urlsOf(2 * round + 1);
        let loop: RunFigures;
        let machine: Awaited<ReturnType<typeof stateMachine>>;
        if (round % 2 === 0) {
          loop = await plainLoop(loopUrls);
          machine = await stateMachine(machineUrls);
        } else {
          machine = await stateMachine(machineUrls);
          loop = await plainLoop(loopUrls);
        }
        loops.push(loop);
        machines.push(machine);
        console.log(`  round ${round + 1} (${round % 2 === 0 ? 'loop first' : 'state machine first'}):`);
        console.log(`    plain loop:          ${describe(loop)}`);
        console.log(`    local state machine: ${describe(machine.figures)} (${machine.status})`);
        console.log(
          `      of which: start to the first page request ${(machine.firstFetchMs / 1000).toFixed(2)} s, last page request to completed ${(machine.tailMs / 1000).toFixed(2)} s; completion seen by the bench's status poll at ${(machine.seenMs / 1000).toFixed(2)} s (polled every ${POLL_MS} ms, every ${FINAL_POLL_MS} ms once every URL is processed)`,
        );
        console.log(
          `    ratio ${(machine.figures.ms / loop.ms).toFixed(2)}x (CPU ${(machine.figures.cpuS / loop.cpuS).toFixed(2)}x)`,
        );
      }
      const ratios = machines.map((m, i) => m.figures.ms / loops[i].ms);
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      const ratio = median(ratios);
      const cpuRatio = sum(machines.map((m) => m.figures.cpuS)) / sum(loops.map((l) => l.cpuS));
      const mainCpu = (runs: RunFigures[]) => runs.map((r) => r.mainCpuS ?? Number.NaN);
      const addedMainCpu = mainCpu(machines.map((m) => m.figures)).map((m, i) => m - mainCpu(loops)[i]);
      const slots = extractSlotsOf(getContainer());
      console.log(
        `  state machine extractions at once: at most ${slots?.peak ?? 'unknown'} (PDS_EXTRACT_SLOTS=${slots?.size ?? 'unset'})`,
      );
      console.log(
        `  overhead ratio: median ${ratio.toFixed(2)}x of ${ROUNDS} rounds (${ratios.map((r) => r.toFixed(2)).join(', ')}; summed times ${(sum(machines.map((m) => m.figures.ms)) / sum(loops.map((l) => l.ms))).toFixed(2)}x; CPU ${cpuRatio.toFixed(2)}x) (goal < 1.25x) ${ratio < 1.25 ? 'MET' : 'NOT MET'}`,
      );
      if (addedMainCpu.every(Number.isFinite))
        console.log(
          `  main-thread CPU the state machine adds to the loop's: median ${median(addedMainCpu).toFixed(2)} s per ${URLS} URLs (${addedMainCpu.map((s) => s.toFixed(2)).join(', ')}; loop ${median(mainCpu(loops)).toFixed(2)} s, ratio ${(median(mainCpu(machines.map((m) => m.figures))) / median(mainCpu(loops))).toFixed(2)}x): with the loop's main thread saturated, the time ratio follows it`,
        );
      const machineThreads = machines.map((m) => m.figures.threads);
      const loopThreads = loops.map((l) => l.threads);
      if (machineThreads.every(Boolean) && loopThreads.every(Boolean)) {
        const of = (runs: typeof machineThreads) => median(runs.map((t) => t!.other)).toFixed(2);
        console.log(
          `  other threads' CPU (V8's GC and compiler helpers, zlib's and LevelDB's pools), median per run: state machine ${of(machineThreads)} s, plain loop ${of(loopThreads)} s: on 2 cores, what runs beside the main thread takes turns with it`,
        );
      }
      const last = machines[machines.length - 1];
      const totalCalls = last.calls.reduce((sum, [, n]) => sum + n, 0);
      const per1000 = (totalCalls / URLS) * 1000;
      console.log(
        `  AWS SDK calls per 1000 URLs: ${per1000.toFixed(0)} (guard: at most 250) ${per1000 <= 250 ? 'MET' : 'NOT MET'}; in the last run ${totalCalls} (${last.calls.map(([name, n]) => `${name.replace(/Command$/, '')} ${n}`).join(', ')}), plus ${last.pollCalls} by the bench's ${last.polls} status polls and ${last.idle} receives of the idle pollers of the other workflows' queues`,
      );
      console.log(
        `    by what they touch (the first key's entity): ${last.byTarget.map(([target, n]) => `${target} ${n}`).join(', ')}`,
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
