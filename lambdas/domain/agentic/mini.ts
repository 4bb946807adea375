// The mini searches: the best matches of the understood query, fast. With enrichment on, a
// product the catalog holds without attributes (a crawled listing, a record extracted with
// enrichment off) is enriched on the fly by the enricher, so every result carries what the
// offline enrichment can read from its title, description, options and tags.
import type { Enricher } from '../../ports/enricher';
import type { ProductRecord } from '../extraction/types';
import type { CatalogItem, ProductSearch } from '../search/api';

export interface MiniSearchRequest {
  query: string;
  enrichment: boolean;
  offset: number;
  limit: number;
}

async function enriched(product: ProductRecord, enricher: Enricher): Promise<ProductRecord> {
  if (product.attributes) return product;
  const enrichment = await enricher.enrich({
    title: product.title,
    description: product.description,
    brand: product.brand,
    tags: product.tags,
    storeProductType: product.product_type,
    options: Object.fromEntries(product.options.map((option) => [option.name, option.values])),
    breadcrumbs: [],
  });
  return {
    ...product,
    attributes: enrichment.attributes,
    product_type: product.product_type ?? enrichment.product_type,
    taxonomy_product_category_id: product.taxonomy_product_category_id ?? enrichment.taxonomy_product_category_id,
    taxonomy_product_category_path: product.taxonomy_product_category_path ?? enrichment.taxonomy_product_category_path,
  };
}

export async function miniSearch(
  deps: { search: ProductSearch; enricher: Enricher },
  request: MiniSearchRequest,
): Promise<{ items: CatalogItem[]; total: number }> {
  const found = await deps.search.search({
    query: request.query,
    mode: 'understand',
    offset: request.offset,
    limit: Math.max(1, request.limit),
  });
  const hits = found.hits.slice(0, request.limit);
  const items = request.enrichment
    ? await Promise.all(
        hits.map(async ({ item }) => ({ ...item, product: await enriched(item.product, deps.enricher) })),
      )
    : hits.map(({ item }) => item);
  return { items, total: found.total };
}
