// `npm run bench -- host-gate-cost`: the table's host gate (adapters/dynamodb/host-gate.ts) in SDK
// calls per fetch, on virtual time over an in-memory table answering in 8 ms (test/fakes/
// virtual-table.ts), so the figure does not depend on this machine's load. One host, concurrency
// 2, fetches of 300 ms with 20 ms of parsing between a lane's fetches: without spacing (the
// extract-throughput bench, PDS_CRAWL_DELAY_MS=0) and with the production default crawl delay
// (1000 ms), by one worker with 2 and 8 lanes on the host and by four workers with 2 lanes each.
// extract-throughput measures the spacing-0 case inside a real run; with the default delay add
// (calls per fetch here x 1000) in place of its HOSTGATE calls.
import { dynamoHostGate } from '../../lambdas/adapters/dynamodb/host-gate';
import { countingTable, laneRun, virtualTime } from '../fakes/virtual-table';

const T0 = 1_800_000_000_000;
const HOLD_MS = 300;
const PARSE_MS = 20;

async function callsPerFetch(workers: number, fetches: number, spacingMs: number, lanes: number) {
  const time = virtualTime(T0);
  const { table, calls } = countingTable(() => 8);
  const gates = Array.from({ length: workers }, () => dynamoHostGate(table, 'pds', { clock: time.now }));
  const starts = await laneRun(time, gates, {
    host: 'shop.test',
    policy: { spacingMs, concurrency: 2 },
    lanes,
    perGate: fetches / workers,
    holdMs: HOLD_MS,
    parseMs: PARSE_MS,
  });
  return { perFetch: calls.length / starts.length, seconds: (time.now() - T0) / 1000 };
}

export default async function main(): Promise<void> {
  console.log(
    `host-gate-cost: SDK calls per fetch on one host (concurrency 2, ${HOLD_MS} ms fetches, ${PARSE_MS} ms between a lane's fetches), virtual time`,
  );
  for (const spacingMs of [0, 1000])
    for (const [workers, lanes] of [
      [1, 2],
      [1, 8],
      [4, 2],
    ] as const) {
      const { perFetch } = await callsPerFetch(workers, 200, spacingMs, lanes);
      console.log(
        `  spacing ${spacingMs} ms, ${workers} worker(s) x ${lanes} lanes, 200 fetches: ${perFetch.toFixed(3)} per fetch (${(perFetch * 1000).toFixed(0)} per 1000 URLs)`,
      );
    }
}
