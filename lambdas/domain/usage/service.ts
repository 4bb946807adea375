import type { UsageStore } from '../../ports/usage';
import { hourBucket, periodStartBucket, summarizeUsage, type UsagePeriod, type UsageRecord } from './periods';

export const recordCall = (store: UsageStore, org: string, routeTemplate: string, at: Date): Promise<void> =>
  store.increment(org, routeTemplate, hourBucket(at));

export async function usageForPeriod(store: UsageStore, org: string, period: UsagePeriod, now: Date): Promise<UsageRecord[]> {
  return summarizeUsage(await store.read(org, periodStartBucket(period, now)));
}
