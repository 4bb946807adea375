import type { UsageStore } from '../../ports/usage';
import { periodStartBucket, summarizeUsage, type UsagePeriod, type UsageRecord } from './periods';

export async function usageForPeriod(
  store: UsageStore,
  org: string,
  period: UsagePeriod,
  now: Date,
): Promise<UsageRecord[]> {
  return summarizeUsage(await store.read(org, periodStartBucket(period, now)));
}
