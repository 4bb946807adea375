// The constraint set (test/fixtures/search-constraints): a hand-written catalog of product kinds
// the simulator does not sell and queries that state constraints (price bounds, gender and age,
// negations, stock), graded per returned product: does it keep every stated constraint? Shared by
// the unit test (which holds the figure to its goal) and the search-relevance bench (which
// prints it). (Underscore: a helper, not a bench of its own.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { createOfflineEnricher, enrichOffline } from '../../lambdas/domain/enrichment';
import { miniSearch } from '../../lambdas/domain/agentic/mini';
import { MINI_RESULTS } from '../../lambdas/domain/agentic/search';
import { listingAsProduct } from '../../lambdas/domain/search/document';
import { createSearchService } from '../../lambdas/domain/search/service';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';
import type { CatalogChange } from '../../lambdas/ports/search-index';

const FIXTURES = fileURLToPath(new URL('../fixtures/search-constraints/', import.meta.url));

export interface ConstraintTruth {
  id: string;
  title: string;
  description: string;
  brand: string | null;
  price: number;
  available: boolean | null;
  colour: string | null;
  gender: 'women' | 'men' | 'unisex' | 'girls' | 'boys' | null;
  age: 'adult' | 'kids' | 'baby' | null;
  has: string[];
  source?: 'listing';
}

export interface StatedConstraints {
  min?: number;
  max?: number;
  inStock?: boolean;
  gender?: 'women' | 'men' | 'girls' | 'boys';
  age?: 'adult' | 'kids' | 'baby';
  not?: string[];
  notBrand?: string;
}

export interface ConstraintQuery {
  query: string;
  constraints: StatedConstraints;
}

export const constraintCatalog = (): ConstraintTruth[] =>
  JSON.parse(readFileSync(join(FIXTURES, 'catalog.json'), 'utf8')).products;
export const constraintQueries = (): ConstraintQuery[] =>
  JSON.parse(readFileSync(join(FIXTURES, 'queries.json'), 'utf8')).queries;

const CHILD = new Set(['kids', 'baby']);

/** The constraints a product breaks (empty: it keeps them all). */
export function broken(truth: ConstraintTruth, c: StatedConstraints): string[] {
  const out: string[] = [];
  if (c.min !== undefined && !(truth.price >= c.min)) out.push(`price ${truth.price} < ${c.min}`);
  if (c.max !== undefined && !(truth.price <= c.max)) out.push(`price ${truth.price} > ${c.max}`);
  if (c.inStock && truth.available !== true) out.push('not known in stock');
  const child = truth.age !== null && CHILD.has(truth.age);
  if (c.gender === 'women' || c.gender === 'men') {
    if (truth.gender !== null && truth.gender !== 'unisex' && truth.gender !== c.gender)
      out.push(`for ${truth.gender}`);
    if (child) out.push(`a ${truth.age} product`);
  }
  if (c.gender === 'girls' || c.gender === 'boys') {
    if (truth.gender !== null && truth.gender !== 'unisex' && truth.gender !== c.gender)
      out.push(`for ${truth.gender}`);
    if (!child) out.push('not a child product');
  }
  if ((c.age === 'kids' || c.age === 'baby') && !child) out.push('not a child product');
  if (c.age === 'adult' && child) out.push(`a ${truth.age} product`);
  for (const feature of c.not ?? []) if (truth.has.includes(feature)) out.push(`has ${feature}`);
  if (c.notBrand && truth.brand === c.notBrand) out.push(`by ${c.notBrand}`);
  return out;
}

function recordOf(t: ConstraintTruth, url: string): ProductRecord {
  const base = listingAsProduct({
    id: t.id,
    url,
    name: t.title,
    images: [
      { id: `${t.id}-1`, url: `https://constraints.test/cdn/${t.id}.jpg`, width: 800, height: 800, position: 1 },
    ],
    price: { currency: 'USD', current_value: t.price, compare_at_value: null },
    vendor: 'constraints.test',
    last_updated_by_service: '2026-03-01T00:00:00.000Z',
  });
  if (t.source === 'listing') return base;
  return {
    ...base,
    description: t.description || null,
    brand: t.brand,
    is_available: t.available,
    options: t.colour ? [{ name: 'Color', values: [t.colour], position: 1 }] : [],
  };
}

/** The catalog as the service stores it: extractions enriched offline (enrichment on), listings as crawled. */
export async function constraintChanges(): Promise<{ changes: CatalogChange[]; truths: Map<string, ConstraintTruth> }> {
  const truths = new Map<string, ConstraintTruth>();
  const changes: CatalogChange[] = [];
  for (const [i, t] of constraintCatalog().entries()) {
    const url = `https://constraints.test/products/${t.id}`;
    truths.set(url, t);
    let product = recordOf(t, url);
    if (t.source !== 'listing') {
      const enrichment = await enrichOffline({
        title: product.title,
        description: product.description,
        brand: product.brand,
        tags: [],
        storeProductType: null,
        options: Object.fromEntries(product.options.map((o) => [o.name, o.values])),
        breadcrumbs: [],
      });
      product = { ...product, ...enrichment };
    }
    changes.push({
      source: t.source === 'listing' ? 'listing' : 'extraction',
      url,
      vendor: 'constraints.test',
      updatedAt: new Date(Date.UTC(2026, 2, 1, 0, 0, i)).toISOString(),
      country: t.source === 'listing' ? null : 'us',
      product,
    });
  }
  return { changes, truths };
}

export interface ConstraintFigure {
  /** Returned products that keep every stated constraint / returned products. */
  precision: number;
  queries: number;
  returned: number;
  kept: number;
  /** query -> titles returned that break something, with what. */
  failures: Array<{ operation: string; query: string; title: string; broken: string[] }>;
}

/** The figure over /api/search (its default page of 20) and the mini searches (their best 10). */
export async function measureConstraints(): Promise<ConstraintFigure> {
  const { changes, truths } = await constraintChanges();
  const byUrl = new Map(changes.map((c) => [c.url, c]));
  const search = createSearchService({
    index: createMemoryIndex(),
    feed: null,
    records: {
      get: async (ref) => {
        const c = byUrl.get(ref.url);
        return c?.product ? { product: c.product, updatedAt: c.updatedAt } : null;
      },
    },
    snapshots: null,
    now: Date.now,
  });
  await search.ingest(changes);
  const enricher = createOfflineEnricher();
  const queries = constraintQueries();
  const figure: ConstraintFigure = { precision: 1, queries: queries.length, returned: 0, kept: 0, failures: [] };
  for (const { query, constraints } of queries) {
    const operations: Array<[string, string[]]> = [
      [
        '/api/search',
        (await search.search({ query, mode: 'understand', offset: 0, limit: 20 })).hits.map((h) => h.item.url),
      ],
      [
        'mini searches',
        (await miniSearch({ search, enricher }, { query, enrichment: true, offset: 0, limit: MINI_RESULTS })).items.map(
          (item) => item.url,
        ),
      ],
    ];
    for (const [operation, urls] of operations) {
      for (const url of urls) {
        const truth = truths.get(url)!;
        const why = broken(truth, constraints);
        figure.returned++;
        if (why.length === 0) figure.kept++;
        else figure.failures.push({ operation, query, title: truth.title, broken: why });
      }
    }
  }
  figure.precision = figure.returned ? figure.kept / figure.returned : 1;
  return figure;
}
