// Usage metering off the response path (write-behind) and awaited (Lambda): counts are exact in
// both, summed per counter, never lost on flush, kept across a failed write, and read-your-writes
// for usage read in the same process. The writer is a plain function recording its calls (the
// DynamoDB ADD itself is covered on the embedded engine in test/integration/platform-caches.test.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createUsageMeter, withMeterFlush, type AddCalls } from '../../lambdas/domain/usage/meter';
import { hourBucket } from '../../lambdas/domain/usage/periods';
import type { UsageStore } from '../../lambdas/ports/usage';

function recorder(failures = 0) {
  const writes: Array<{ org: string; path: string; bucket: string; calls: number }> = [];
  let failing = failures;
  const add: AddCalls = async (org, path, bucket, calls) => {
    if (failing > 0) {
      failing--;
      throw new Error('table unavailable');
    }
    writes.push({ org, path, bucket, calls });
  };
  const total = () => writes.reduce((n, w) => n + w.calls, 0);
  return { add, writes, total };
}

/** A writer whose writes return only when the test lets them (inFlight), as a table call takes its time. */
function heldWrites() {
  const writes: number[] = [];
  const inFlight: Array<() => void> = [];
  const add: AddCalls = (_org, _path, _bucket, calls) =>
    new Promise<void>((resolve) => inFlight.push(() => resolve(void writes.push(calls))));
  return { add, writes, inFlight };
}

const AT = new Date('2026-03-01T10:15:00Z');

afterEach(() => {
  vi.useRealTimers();
});

