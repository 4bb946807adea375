// `npm run bench -- host-gate`: 200 workers over 50 hosts share the table's host gate
// (adapters/dynamodb/host-gate.ts), each worker with a gate of its own as separate Lambdas have.
// The adapter runs unchanged on virtual time and an in-memory table answering after a
// DynamoDB-like round trip (test/fakes/virtual-table.ts): minutes of traffic in seconds, the same
// on a loaded machine as on an idle one. (test/integration/host-gate-processes.test.ts is the
// real thing: processes, the embedded DynamoDB, HTTP.) Every worker takes turns on hosts
// and holds each for a simulated fetch, so demand is far above every host's limit.
// Halfway, a fetch on host-0 answers 429 with Retry-After: 10 and its worker pauses the host.
// Prints, per host, the rate against its limit (the worst and the least used host), the closest
// two starts came against the spacing, the peak in flight against the concurrency, the starts
// during the pause, and the SDK calls per fetch.
// Arguments: [seconds=300 virtual] [workers=200] [hosts=50] [round trip ms=8].
import { dynamoHostGate } from '../../lambdas/adapters/dynamodb/host-gate';
import type { HostGate, HostPolicy } from '../../lambdas/ports/host-gate';
import { virtualTable, virtualTime } from '../fakes/virtual-table';

const SECONDS = Number(process.argv[3] ?? 300);
const WORKERS = Number(process.argv[4] ?? 200);
const HOSTS = Number(process.argv[5] ?? 50);
/** DynamoDB's single-digit milliseconds in-region: each call takes ROUND_TRIP_MS +- half. */
const ROUND_TRIP_MS = Number(process.argv[6] ?? 8);
/** Starts in the first seconds are left out of the rates (every worker's first booking at once). */
const WARM_UP_MS = 5000;
const PAUSE_MS = 10_000;
const T0 = 1_800_000_000_000;

/** Deterministic pseudo-random numbers (a run reproduces). */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

/**
 * Hosts with spacings of 0.5 s to 2 s (the service's default is 1 s, PDS_CRAWL_DELAY_MS; robots.txt
 * Crawl-delays are mostly 1 s or more) and 1 to 4 requests in flight.
 */
const POLICIES: HostPolicy[] = Array.from({ length: HOSTS }, (_, i) => ({
  spacingMs: [500, 1000, 1000, 2000][i % 4]!,
  concurrency: 1 + (Math.floor(i / 4) % 4),
}));

export default async function run(): Promise<void> {
  const time = virtualTime(T0);
  const jitter = random(9999);
  let calls = 0;
  const table = virtualTable(() => {
    calls++;
    return ROUND_TRIP_MS * (0.5 + jitter());
  });
  const gates: HostGate[] = Array.from({ length: WORKERS }, () => dynamoHostGate(table, 'pds', { clock: time.now }));
  const starts: number[][] = POLICIES.map(() => []);
  const inFlight = POLICIES.map(() => 0);
  const peak = POLICIES.map(() => 0);
  const end = T0 + SECONDS * 1000;
  const pauseAt = T0 + (SECONDS * 1000) / 2;
  let pause: { written: number; until: number } | undefined;
  let fetches = 0;
  let refused = 0;
  let warm = { calls: 0, fetches: 0 };

  /** One request: a turn on `host`, a simulated fetch of 50 to 400 ms, the release. */
  const fetchOn = async (gate: HostGate, host: number, next: () => number) => {
    let release: () => void;
    try {
      release = await gate.acquire(`host-${host}.test`, POLICIES[host]!);
    } catch {
      refused++;
      return;
    }
    const at = time.now();
    if (at < end) starts[host]!.push(at);
    if (at >= T0 + WARM_UP_MS && !warm.calls) warm = { calls, fetches };
    peak[host] = Math.max(peak[host]!, ++inFlight[host]!);
    await new Promise((resolve) => setTimeout(resolve, 50 + next() * 350));
    inFlight[host]!--;
    fetches++;
    release();
    if (host === 0 && at >= pauseAt && !pause) {
      const until = time.now() + PAUSE_MS;
      pause = { written: 0, until };
      await gate.pause('host-0.test', until);
      pause.written = time.now();
    }
  };

  // Each worker runs batches like an extraction's: URLs of one host, 2 at a time; worker w serves
  // host w % HOSTS, so every host always has 4 workers (8 requests) waiting on it.
  const worker = async (gate: HostGate, w: number) => {
    const next = random(w + 1);
    const lane = async () => {
      // Bounded by the virtual end.
      while (time.now() < end) await fetchOn(gate, w % HOSTS, next);
    };
    await Promise.all([lane(), lane()]);
  };

  time.install();
  const started = performance.now();
  try {
    const running = Promise.all(gates.map(worker));
    await time.run(end + 600_000);
    await running;
  } finally {
    time.uninstall();
  }
  report({ starts, peak, fetches, refused, calls, warm, pause, realMs: performance.now() - started });
}

