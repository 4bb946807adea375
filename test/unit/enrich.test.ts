import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { EnrichmentInput } from '../../lambdas/ports/enricher';
import { colourFamily, createOfflineEnricher, matchTaxonomy } from '../../lambdas/domain/enrichment';
import { CORPORA } from '../corpora';

const enricher = createOfflineEnricher();
const corpora = CORPORA;

function product(partial: Partial<EnrichmentInput>): EnrichmentInput {
  return {
    title: null,
    description: null,
    brand: null,
    tags: [],
    storeProductType: null,
    options: {},
    breadcrumbs: [],
    ...partial,
  };
}

/** The <title> of a saved page of the product-extraction benchmark, as the store wrote it. */
function pageTitle(hash: string): string {
  const html = gunzipSync(
    readFileSync(path.join(corpora, 'product-extraction-benchmark/html', `${hash}.html.gz`)),
  ).toString('utf8');
  const raw = /<title[^>]*>([^<]*)/i.exec(html)?.[1] ?? '';
  return raw.replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
}

describe('offline enricher', () => {
  it("reads a clear apparel product: Men's Cotton Crew Neck T-Shirt, navy", async () => {
    const result = await enricher.enrich(
      product({
        title: "Men's Cotton Crew Neck T-Shirt",
        description:
          'A soft everyday tee. Made from 100% organic cotton.\n• Crew neck\n• Short sleeves\n• Machine wash cold',
        options: { Color: ['Navy'], Size: ['S', 'M', 'L'] },
        tags: ['summer'],
      }),
    );
    expect(result.taxonomy_product_category_id).toBe('gid://shopify/TaxonomyCategory/aa-1-13-8');
    expect(result.taxonomy_product_category_path).toBe('Apparel & Accessories > Clothing > Clothing Tops > T-Shirts');
    expect(result.product_type).toBe('T-Shirts');
    const a = result.attributes;
    expect(a.color).toEqual({ iscc_family: 'blue', merchant_label: 'Navy' });
    expect(a.material?.primary).toBe('cotton');
    expect(a.gender).toBe('men');
    expect(a.age_group).toBe('adult');
    expect(a.season).toEqual(['summer']);
    expect(a.summary).toBe('A soft everyday tee.');
    expect(a.features).toEqual(['Crew neck', 'Short sleeves', 'Machine wash cold']);
    expect(a.care_instructions).toBe('Machine wash cold');
    expect(a.additional_attributes).toContain('Size: S, M, L');
  });

  it('keeps the store product type and reads a stated blend, care line and German colour', async () => {
    const result = await enricher.enrich(
      product({
        title: 'Slim Fit Stretch Jeans',
        description: 'Composition: 98% cotton, 2% elastane. Care: Machine wash at 30°C. Fit: Slim',
        storeProductType: 'Denim Bottoms',
        options: { Farbe: ['Dunkelblau'] },
        breadcrumbs: ['Home', 'Women', 'Jeans'],
      }),
    );
    expect(result.product_type).toBe('Denim Bottoms');
    expect(result.taxonomy_product_category_path).toBe('Apparel & Accessories > Clothing > Pants > Jeans');
    expect(result.attributes.material).toEqual({ primary: 'cotton', merchant_label: '98% cotton, 2% elastane' });
    expect(result.attributes.care_instructions).toBe('Machine wash at 30°C');
    expect(result.attributes.color).toEqual({ iscc_family: 'blue', merchant_label: 'Dunkelblau' });
    expect(result.attributes.gender).toBe('women');
    expect(result.attributes.additional_attributes).toContain('Fit: Slim');
  });

  it('takes the largest share of a blend as the primary material', async () => {
    const a = await enricher.enrich(product({ title: 'Hoodie', description: 'Material: Polyester 70%, Cotton 30%' }));
    expect(a.attributes.material?.primary).toBe('polyester');
    const b = await enricher.enrich(
      product({ title: 'Sweatshirt', description: 'Soft and warm. 60% cotton 40% polyester.' }),
    );
    expect(b.attributes.material?.primary).toBe('cotton');
  });

  it('invents nothing for gibberish or empty input', async () => {
    for (const input of [product({ title: 'Xqzt Vrrpl 7781 Blorf' }), product({})]) {
      const result = await enricher.enrich(input);
      expect(result.taxonomy_product_category_id).toBeNull();
      expect(result.taxonomy_product_category_path).toBeNull();
      expect(result.product_type).toBeNull();
      const a = result.attributes;
      expect([a.color, a.material, a.gender, a.age_group, a.season, a.pattern, a.summary, a.features]).toEqual([
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
      ]);
    }
  });

  it('survives malformed input', async () => {
    const broken = {
      title: 42,
      description: ['x'],
      tags: 'a,b',
      options: null,
      breadcrumbs: [null, 'Shoes'],
    } as unknown as EnrichmentInput;
    const result = await enricher.enrich(broken);
    expect(result.attributes).toBeTypeOf('object');
  });

  it('is deterministic', async () => {
    const input = product({ title: 'GANT Akron Leather Chelsea Boot, Cognac', tags: ['mens', 'autumn'] });
    expect(await enricher.enrich(input)).toEqual(await enricher.enrich(input));
  });
});

