// The options of a plain extraction (no enrichment, reviews, image tags or similar products) in
// the US, for the extraction jobs' tests and benches.
import type { ExtractOptions } from '../../lambdas/domain/extraction/types';

export const PLAIN_OPTIONS: ExtractOptions = {
  enableEnrichment: false,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};