function report(run: {
  starts: number[][];
  peak: number[];
  fetches: number;
  refused: number;
  calls: number;
  warm: { calls: number; fetches: number };
  pause?: { written: number; until: number };
  realMs: number;
}) {
  const rows = POLICIES.map((policy, host) => {
    const sorted = [...run.starts[host]!].sort((a, b) => a - b);
    const measured = sorted.filter((at) => at >= T0 + WARM_UP_MS);
    const rate = (measured.length - 1) / ((measured.at(-1)! - measured[0]!) / 1000);
    const limit = 1000 / policy.spacingMs;
    const closest = Math.min(...sorted.slice(1).map((at, i) => at - sorted[i]!));
    return { host, policy, rate, limit, ratio: rate / limit, closest, peak: run.peak[host]! };
  });
  const worst = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const least = rows.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  const describe = (row: (typeof rows)[number]) =>
    `host-${row.host} ${row.rate.toFixed(3)}/s against ${row.limit.toFixed(3)}/s (${(row.ratio * 100).toFixed(1)} %; ` +
    `spacing ${row.policy.spacingMs} ms, concurrency ${row.policy.concurrency})`;
  const tight = rows.reduce((a, b) => (b.closest / b.policy.spacingMs < a.closest / a.policy.spacingMs ? b : a));
  const over = rows.filter((row) => row.peak > row.policy.concurrency);
  console.log(
    `${WORKERS} workers, ${HOSTS} hosts, ${SECONDS} s of virtual time, ${ROUND_TRIP_MS} ms round trips (ran in ${(run.realMs / 1000).toFixed(1)} s)`,
  );
  console.log(`  worst host:      ${describe(worst)}`);
  console.log(`  least used host: ${describe(least)}`);
  console.log(`  closest starts:  ${tight.closest} ms on host-${tight.host} (spacing ${tight.policy.spacingMs} ms)`);
  console.log(
    `  concurrency:     ${over.length ? `${over.length} hosts above their limit` : 'no host above its limit'} ` +
      `(peaks ${rows
        .map((r) => `${r.peak}/${r.policy.concurrency}`)
        .slice(0, 4)
        .join(', ')}, ...)`,
  );
  if (run.pause) {
    const during = run.starts[0]!.filter((at) => at > run.pause!.written && at < run.pause!.until).length;
    const resumed = run.starts[0]!.find((at) => at >= run.pause!.until);
    console.log(
      `  pause of host-0: ${during} starts between the pause's write and its end; first after it ${resumed === undefined ? 'none' : `+${resumed - run.pause.until} ms`}`,
    );
  }
  const steadyCalls = run.calls - run.warm.calls;
  const steadyFetches = run.fetches - run.warm.fetches;
  console.log(
    `  fetches:         ${run.fetches} (${run.refused} refused); SDK calls per fetch after warm-up ${(steadyCalls / steadyFetches).toFixed(2)}`,
  );
}
