// How an extraction is split into batches: plain extractions (small results) in batches of up to
// 100 URLs, about 10 of them; richer ones in batches of up to 50, about 20; never under 10 URLs.
import { describe, expect, it } from 'vitest';
import { batchingFor, batchSizeFor } from '../../lambdas/domain/extract-jobs/model';
import { planBatches } from '../../lambdas/domain/extract-jobs/steps';
import type { ExtractOptions } from '../../lambdas/domain/extraction/types';

const PLAIN: ExtractOptions = {
  enableEnrichment: false,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};
const pending = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ index, dup_of: null, state: 'pending' as const }));
const sizes = (count: number, options: ExtractOptions) => {
  const { max, batches } = batchingFor(options);
  return planBatches(pending(count), max, batches).map((batch) => batch.indices.length);
};

describe('extract batching', () => {
  it('splits 1000 plain URLs into 10 batches of 100, and any richer extraction into 20 of 50', () => {
    expect(sizes(1000, PLAIN)).toEqual(Array(10).fill(100));
    for (const flag of ['enableEnrichment', 'enableReviews', 'enableImageTags', 'enableSimilarProducts'] as const)
      expect(sizes(1000, { ...PLAIN, [flag]: true })).toEqual(Array(20).fill(50));
  });

  it('keeps small jobs in batches of at least 10 URLs, about 10 (plain) or 20 batches, never over the maximum', () => {
    expect(sizes(30, PLAIN)).toEqual([10, 10, 10]);
    expect(sizes(150, PLAIN)).toEqual(Array(10).fill(15));
    expect(sizes(150, { ...PLAIN, enableReviews: true })).toEqual(Array(15).fill(10));
    expect(sizes(5000, PLAIN)).toEqual(Array(50).fill(100));
    expect(batchSizeFor(1000)).toBe(50);
    expect(batchSizeFor(1000, 3)).toBe(3);
  });

  it('keeps duplicates with their first occurrence and names each batch by its first index', () => {
    const entries = [...pending(120), { index: 120, dup_of: 3, state: 'pending' as const }];
    // 121 pending entries: 13 URLs a batch (the duplicate fetched with index 3 counts too).
    const batches = planBatches(entries, 100, 10);
    expect(batches.map((b) => b.id)).toEqual(Array.from({ length: 10 }, (_, i) => `b${13 * i}`));
    expect(batches[0].indices).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 120]);
    expect(batches.flatMap((b) => b.indices).sort((x, y) => x - y)).toEqual(entries.map((e) => e.index));
  });
});
