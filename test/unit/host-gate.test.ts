// The table's host gate (adapters/dynamodb/host-gate.ts) on virtual time and an in-memory table
// answering after DynamoDB-like round trips (test/fakes/virtual-table.ts): the spacing and the
// SDK calls per fetch, exactly, whatever this machine's load. The same gate on the embedded
// DynamoDB: test/integration/host-gate.test.ts and host-gate-processes.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { dynamoHostGate, slotFor } from '../../lambdas/adapters/dynamodb/host-gate';
import type { HostGate, HostPolicy } from '../../lambdas/ports/host-gate';
import { countingTable, laneRun, virtualTable, virtualTime } from '../fakes/virtual-table';

const T0 = 1_800_000_000_000;
let time: ReturnType<typeof virtualTime> | undefined;
afterEach(() => time?.uninstall());

/** `workers` gates on one virtual table, `perWorker` turns each on one host, each held `holdMs`. */
async function run(workers: number, perWorker: number, policy: HostPolicy, holdMs: number) {
  time = virtualTime(T0);
  const clock = time;
  let trip = 0;
  const { table, calls } = countingTable(() => 4 + (trip++ % 5) * 2); // 4 to 12 ms
  const gates: HostGate[] = Array.from({ length: workers }, () => dynamoHostGate(table, 'pds', { clock: clock.now }));
  const starts: number[] = [];
  let inFlight = 0;
  let peak = 0;
  clock.install();
  const running = Promise.all(
    gates.flatMap((gate) =>
      Array.from({ length: perWorker }, async () => {
        const release = await gate.acquire('shop.test', policy);
        starts.push(clock.now());
        peak = Math.max(peak, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, holdMs));
        inFlight--;
        release();
      }),
    ),
  );
  await clock.run(T0 + 600_000);
  await running;
  clock.uninstall();
  starts.sort((a, b) => a - b);
  return { starts, peak, calls, gaps: starts.slice(1).map((at, i) => at - starts[i]!) };
}

