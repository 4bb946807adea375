// Shared fixtures of the agentic unit tests: a complete product record to vary per case, and the
// execution and per-index result stores in memory (their DynamoDB adapters keep the same contract).
import type { ProductRecord } from '../../lambdas/domain/extraction/types';
import type { CatalogItem, ProductSearch, SearchRequest } from '../../lambdas/domain/search/api';
import type { Execution } from '../../lambdas/domain/executions/model';
import type { ExecutionPatch, ExecutionStore } from '../../lambdas/ports/executions';
import type { ExtractResultStore, UrlEntry } from '../../lambdas/ports/extract-results';

export function product(overrides: Partial<ProductRecord> = {}): ProductRecord {
  return {
    id: 'p1',
    title: 'Classic Cotton Tee',
    description: 'A tee. Pairs well with black jeans.',
    description_html: null,
    vendor: 'Shop',
    brand: 'Northwind',
    url: 'https://shop.test/products/classic-cotton-tee-1',
    handle: 'classic-cotton-tee-1',
    is_available: true,
    attributes: {
      color: { iscc_family: 'blue', merchant_label: 'Navy' },
      material: { primary: 'cotton', merchant_label: 'Cotton' },
      style: ['casual'],
    },
    price: { currency: 'USD', current_value: 25, compare_at_value: null },
    images: [
      {
        id: 'i1',
        url: 'https://shop.test/cdn/images/tee-1.jpg',
        width: 1200,
        height: 1200,
        alt_text: null,
        position: 1,
        variant_ids: [],
        attributes: null,
      },
    ],
    options: [],
    variants: [],
    store_canonical_url: null,
    store_domain: 'shop.test',
    platform: null,
    platform_id: null,
    product_type: 'T-Shirts',
    taxonomy_product_category_id: null,
    taxonomy_product_category_path: 'Apparel & Accessories > Clothing > Clothing Tops > T-Shirts',
    tags: ['t-shirts', 'cotton'],
    video_url: null,
    review_count: null,
    average_rating: null,
    rating_scale: null,
    faqs: null,
    reviews: null,
    updated_at: '2026-01-01T00:00:00.000Z',
    similar_products: null,
    affiliate_link: null,
    ...overrides,
  };
}

/** The execution store's contract in memory: conditional transitions, once-per-batch progress. */
export function memoryExecutionStore(): ExecutionStore & { items: Map<string, Execution> } {
  const items = new Map<string, Execution & { batches?: Set<string> }>();
  const copy = (e: Execution): Execution => structuredClone({ ...e, batches: undefined }) as Execution;
  const apply = (e: Execution, patch: ExecutionPatch) => {
    const { input, counters, ...rest } = patch;
    Object.assign(e, rest);
    if (input) e.input = { ...e.input, ...input };
    if (counters) e.counters = { ...e.counters, ...counters };
  };
  return {
    items,
    async create(execution) {
      if (items.has(execution.id)) throw new Error('exists');
      items.set(execution.id, structuredClone(execution));
    },
    async get(id) {
      const e = items.get(id);
      return e ? copy(e) : null;
    },
    async transition(id, from, to, patch = {}) {
      const e = items.get(id);
      if (!e || !from.includes(e.status) || (patch.finalized !== undefined && e.finalized)) return null;
      e.status = to;
      apply(e, patch);
      return copy(e);
    },
    async update(id, whileIn, patch) {
      const e = items.get(id);
      if (!e || !whileIn.includes(e.status)) return null;
      apply(e, patch);
      return copy(e);
    },
    async addProgress(id, batchId, increments) {
      const e = items.get(id);
      if (!e || e.finalized) return false;
      e.batches ??= new Set();
      if (e.batches.has(batchId)) return false;
      e.batches.add(batchId);
      for (const [k, v] of Object.entries(increments)) e.counters[k] = (e.counters[k] ?? 0) + v;
      return true;
    },
    async list() {
      return { items: [], total: 0 };
    },
    async overdue(now, limit) {
      return [...items.values()]
        .filter((e) => (e.status === 'pending' || e.status === 'running') && e.deadline <= now)
        .slice(0, limit)
        .map((e) => e.id);
    },
    async waiting() {
      return [];
    },
  };
}

/** Per-index entries in memory, moved pending -> done once. */
export function memoryResultStore(): ExtractResultStore {
  const byExecution = new Map<string, Map<number, UrlEntry>>();
  const of = (id: string) => byExecution.get(id) ?? byExecution.set(id, new Map()).get(id)!;
  const sorted = (id: string) => [...of(id).values()].sort((a, b) => a.index - b.index).map((e) => structuredClone(e));
  return {
    async putEntries(id, entries) {
      for (const entry of entries) of(id).set(entry.index, structuredClone(entry));
    },
    async record(id, index, result) {
      const entry = of(id).get(index);
      if (entry?.state !== 'pending') return false;
      entry.state = 'done';
      entry.result = structuredClone(result);
      return true;
    },
    async get(id, indices) {
      return sorted(id).filter((e) => indices.includes(e.index));
    },
    async range(id, from, limit) {
      return sorted(id)
        .filter((e) => e.index >= from)
        .slice(0, limit);
    },
    async all(id) {
      return sorted(id);
    },
  };
}

export function catalogOf(products: ProductRecord[]): CatalogItem[] {
  return products.map((p) => ({
    key: `shop.test ${p.url}`,
    url: p.url,
    vendor: 'shop.test',
    source: 'extraction',
    updatedAt: p.updated_at,
    product: p,
  }));
}

/** Matches every query word in the title; `under N` becomes a price ceiling, as the engine understands it. */
export function standInSearch(items: CatalogItem[], seen: SearchRequest[] = []): ProductSearch {
  return {
    async search(request) {
      seen.push(request);
      const ceiling = /under (\d+)/.exec(request.query);
      const words = request.query
        .replace(/under \d+/, '')
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean);
      const matching = items.filter(
        (item) =>
          words.every((w) => item.product.title!.toLowerCase().includes(w)) &&
          (request.filters?.isAvailable === undefined || item.product.is_available === request.filters.isAvailable),
      );
      return {
        hits: matching
          .slice(request.offset, request.offset + request.limit)
          .map((item, i) => ({ item, score: 100 - i })),
        total: matching.length,
        understood: {
          terms: words,
          colours: [],
          notColours: [],
          excluded: [],
          brands: [],
          ...(ceiling ? { price: { max: Number(ceiling[1]) } } : {}),
        },
      };
    },
    async feed() {
      return { items: [], total: 0 };
    },
  };
}
