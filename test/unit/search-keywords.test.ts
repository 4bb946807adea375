// /api/regular-search's engine mode: keywords and filters only (DECISIONS). Case and plural
// forms meet; a word only a synonym (or a near spelling) would match finds nothing, while the
// understood mode still finds it through its synonyms.
import { describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { createSearchService } from '../../lambdas/domain/search/service';
import type { CatalogChange } from '../../lambdas/ports/search-index';
import type { SearchRequest } from '../../lambdas/domain/search/api';
import { product } from './agentic-fixtures';

const TITLES: Record<string, string> = {
  sneakers: 'Canvas Low Top Sneakers',
  sofa: 'Three Seat Linen Sofa',
  tshirt: 'Organic Cotton T-Shirt',
  sweater: 'Merino Crew Sweater',
  crib: 'Oak Baby Crib',
  flashlight: 'LED Flashlight, 1000 Lumen',
  pouch: 'Leather Coin Pouch',
  television: '55 inch 4K Television',
};

async function catalog() {
  const changes: CatalogChange[] = Object.entries(TITLES).map(([slug, title], i) => ({
    source: 'listing',
    url: `https://keywords.test/products/${slug}`,
    vendor: 'keywords.test',
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    country: null,
    product: product({
      id: slug,
      title,
      description: null,
      url: `https://keywords.test/products/${slug}`,
      attributes: null,
      tags: [],
      product_type: null,
      taxonomy_product_category_path: null,
      brand: null,
    }),
  }));
  const service = createSearchService({
    index: createMemoryIndex(),
    feed: null,
    records: { get: async () => null },
    snapshots: null,
    now: Date.now,
  });
  await service.ingest(changes);
  return service;
}

const slugs = async (service: Awaited<ReturnType<typeof catalog>>, query: string, mode: SearchRequest['mode']) =>
  (await service.search({ query, mode, offset: 0, limit: 20 })).hits.map((h) => h.item.url.split('/').pop());

describe('keyword mode (/api/regular-search)', () => {
  it('a word only a synonym would match finds nothing; the understood mode finds it', async () => {
    const service = await catalog();
    const synonyms: Array<[string, string]> = [
      ['trainers', 'sneakers'],
      ['couch', 'sofa'],
      ['tee', 'tshirt'],
      ['jumper', 'sweater'],
      ['cot', 'crib'],
      ['torch', 'flashlight'],
      ['tv', 'television'],
    ];
    for (const [word, slug] of synonyms) {
      expect(await slugs(service, word, 'keywords'), word).toEqual([]);
      expect(await slugs(service, word, 'understand'), word).toContain(slug);
    }
  });

  it('case and plural forms meet; the words as typed still find their products', async () => {
    const service = await catalog();
    expect(await slugs(service, 'SNEAKER', 'keywords')).toEqual(['sneakers']);
    expect(await slugs(service, 'sofas', 'keywords')).toEqual(['sofa']);
    expect(await slugs(service, 'T-Shirts', 'keywords')).toEqual(['tshirt']);
    expect(await slugs(service, 'pouches', 'keywords')).toEqual(['pouch']);
  });

  it('no near spellings either: a word the catalog lacks matches no look-alike', async () => {
    const service = await catalog();
    // "couch" is one letter from "pouch"; "sneekers" two from "sneakers".
    expect(await slugs(service, 'couch', 'keywords')).not.toContain('pouch');
    expect(await slugs(service, 'sneekers', 'keywords')).toEqual([]);
    expect(await slugs(service, 'sneekers', 'understand')).toEqual(['sneakers']);
  });
});
