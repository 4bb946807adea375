import { describe, expect, it } from 'vitest';
import { hourBucket, periodStartBucket, summarizeUsage } from '../../lambdas/domain/usage/periods';
import {
  BUILT_IN_MERCHANTS,
  createMerchantDirectory,
  parseMerchantList,
} from '../../lambdas/domain/affiliate/merchants';
import { decide } from '../../lambdas/domain/ratelimit/policy';
import { paginate } from '../../lambdas/contracts/common';

describe('usage periods', () => {
  const now = new Date('2026-03-10T15:42:00Z');
  it('starts each period at the right hour bucket', () => {
    expect(hourBucket(now)).toBe('2026-03-10T15');
    expect(periodStartBucket('24h', now)).toBe('2026-03-09T16');
    expect(periodStartBucket('7d', now)).toBe('2026-03-03T16');
    expect(periodStartBucket('all', now)).toBeNull();
  });
  it('sums per path, highest first, ties by path', () => {
    expect(
      summarizeUsage([
        { path: '/b', calls: 2 },
        { path: '/a', calls: 1 },
        { path: '/a', calls: 1 },
        { path: '/c', calls: 5 },
      ]),
    ).toEqual([
      { path: '/c', total_calls: 5 },
      { path: '/a', total_calls: 2 },
      { path: '/b', total_calls: 2 },
    ]);
  });
});

describe('paging', () => {
  it('slices pages and reports totals', () => {
    expect(paginate([1, 2, 3, 4, 5], 2, 2)).toEqual({
      items: [3, 4],
      pagination: { page: 2, page_size: 2, total_items: 5, total_pages: 3, has_next: true, has_prev: true },
    });
    expect(paginate([], 1, 20).pagination).toEqual({
      page: 1,
      page_size: 20,
      total_items: 0,
      total_pages: 0,
      has_next: false,
      has_prev: false,
    });
  });
});

describe('affiliate merchants', () => {
  it('matches domains, alternates and subdomains but not look-alikes', () => {
    const directory = createMerchantDirectory(BUILT_IN_MERCHANTS);
    expect(directory.isMerchant('allbirds.com')).toBe(true);
    expect(directory.isMerchant('www.allbirds.co.uk')).toBe(true);
    expect(directory.isMerchant('shop.allbirds.com')).toBe(true);
    expect(directory.isMerchant('notallbirds.com')).toBe(false);
    expect(directory.isMerchant('com')).toBe(false);
  });
  it('parses a replacement list and rejects bad entries', () => {
    const directory = createMerchantDirectory(
      parseMerchantList(['https://www.Shop.example/', { domain: 'b.example', alternate_domains: ['b.example.de'] }]),
    );
    expect(directory.isMerchant('shop.example')).toBe(true);
    expect(directory.merchantFor('b.example.de')?.domain).toBe('b.example');
    expect(directory.isMerchant('allbirds.com')).toBe(false);
    expect(() => parseMerchantList({})).toThrow(/array/);
    expect(() => parseMerchantList([42])).toThrow(/entry 0/);
  });
});

describe('rate limit model', () => {
  it('admits a burst then one call per interval', () => {
    const policy = { ratePerSecond: 1, burst: 2 };
    let tat: number | undefined;
    const at = (ms: number) => {
      const step = decide(policy, tat, ms);
      if (step.decision.allowed) tat = step.tat;
      return step.decision;
    };
    expect(at(0).allowed).toBe(true);
    expect(at(0).allowed).toBe(true);
    expect(at(0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(at(999).allowed).toBe(false);
    expect(at(1000).allowed).toBe(true);
  });
});