describe('taxonomy on real titles (../shared/corpora)', () => {
  // Saved product pages of the extraction benchmark: their page titles as the store wrote them.
  it.each([
    ['01efbb747904557e90dcb56d1f255a4034d5206c796539e2ce4d9dd68672c098', 'Luggage & Bags > Duffel Bags'],
    ['96e88e40a1b4', 'Toys & Games > Puzzles > Jigsaw Puzzles'],
    ['b4298c1b23f7', 'Office Supplies > Office Equipment > Calculators > Scientific Calculators'],
    ['4708bedc6a2a', 'Home & Garden > Lighting > Lamps > Table Lamps'],
    ['fed7b69722e0', 'Apparel & Accessories > Clothing > Pants > Chinos'],
    ['b331d4765053', 'Apparel & Accessories > Clothing > Clothing Tops > Cardigans'],
    ['f48e9949eec5', 'Apparel & Accessories > Shoes > Boots'],
    ['4f4a8f8ddd03', 'Apparel & Accessories > Clothing > Pants > Jeans'],
  ])('page %s -> %s', async (hashPrefix, expected) => {
    const dir = path.join(corpora, 'product-extraction-benchmark/html');
    const hash = readdirSync(dir)
      .find((f) => f.startsWith(hashPrefix))!
      .replace('.html.gz', '');
    const match = await matchTaxonomy({
      title: pageTitle(hash),
      description: null,
      tags: [],
      storeProductType: null,
      breadcrumbs: [],
    });
    expect(match?.path).toBe(expected);
  });

  it('maps WANDS shopping queries of clear product types', async () => {
    const rows = readFileSync(path.join(corpora, 'search-queries/wands/query.csv'), 'utf8').split('\n');
    const query = (text: string) => {
      const row = rows.find((r) => r.split('\t')[1] === text);
      expect(row, text).toBeTruthy();
      return text;
    };
    const path_ = async (text: string) =>
      (
        await matchTaxonomy({
          title: query(text),
          description: null,
          tags: [],
          storeProductType: null,
          breadcrumbs: [],
        })
      )?.path ?? null;
    expect(await path_('smart coffee table')).toBe('Furniture > Tables > Accent Tables > Coffee Tables');
    expect(await path_('arwen table lamp')).toBe('Home & Garden > Lighting > Lamps > Table Lamps');
    expect(await path_('7qt slow cooker')).toMatch(/> Slow Cookers$/);
    expect(await path_('medium size chandelier')).toMatch(/> Chandeliers$/);
    expect(await path_('beach blue headboard')).toMatch(/> Headboards$/);
    // No product noun: no category.
    expect(await path_('home sweet home sign')).toBeNull();
    expect(await path_('gurney  slade 56')).toBeNull();
  });

  it('uses breadcrumbs and product type over the title', async () => {
    const match = await matchTaxonomy({
      title: 'The Classic',
      description: null,
      tags: [],
      storeProductType: null,
      breadcrumbs: ['Home', 'Shoes', 'Sneakers'],
    });
    expect(match?.id).toBe('gid://shopify/TaxonomyCategory/aa-8-8');
  });
});

describe('colour families (ISCC-NBS level 1)', () => {
  it.each([
    ['Navy', 'blue'],
    ['Burgundy', 'red'],
    ['Charcoal', 'gray'],
    ['Heather Grey', 'gray'],
    ['Khaki', 'brown'],
    ['Cream', 'white'],
    ['Teal', 'green'],
    ['Dusty Rose', 'pink'],
    ['Black/White', 'black'],
    ['Marinho', 'blue'],
    ['Olive', 'olive'],
    ['Mustard', 'yellow'],
    ['Lavender', 'purple'],
  ])('%s -> %s', async (label, family) => {
    expect(await colourFamily(label)).toBe(family);
  });

  it('gives no family for words that name no colour', async () => {
    expect(await colourFamily('Multicolor')).toBeNull();
    expect(await colourFamily('Style 42')).toBeNull();
  });

  it('reads the colour from a title when no option names it', async () => {
    const result = await enricher.enrich(product({ title: 'Glorious Gangsta MAVIS - Winter coat - black' }));
    expect(result.attributes.color).toEqual({ iscc_family: 'black', merchant_label: 'black' });
    expect(result.attributes.season).toEqual(['winter']);
  });
});
