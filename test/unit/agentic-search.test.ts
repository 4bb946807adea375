// Agentic search over a stand-in ProductSearch (words in the title, exact availability filter,
// ranked by catalog order) and a verifier whose live pages the test controls.
import { describe, expect, it } from 'vitest';
import { runAgenticSearch, type VerifyUrls } from '../../lambdas/domain/agentic/search';
import type { CatalogItem, SearchRequest } from '../../lambdas/domain/search/api';
import type { ProductRecord, UrlResult } from '../../lambdas/domain/extraction/types';
import { catalogOf, product, standInSearch } from './agentic-fixtures';

const tee = (i: number, overrides: Partial<ProductRecord> = {}) =>
  product({ id: `p${i}`, title: `Cotton Tee ${i}`, url: `https://shop.test/products/cotton-tee-${i}`, ...overrides });

/** Live pages: the stored product unless the test changed or broke it. */
function livePages(
  items: CatalogItem[],
  changes: Record<string, Partial<ProductRecord> | 'gone'> = {},
  asked: string[][] = [],
): VerifyUrls {
  return async (urls) => {
    asked.push([...urls]);
    return urls.map((url): UrlResult => {
      const change = changes[url];
      if (change === 'gone')
        return {
          url,
          product: null,
          success: false,
          outcome: 'non_product_url',
          retry: false,
          message: 'Page not found (404)',
        };
      const item = items.find((i) => i.url === url)!;
      return {
        url,
        product: { ...item.product, ...change },
        success: true,
        outcome: 'success',
        retry: false,
        message: '',
      };
    });
  };
}

describe('runAgenticSearch', () => {
  it('answers at most 8, best first, verified, for 5 credits', async () => {
    const items = catalogOf(Array.from({ length: 12 }, (_, i) => tee(i)));
    const asked: string[][] = [];
    const result = await runAgenticSearch(
      { search: standInSearch(items), verify: livePages(items, {}, asked) },
      { query: 'cotton tee', enrichment: true },
    );
    expect(result.products.map((p) => p.product.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    expect(result.credits).toBe(5);
    expect(asked).toEqual(items.slice(0, 8).map((i) => [i.url]));
  });

  it('drops a candidate whose page now fails or lacks a title, price or image, without filling its place', async () => {
    const items = catalogOf(Array.from({ length: 10 }, (_, i) => tee(i)));
    const verify = livePages(items, {
      [items[1].url]: 'gone',
      [items[3].url]: { images: [] },
      [items[5].url]: { price: { currency: 'USD', current_value: null, compare_at_value: null } },
    });
    const result = await runAgenticSearch(
      { search: standInSearch(items), verify },
      { query: 'cotton tee', enrichment: true },
    );
    expect(result.products.map((p) => p.product.id)).toEqual(['p0', 'p2', 'p4', 'p6', 'p7']);
    expect(result).toMatchObject({ candidates: 8, dropped: 3 });
  });

  it('uses the live record, and applies the hard rules to it again', async () => {
    const items = catalogOf(Array.from({ length: 4 }, (_, i) => tee(i)));
    const verify = livePages(items, {
      [items[0].url]: { price: { currency: 'USD', current_value: 19, compare_at_value: 25 } },
      [items[1].url]: { is_available: false },
      [items[2].url]: { price: { currency: 'USD', current_value: 80, compare_at_value: null } },
    });
    const result = await runAgenticSearch(
      { search: standInSearch(items), verify },
      { query: 'cotton tee under 50', profile: { preferences: { in_stock_only: true } }, enrichment: false },
    );
    expect(result.products.map((p) => [p.product.id, p.product.price.current_value])).toEqual([
      ['p0', 19],
      ['p3', 25],
    ]);
  });

  it('applies the profile: in_stock_only as an exact filter, avoid before verification, signals to the engine', async () => {
    const items = catalogOf([
      tee(0, { is_available: false }),
      tee(1, { title: 'Cotton Tee Polyester Blend 1' }),
      tee(2),
      tee(3, { attributes: { color: { iscc_family: 'black', merchant_label: 'Black' } } }),
      tee(4),
    ]);
    const seen: SearchRequest[] = [];
    const asked: string[][] = [];
    const result = await runAgenticSearch(
      { search: standInSearch(items, seen), verify: livePages(items, {}, asked) },
      {
        query: 'cotton tee',
        profile: { style: { avoid: ['polyester', 'black'], color: 'navy' }, preferences: { in_stock_only: true } },
        enrichment: true,
      },
    );
    expect(result.products.map((p) => p.product.id)).toEqual(['p2', 'p4']);
    expect(asked).toEqual([[items[2].url], [items[4].url]]);
    expect(seen.every((r) => r.mode === 'understand' && r.filters?.isAvailable === true)).toBe(true);
    expect(seen[0].profile).toMatchObject({ inStockOnly: true, avoid: ['polyester', 'black'], colours: ['navy'] });
  });

  it('one entry per product when two candidates land on the same page', async () => {
    const items = catalogOf([tee(0), tee(1), tee(2)]);
    const verify: VerifyUrls = async (urls) =>
      urls.map((url) =>
        url === items[1].url
          ? {
              url,
              product: items[0].product,
              success: true,
              outcome: 'success' as const,
              retry: false,
              message: '',
              final_url: items[0].url,
            }
          : {
              url,
              product: items.find((i) => i.url === url)!.product,
              success: true,
              outcome: 'success' as const,
              retry: false,
              message: '',
            },
      );
    const result = await runAgenticSearch(
      { search: standInSearch(items), verify },
      { query: 'cotton tee', enrichment: true },
    );
    expect(result.products.map((p) => p.url)).toEqual([items[0].url, items[2].url]);
  });

  it('a candidate not verified within the budget is dropped; the answer does not wait for it', async () => {
    const items = catalogOf(Array.from({ length: 3 }, (_, i) => tee(i)));
    const pages = livePages(items);
    const verify: VerifyUrls = (urls, options) =>
      urls[0] === items[1].url ? new Promise(() => {}) : pages(urls, options);
    const started = Date.now();
    const result = await runAgenticSearch(
      { search: standInSearch(items), verify },
      { query: 'cotton tee', enrichment: true, verifyBudgetMs: 200 },
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.products.map((p) => p.product.id)).toEqual(['p0', 'p2']);
    expect(result.dropped).toBe(1);
  });

  it('nothing found: no verification, no products, still 5 credits', async () => {
    const asked: string[][] = [];
    const result = await runAgenticSearch(
      { search: standInSearch([]), verify: livePages([], {}, asked) },
      { query: 'lamp', enrichment: true },
    );
    expect(result).toEqual({ products: [], candidates: 0, dropped: 0, credits: 5 });
    expect(asked).toEqual([]);
  });
});
