// The synchronous extraction behind legacy POST /api/products and /api/product: up to 50 URLs in
// the request, fetched with bounded concurrency; a stored record younger than the freshness
// window (PRODUCT_FRESHNESS_MS, 24 h) that has every requested part is served instead of a
// fetch unless forceExtraction (or include_provenance: stored records carry none).
import { invalid } from '../errors';
import type { ExtractOptions, ExtractUrl, UrlResult } from '../extraction/types';
import { withoutProvenance } from '../extraction/provenance';
import { resultFor, unexpectedFailure } from '../extraction/results';
import { PRODUCT_FRESHNESS_MS, type ProductCatalog } from '../products/catalog';
import { planEntries } from './jobs';
import { eachLimited } from './concurrency';
import { creditsPerSuccess } from './model';

export const MAX_SYNC_URLS = 50;
export const SYNC_CONCURRENCY = 8;

export interface ExtractNowDeps {
  extractUrl: ExtractUrl;
  catalog?: ProductCatalog;
  concurrency?: number;
}

export interface ExtractNowRequest {
  /** As sent; every index gets exactly one result, in order. */
  urls: readonly unknown[];
  options: ExtractOptions;
  forceExtraction?: boolean;
  /** Override of the freshness window (ms). */
  maxAgeMs?: number;
}

export interface ExtractNowResult {
  results: UrlResult[];
  /** Per index: true when the result came from the stored record rather than a new fetch. */
  fromStore: boolean[];
  total_requested: number;
  total_successful: number;
  total_failed: number;
  /** Distinct normalised URLs of the valid entries, in first-occurrence order. */
  urls_processed: string[];
  /** DECISIONS: per successful product (+1 per enabled option); a duplicate shares its first occurrence's charge. */
  credits_used: number;
}

export async function extractNow(request: ExtractNowRequest, deps: ExtractNowDeps): Promise<ExtractNowResult> {
  if (!Array.isArray(request.urls) || request.urls.length === 0) throw invalid('urls must be a non-empty array');
  if (request.urls.length > MAX_SYNC_URLS)
    throw invalid(`urls must hold at most ${MAX_SYNC_URLS} entries`, { max_urls: MAX_SYNC_URLS });
  const { entries } = planEntries(request.urls);
  const results: UrlResult[] = entries.map((entry) => entry.result!).slice();
  const fromStore = entries.map(() => false);

  // One fetch per distinct normalised URL; duplicates copy it under their own input URL.
  const firsts = entries.filter((entry) => entry.state === 'pending' && entry.dup_of === null);
  const byFirst = new Map<number, UrlResult>();
  const storedFor = new Set<number>();
  await eachLimited(firsts, deps.concurrency ?? SYNC_CONCURRENCY, async (entry) => {
    const url = entry.url!;
    // Provenance is not kept with stored records: a request that asks for it reads the page.
    if (!request.forceExtraction && !request.options.includeProvenance && deps.catalog) {
      const stored = await deps.catalog.findFresh(url, request.options, request.maxAgeMs ?? PRODUCT_FRESHNESS_MS);
      if (stored) {
        byFirst.set(entry.index, {
          url,
          product: stored,
          success: true,
          outcome: 'success',
          retry: false,
          message: '',
        });
        storedFor.add(entry.index);
        return;
      }
    }
    let result: UrlResult;
    try {
      result = await deps.extractUrl(url, request.options);
    } catch {
      result = unexpectedFailure(url);
    }
    if (result.success && result.product && deps.catalog)
      await deps.catalog.remember(url, request.options, withoutProvenance(result.product));
    byFirst.set(entry.index, result);
  });
  for (const entry of entries) {
    if (entry.state !== 'pending') continue;
    const first = entry.dup_of ?? entry.index;
    results[entry.index] = resultFor(entry.input, byFirst.get(first)!);
    fromStore[entry.index] = storedFor.has(first);
  }
  const successful = results.filter((r) => r.success).length;
  const charged = firsts.filter((entry) => byFirst.get(entry.index)?.success).length;
  return {
    results,
    fromStore,
    total_requested: results.length,
    total_successful: successful,
    total_failed: results.length - successful,
    urls_processed: firsts.map((entry) => entry.url!),
    credits_used: charged * creditsPerSuccess(request.options),
  };
}
