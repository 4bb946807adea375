// In-memory fake of the claiming result store with the DynamoDB adapter's semantics: entries
// move pending -> done once (conditional), a batch claim is written once (first writer wins) and
// makes its pending entries done.
import type { BatchClaim, ClaimingResultStore, UrlEntry } from '../../lambdas/ports/extract-results';
import type { UrlResult } from '../../lambdas/domain/extraction/types';
import { decodeResult } from '../../lambdas/domain/extract-jobs/claim-protocol';

/** A failed URL's result of the retryable class (`other`, retry true), as a worker records it. */
export const failedResult = (url: string): UrlResult => ({
  url,
  product: null,
  success: false,
  outcome: 'other',
  retry: true,
  message: 'down',
});

export function memoryResultStore(): ClaimingResultStore & {
  entries: Map<string, Map<number, UrlEntry>>;
  writes: { record: number; put: number; claim: number };
} {
  const entries = new Map<string, Map<number, UrlEntry>>();
  const claimsOf = new Map<string, Map<string, BatchClaim>>();
  const writes = { record: 0, put: 0, claim: 0 };
  const of = (executionId: string) => {
    let map = entries.get(executionId);
    if (!map) entries.set(executionId, (map = new Map()));
    return map;
  };
  const copy = (entry: UrlEntry): UrlEntry => structuredClone(entry);
  const get = async (executionId: string, indices: number[]) =>
    [...new Set(indices)]
      .sort((a, b) => a - b)
      .flatMap((i) => {
        const entry = of(executionId).get(i);
        return entry ? [copy(entry)] : [];
      });
  return {
    entries,
    writes,
    async putEntries(executionId, list) {
      writes.put += list.length;
      for (const entry of list) of(executionId).set(entry.index, copy(entry));
    },
    async putPlan(executionId, list) {
      writes.put += list.length;
      for (const entry of list) of(executionId).set(entry.index, copy(entry));
    },
    async record(executionId, index, result) {
      const entry = of(executionId).get(index);
      if (entry?.state !== 'pending') return false;
      writes.record++;
      of(executionId).set(index, { ...entry, state: 'done', result: structuredClone(result) });
      return true;
    },
    get,
    async range(executionId, from, limit) {
      return [...of(executionId).values()]
        .filter((e) => e.index >= from)
        .sort((a, b) => a.index - b.index)
        .slice(0, limit)
        .map(copy);
    },
    async all(executionId) {
      return [...of(executionId).values()].sort((a, b) => a.index - b.index).map(copy);
    },
    async readBatch(executionId, batch) {
      return {
        entries: await get(executionId, batch.indices),
        claim: claimsOf.get(executionId)?.get(batch.id) ?? null,
      };
    },
    async claimBatch(executionId, batchId, results, products = []) {
      let claims = claimsOf.get(executionId);
      if (!claims) claimsOf.set(executionId, (claims = new Map()));
      const existing = claims.get(batchId);
      if (existing) return { won: false, claim: existing };
      writes.claim++;
      const claim: BatchClaim = {
        batchId,
        results: new Map(results.map(({ index, outcome }) => [index, { outcome }])),
        products: structuredClone([...products]),
      };
      claims.set(batchId, claim);
      // As the DynamoDB adapter's readers: the claim makes the entries it holds still pending done.
      for (const encoded of results) {
        const entry = of(executionId).get(encoded.index);
        if (entry?.state === 'pending')
          of(executionId).set(encoded.index, { ...entry, state: 'done', result: decodeResult(encoded) });
      }
      return { won: true, claim };
    },
    async outlines(executionId) {
      return [...of(executionId).values()]
        .sort((a, b) => a.index - b.index)
        .map(({ result, ...entry }) => ({
          ...copy({ ...entry, result: null }),
          result: result && { outcome: result.outcome },
        }));
    },
    async claims(executionId) {
      return new Map(claimsOf.get(executionId) ?? []);
    },
  };
}
