// Usage periods and hour buckets: every authenticated call is counted once per organization,
// route template and UTC hour; a period sums the buckets from its start hour up to now.
export const USAGE_PERIODS = ['24h', '7d', '30d', '90d', 'all'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];
export const DEFAULT_USAGE_PERIOD: UsagePeriod = '30d';

const HOURS: Record<Exclude<UsagePeriod, 'all'>, number> = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24, '90d': 90 * 24 };

const HOUR_MS = 3_600_000;
// The last hour named: every call within one hour gets the same string without formatting a date.
let lastHour = { start: Number.NaN, bucket: '' };

/** "2026-03-01T13": the UTC hour a call falls in; sorts lexicographically by time. */
export function hourBucket(at: Date): string {
  const ms = at.getTime();
  const start = ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
  if (start === lastHour.start) return lastHour.bucket;
  const bucket = at.toISOString().slice(0, 13);
  lastHour = { start, bucket };
  return bucket;
}

/** First hour bucket inside the period ending at `now`, or null for `all`. */
export function periodStartBucket(period: UsagePeriod, now: Date): string | null {
  if (period === 'all') return null;
  // The current hour counts as one of the period's hours.
  return hourBucket(new Date(now.getTime() - (HOURS[period] - 1) * 3_600_000));
}

export interface UsageRecord {
  path: string;
  total_calls: number;
}

/** Sums per-bucket counts per path, highest first (ties by path, so paging is stable). */
export function summarizeUsage(rows: Array<{ path: string; calls: number }>): UsageRecord[] {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.path, (totals.get(row.path) ?? 0) + row.calls);
  return [...totals]
    .map(([path, total_calls]) => ({ path, total_calls }))
    .sort((a, b) => b.total_calls - a.total_calls || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
