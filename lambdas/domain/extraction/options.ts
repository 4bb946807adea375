// Request flags -> ExtractOptions, for every family: the contracts apply each family's defaults
// (v1 vendor mode defaults to true, the others to false); a flag the family does not offer is off.
import type { ExtractOptions, RenderMode } from './types';

export interface ExtractFlags {
  enable_enrichment?: boolean;
  enable_reviews?: boolean;
  enable_image_tags?: boolean;
  enable_similar_products?: boolean;
  country_code?: string;
  render?: RenderMode;
  include_provenance?: boolean;
}

export function extractOptionsFrom(flags: ExtractFlags): ExtractOptions {
  return {
    enableEnrichment: flags.enable_enrichment === true,
    enableReviews: flags.enable_reviews === true,
    enableImageTags: flags.enable_image_tags === true,
    enableSimilarProducts: flags.enable_similar_products === true,
    countryCode: (flags.country_code ?? 'us').toLowerCase(),
    ...(flags.render && flags.render !== 'auto' ? { render: flags.render } : {}),
    ...(flags.include_provenance === true ? { includeProvenance: true as const } : {}),
  };
}
