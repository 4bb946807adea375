// Summaries of a synchronous extraction (/api/products, /api/product): the distinct URLs looked
// up and the credits charged (DECISIONS: per successful product, duplicates share one charge).
import { creditsPerSuccess } from '../../domain/extract-jobs/model';
import type { ExtractOptions, UrlResult } from '../../domain/extraction/types';
import { normalizeUrl } from '../../domain/extraction/url';

export interface SyncSummary {
  /** Distinct normalised URLs of the valid entries, in first-occurrence order. */
  urlsProcessed: string[];
  creditsUsed: number;
}

export function summarizeSync(inputs: readonly unknown[], results: readonly UrlResult[], options: ExtractOptions): SyncSummary {
  const seen = new Set<string>();
  let charged = 0;
  inputs.forEach((input, index) => {
    const normalized = typeof input === 'string' ? normalizeUrl(input) : null;
    if (!normalized?.ok || seen.has(normalized.url)) return;
    seen.add(normalized.url);
    if (results[index]?.success) charged += 1;
  });
  return { urlsProcessed: [...seen], creditsUsed: charged * creditsPerSuccess(options) };
}
