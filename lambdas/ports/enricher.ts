// Enrichment behind a port: the offline deterministic enricher ships now; a model-backed one
// can replace it without touching the engine. Never an invented value: null where unknown.
import type { ProductAttributes } from '../domain/extraction/types';

export interface EnrichmentInput {
  title: string | null;
  description: string | null;
  brand: string | null;
  tags: string[];
  /** The store's own product type, if it states one. */
  storeProductType: string | null;
  /** Option names to values, e.g. { Color: ['Navy'], Size: ['S', 'M'] }. */
  options: Record<string, string[]>;
  breadcrumbs: string[];
}

export interface Enrichment {
  attributes: ProductAttributes;
  product_type: string | null;
  taxonomy_product_category_id: string | null;
  taxonomy_product_category_path: string | null;
}

export interface Enricher {
  enrich(input: EnrichmentInput): Promise<Enrichment>;
}