describe('host gate on virtual time', () => {
  it('spaces the starts of eight workers and keeps the rate', async () => {
    const { starts, gaps, peak } = await run(8, 5, { spacingMs: 100, concurrency: 2 }, 30);
    expect(starts).toHaveLength(40);
    expect(peak).toBeLessThanOrEqual(2);
    // A start leaves at its booked instant or at most a tenth of the spacing after it.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(90);
    // 40 starts 100 ms apart: the host is used at its rate, not below it by much.
    expect(starts.at(-1)! - starts[0]!).toBeLessThan(39 * 100 * 1.1);
  });

  it('caps concurrency when the fetches outlast the spacing', async () => {
    const { starts, peak } = await run(4, 4, { spacingMs: 10, concurrency: 2 }, 200);
    expect(starts).toHaveLength(16);
    expect(peak).toBe(2);
  });

  it('costs two writes for a lone fetch and under one per fetch under load', async () => {
    const lone = await run(1, 1, { spacingMs: 100, concurrency: 2 }, 10);
    expect(lone.calls).toEqual(['write', 'write']); // the booking that takes the slot, the free
    const busy = await run(4, 40, { spacingMs: 100, concurrency: 2 }, 30);
    expect(busy.starts).toHaveLength(160);
    // Per window of up to 8 starts: a booking, a take, a free; windows grow from one start as a
    // worker keeps using them, and a lost race costs more.
    expect(busy.calls.length / 160).toBeLessThanOrEqual(0.75);
  });

  it('grows a spaced window that nobody booked after in one write, not a free, a booking and a take', async () => {
    // Two lanes of one worker, each fetching (30 ms) and parsing (5 ms) one page after another.
    time = virtualTime(T0);
    const { table, calls } = countingTable(() => 6);
    const gate = dynamoHostGate(table, 'pds', { clock: time.now });
    const starts = await laneRun(time, [gate], {
      host: 'spaced.test',
      policy: { spacingMs: 100, concurrency: 2 },
      lanes: 2,
      perGate: 64,
      holdMs: 30,
      parseMs: 5,
    });
    expect(starts).toHaveLength(64);
    expect(Math.min(...starts.slice(1).map((at, i) => at - starts[i]!))).toBeGreaterThanOrEqual(90);
    // Windows growing to 8 starts, each grown by one write: under 0.3 per fetch (about 0.7 when
    // every window was freed, booked and taken again).
    expect(calls.length / 64).toBeLessThan(0.3);
  });

  it('renews a busy slot without spacing in one write per window', async () => {
    // 30 fetches of 100 ms, one at a time: about two windows of 2 s (the default) on one slot.
    const { starts, calls, gaps, peak } = await run(1, 30, { spacingMs: 0, concurrency: 1 }, 100);
    expect(starts).toHaveLength(30);
    expect(peak).toBe(1);
    expect(Math.max(...gaps)).toBeLessThan(150); // back to back: a renewal is no gap
    // The booking that takes the slot, a renewal per later window, the free.
    expect(calls.length).toBeLessThanOrEqual(5);
  });

  it("stops a renewed slot's fetches at another worker's pause from its next window", async () => {
    time = virtualTime(T0);
    const clock = time;
    const table = virtualTable(() => 6);
    const [busy, pausing] = [0, 1].map(() => dynamoHostGate(table, 'pds', { clock: clock.now, windowMs: 1_000 }));
    const policy = { spacingMs: 0, concurrency: 1 };
    const starts: number[] = [];
    const until = T0 + 4_000;
    clock.install();
    const running = Promise.all(
      Array.from({ length: 30 }, async () => {
        const release = await busy!.acquire('paused.test', policy);
        starts.push(clock.now());
        await new Promise((resolve) => setTimeout(resolve, 100));
        release();
      }),
    );
    const paused = new Promise((resolve) => setTimeout(resolve, 1_500)).then(() =>
      pausing!.pause('paused.test', until),
    );
    await clock.run(T0 + 600_000);
    await Promise.all([running, paused]);
    clock.uninstall();
    expect(starts).toHaveLength(30);
    // The window running when the pause was written is the busy worker's second (renewed at
    // about 1 s): its renewal at about 2 s is refused, and nothing starts until the pause ends.
    const during = starts.filter((at) => at >= T0 + 2_100 && at < until);
    expect(during).toEqual([]);
    expect(starts.filter((at) => at >= until).length).toBeGreaterThan(0);
  });

  it('does not poll while other workers hold every slot, and hands a renewed slot on to a worker that booked', async () => {
    const { starts, calls, peak } = await run(4, 20, { spacingMs: 0, concurrency: 2 }, 100);
    expect(starts).toHaveLength(80);
    expect(peak).toBeLessThanOrEqual(2);
    // A refused worker books and tries again when a holder's window ends, not at every round trip.
    expect(calls.length / 80).toBeLessThan(4);
  });

  it('gives a worker that waits the slot another keeps busy within about a window', async () => {
    time = virtualTime(T0);
    const clock = time;
    const table = virtualTable(() => 6);
    const [busy, late] = [0, 1].map(() => dynamoHostGate(table, 'pds', { clock: clock.now, windowMs: 1_000 }));
    const policy = { spacingMs: 0, concurrency: 1 };
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    clock.install();
    let lateStart = 0;
    const running = Promise.all([
      ...Array.from({ length: 60 }, async () => {
        const release = await busy!.acquire('shared.test', policy);
        await sleep(100);
        release();
      }),
      sleep(500).then(async () => {
        const release = await late!.acquire('shared.test', policy);
        lateStart = clock.now();
        release();
      }),
    ]);
    await clock.run(T0 + 600_000);
    await running;
    clock.uninstall();
    // The busy worker's window ends at about 1 s and its renewal is refused (the late worker
    // booked): it gives the freed slot way for a few round trips, and the late worker takes it.
    expect(lateStart - T0).toBeLessThan(1_500);
  });

  it('lets consecutive starts take turns over the slots, else any free one', () => {
    const policy = { spacingMs: 100, concurrency: 3 };
    const idle = { nextStart: 0, pausedUntil: 0, leases: [] };
    expect([1_000, 1_100, 1_200, 1_300].map((start) => slotFor(idle, policy, start, 900))).toEqual([1, 2, 0, 1]);
    const busy = { nextStart: 0, pausedUntil: 0, leases: [0, 5_000, 0] };
    expect(slotFor(busy, policy, 1_000, 900)).toBe(0);
    expect(slotFor(busy, policy, 1_000, 6_000)).toBe(1);
  });
});
