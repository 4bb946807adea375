// Mini search: the best matches, enriched on the fly by the real offline enricher when the
// catalog holds a product without attributes (a crawled listing), untouched when it has them.
import { describe, expect, it } from 'vitest';
import { miniSearch } from '../../lambdas/domain/agentic/mini';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { catalogOf, product, standInSearch } from './agentic-fixtures';

const listing = product({
  id: 'l1',
  title: 'Navy Cotton Crew Tee',
  url: 'https://shop.test/products/navy-cotton-crew-tee',
  attributes: null,
  product_type: null,
  taxonomy_product_category_id: null,
  taxonomy_product_category_path: null,
  options: [{ name: 'Color', values: ['Navy'], position: 1 }],
});
const extracted = product({
  id: 'e1',
  title: 'Cotton Tee Classic',
  url: 'https://shop.test/products/cotton-tee-classic',
});

describe('miniSearch', () => {
  const deps = { search: standInSearch(catalogOf([listing, extracted])), enricher: createOfflineEnricher() };

  it('enriches what the catalog holds without attributes; keeps what it has', async () => {
    const found = await miniSearch(deps, { query: 'tee', enrichment: true, offset: 0, limit: 10 });
    expect(found.total).toBe(2);
    const [first, second] = found.items;
    expect(first.product.attributes?.color).toMatchObject({ iscc_family: 'blue' });
    expect(first.product.taxonomy_product_category_path).toMatch(/T-Shirts/);
    expect(first.product.product_type).not.toBeNull();
    expect(second.product).toBe(extracted);
  });

  it('enrichment off: the records as held; limit and offset page the hits', async () => {
    const found = await miniSearch(deps, { query: 'tee', enrichment: false, offset: 0, limit: 10 });
    expect(found.items[0].product.attributes).toBeNull();
    const second = await miniSearch(deps, { query: 'tee', enrichment: true, offset: 1, limit: 1 });
    expect(second.items.map((i) => i.product.id)).toEqual(['e1']);
    expect((await miniSearch(deps, { query: 'tee', enrichment: true, offset: 10, limit: 0 })).items).toEqual([]);
  });
});
