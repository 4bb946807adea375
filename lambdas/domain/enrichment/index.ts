// Enrichment: attributes, product type and Shopify taxonomy category from what the store wrote.
export { createOfflineEnricher, enrichOffline } from './offline-enricher';
export { matchTaxonomy, taxonomyIndex, TAXONOMY_GID_PREFIX } from './taxonomy';
export type { TaxonomyInput, TaxonomyMatch } from './taxonomy';
export { colourFamily } from './colour';
export type { IsccFamily } from './colour';
