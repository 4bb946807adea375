// The extraction engine over the fetcher and the offline enricher, and the synchronous path
// (legacy /api/product and /api/products, agentic verification) over it and the product records.
import { createOfflineEnricher } from '../domain/enrichment';
import { extractNow, type ExtractNowRequest, type ExtractNowResult } from '../domain/extract-jobs/sync';
import type { ExtractUrl } from '../domain/extraction/types';
import { productCatalogOf } from './catalog';
import { capability } from './container';
import { fetcherOf } from './fetcher';
import { escalatingExtractor, pageRendererOf, SYNC_URL_MS } from './rendering';

/** HTML first; the browser only for a client-rendered page without a product, or when asked (rendering.ts). */
export const extractUrlOf = capability(
  (base): ExtractUrl =>
    escalatingExtractor({
      fetcher: fetcherOf(base),
      enricher: createOfflineEnricher(),
      renderer: pageRendererOf(base),
      withinMs: SYNC_URL_MS,
    }),
);

export const extractNowOf = capability(
  (base) =>
    (request: ExtractNowRequest): Promise<ExtractNowResult> =>
      extractNow(request, { extractUrl: extractUrlOf(base), catalog: productCatalogOf(base) }),
);
