// Verification of agentic candidates against their live pages (the synchronous extraction path,
// a fresh stored record reused): v1's agentic search calls it in the request, v2's verify step
// (agentic-verify.ts) as a step of the workflow; apart so that v1 imports no workflow code.
import type { VerifyUrls } from '../domain/agentic/search';
import type { ExtractOptions } from '../domain/extraction/types';
import { capability } from './container';
import { extractNowOf } from './extraction';

export const verifyUrlsOf = capability((base): VerifyUrls => {
  const extractNow = extractNowOf(base);
  return async (urls, { enrichment }) => {
    const options: ExtractOptions = {
      enableEnrichment: enrichment,
      enableReviews: false,
      enableImageTags: false,
      enableSimilarProducts: false,
      countryCode: 'us',
    };
    const maxAgeMs = base.config.agenticVerifyMaxAgeMs;
    // A window of 0 never reuses a record: skip reading the stored one.
    const { results } = await extractNow({ urls, options, maxAgeMs, forceExtraction: maxAgeMs === 0 });
    return results;
  };
});