describe('write-behind usage meter', () => {
  it('answers at once and writes nothing until a flush, then one ADD per counter with the exact sum', async () => {
    const { add, writes } = recorder();
    const meter = createUsageMeter(add, { writeBehindMs: 3_600_000 });
    const paths = ['/v2/vendors', '/v1/vendors', '/api/vendors'];
    await Promise.all(Array.from({ length: 300 }, (_, i) => meter.record('org-a', paths[i % 3], AT)));
    await meter.record('org-b', '/v2/vendors', AT);
    expect(writes).toEqual([]);
    await meter.flush();
    expect(writes.sort((a, b) => (a.org + a.path).localeCompare(b.org + b.path))).toEqual([
      { org: 'org-a', path: '/api/vendors', bucket: hourBucket(AT), calls: 100 },
      { org: 'org-a', path: '/v1/vendors', bucket: hourBucket(AT), calls: 100 },
      { org: 'org-a', path: '/v2/vendors', bucket: hourBucket(AT), calls: 100 },
      { org: 'org-b', path: '/v2/vendors', bucket: hourBucket(AT), calls: 1 },
    ]);
    // Nothing left: another flush writes nothing.
    await meter.flush();
    expect(writes).toHaveLength(4);
  });

  it('writes by itself once the write-behind period has passed', async () => {
    vi.useFakeTimers();
    const { add, total } = recorder();
    const meter = createUsageMeter(add, { writeBehindMs: 1000 });
    for (let i = 0; i < 7; i++) await meter.record('org', '/v2/vendors', AT);
    await vi.advanceTimersByTimeAsync(999);
    expect(total()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(total()).toBe(7);
  });

  it('leaves calls recorded during a write for the next period, however steady the traffic', async () => {
    vi.useFakeTimers();
    const { add, writes, inFlight } = heldWrites();
    const meter = createUsageMeter(add, { writeBehindMs: 1000 });
    for (let i = 0; i < 3; i++) meter.record('org', '/v2/vendors', AT);
    await vi.advanceTimersByTimeAsync(1000);
    expect(inFlight).toHaveLength(1);
    // Traffic goes on while that write is out, and after it returns.
    for (let i = 0; i < 5; i++) meter.record('org', '/v2/vendors', AT);
    inFlight.shift()!();
    for (let i = 0; i < 4; i++) meter.record('org', '/v2/vendors', AT);
    await vi.advanceTimersByTimeAsync(10);
    expect(writes).toEqual([3]);
    expect(inFlight).toHaveLength(0);
    // The period that began with the first call recorded during the write ends: one write of the rest.
    await vi.advanceTimersByTimeAsync(990);
    expect(inFlight).toHaveLength(1);
    inFlight.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toEqual([3, 9]);
  });

  it('writes every call recorded so far when flushed during a write', async () => {
    const { add, writes, inFlight } = heldWrites();
    const meter = createUsageMeter(add, { writeBehindMs: 3_600_000 });
    for (let i = 0; i < 2; i++) meter.record('org', '/v2/vendors', AT);
    const first = meter.flush();
    await Promise.resolve();
    for (let i = 0; i < 6; i++) meter.record('org', '/v2/vendors', AT);
    const second = meter.flush();
    // Let each write return as it comes (bounded: a meter that never writes the second fails below).
    for (let turn = 0; turn < 50 && writes.length < 2; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      inFlight.shift()?.();
    }
    expect(writes).toEqual([2, 6]);
    await Promise.all([first, second]);
  });

  it('keeps counts across a failed write and stores them with the next flush', async () => {
    const { add, total } = recorder(1);
    const meter = createUsageMeter(add, { writeBehindMs: 3_600_000 });
    for (let i = 0; i < 5; i++) await meter.record('org', '/v2/vendors', AT);
    await expect(meter.flush()).rejects.toThrow('table unavailable');
    expect(total()).toBe(0);
    await meter.record('org', '/v2/vendors', AT);
    await meter.flush();
    expect(total()).toBe(6);
  });

  it('gives counts up after three failed writes and reports them', async () => {
    const { add, total } = recorder(3);
    const lost: number[] = [];
    const meter = createUsageMeter(add, { writeBehindMs: 3_600_000, onLost: (_e, calls) => lost.push(calls) });
    for (let i = 0; i < 4; i++) await meter.record('org', '/v2/vendors', AT);
    for (let attempt = 0; attempt < 3; attempt++) await meter.flush().catch(() => undefined);
    expect(lost).toEqual([4]);
    await meter.flush();
    expect(total()).toBe(0);
  });

  it('makes usage read in this process include every call recorded before it', async () => {
    const { add, total } = recorder();
    const meter = createUsageMeter(add, { writeBehindMs: 3_600_000 });
    const backing: UsageStore = {
      increment: async () => undefined,
      read: async () => [{ path: '/v2/vendors', calls: total() }],
    };
    const store = withMeterFlush(backing, meter);
    for (let i = 0; i < 9; i++) await meter.record('org', '/v2/vendors', AT);
    expect(await store.read('org', null)).toEqual([{ path: '/v2/vendors', calls: 9 }]);
  });
});

describe('awaited usage meter (Lambda)', () => {
  it('settles each call only once its count is stored, coalescing concurrent calls', async () => {
    const { add, writes, total } = recorder();
    const meter = createUsageMeter(add);
    const pending = Array.from({ length: 10 }, () => meter.record('org', '/v2/vendors', AT));
    expect(writes).toEqual([]);
    await Promise.all(pending);
    expect(total()).toBe(10);
    expect(writes.length).toBeLessThan(10);
  });

  it('rejects the callers of a failed write', async () => {
    const { add } = recorder(1);
    const meter = createUsageMeter(add);
    await expect(meter.record('org', '/v2/vendors', AT)).rejects.toThrow('table unavailable');
  });
});

describe('hour buckets', () => {
  it('name the UTC hour of each instant, across hour changes in any order', () => {
    const at = (iso: string) => hourBucket(new Date(iso));
    expect(at('2026-03-10T15:00:00.000Z')).toBe('2026-03-10T15');
    expect(at('2026-03-10T15:59:59.999Z')).toBe('2026-03-10T15');
    expect(at('2026-03-10T16:00:00.000Z')).toBe('2026-03-10T16');
    expect(at('2026-03-10T15:30:00.000Z')).toBe('2026-03-10T15');
    expect(at('2026-03-11T15:30:00.000Z')).toBe('2026-03-11T15');
    expect(at('1969-12-31T23:59:59.999Z')).toBe('1969-12-31T23');
    expect(() => hourBucket(new Date(Number.NaN))).toThrow(RangeError);
  });
});
