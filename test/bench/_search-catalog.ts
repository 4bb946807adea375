// Catalogs for the search benchmarks and tests, from the store simulator's own generator: each
// simulated product becomes the record an extraction stores (options, variants, prices, stock,
// images, and the offline enrichment's attributes and category), with its ground truth beside
// it for grading. (Underscore: a helper, not a bench of its own.)
import { enrichOffline } from '../../lambdas/domain/enrichment';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';
import type { CatalogChange } from '../../lambdas/ports/search-index';
import { buildStore, STORE_SPECS, type SimProduct, type StoreModel } from '../stores';

export interface Truth {
  url: string;
  /** The simulator's product type: T-Shirts, Hoodies, Sneakers, Mugs, Headphones, Lamps. */
  type: string;
  brand: string;
  /** Colour option values as the store writes them; the first is the primary colour. */
  colours: string[];
  price: number;
  currency: string;
  available: boolean;
  material: string;
  title: string;
}

/** The stores whose products are ordinary (no hostile behaviour, no exotic currency scale). */
export function catalogStores(perStore: number, seed = 7): StoreModel[] {
  return STORE_SPECS.filter(
    (spec) =>
      !spec.behaviour && (!spec.priceStyle || spec.priceStyle.currency === 'USD' || spec.priceStyle.currency === 'GBP'),
  ).map((spec) => buildStore(spec, perStore, seed));
}

export function simToRecord(store: StoreModel, p: SimProduct): ProductRecord {
  const images = p.images.map((image, i) => ({
    id: `${p.id}-${i + 1}`,
    url: image.url,
    width: image.width,
    height: image.height,
    alt_text: image.alt,
    position: i + 1,
    variant_ids: [],
    attributes: null,
  }));
  return {
    id: p.id,
    title: p.title,
    description: p.description,
    description_html: p.descriptionHtml,
    vendor: store.name,
    brand: p.brand,
    url: p.url,
    handle: p.handle,
    is_available: p.available,
    attributes: null,
    price: { currency: p.currency, current_value: p.price, compare_at_value: p.compareAt },
    images,
    options: p.options.map((o, i) => ({ name: o.name, values: o.values, position: i + 1 })),
    variants: p.variants.map((v) => ({
      id: v.id,
      sku: v.sku,
      url: null,
      title: v.title,
      option1: v.optionValues[0] ?? null,
      option2: v.optionValues[1] ?? null,
      option3: v.optionValues[2] ?? null,
      is_available: v.available,
      price: { currency: p.currency, current_value: v.price, compare_at_value: v.compareAt },
      image: null,
      affiliate_link: null,
    })),
    store_canonical_url: p.url,
    store_domain: store.host,
    platform: store.platform,
    platform_id: p.id,
    product_type: null,
    taxonomy_product_category_id: null,
    taxonomy_product_category_path: null,
    tags: p.tags,
    video_url: null,
    review_count: p.reviews.length,
    average_rating: p.averageRating,
    rating_scale: 5,
    faqs: null,
    reviews: null,
    updated_at: '2026-01-01T00:00:00.000Z',
    similar_products: null,
    affiliate_link: null,
  };
}

/** The record with the offline enrichment applied, as an extraction with enrichment on stores it. */
export async function enrichedRecord(store: StoreModel, p: SimProduct): Promise<ProductRecord> {
  const record = simToRecord(store, p);
  const enrichment = await enrichOffline({
    title: record.title,
    description: record.description,
    brand: record.brand,
    tags: record.tags,
    storeProductType: p.productType,
    options: Object.fromEntries(p.options.map((o) => [o.name, o.values])),
    breadcrumbs: [],
  });
  return { ...record, ...enrichment };
}

export function truthOf(p: SimProduct): Truth {
  return {
    url: p.url,
    type: p.productType,
    brand: p.brand,
    colours: p.options.find((o) => o.name === 'Color')?.values ?? [],
    price: p.price,
    currency: p.currency,
    available: p.available,
    material: p.title.split(' ')[1],
    title: p.title,
  };
}

/**
 * `perStore` products of each ordinary store as extraction changes, with their truth. `enrich`
 * off skips the enrichment (the latency bench's 100,000 products: its cost is indexing's, not
 * search's).
 */
/** A stored product as the feed reads it (never a removal). */
export type StoredChange = CatalogChange & { product: ProductRecord };

export async function buildCatalog(
  perStore: number,
  options: { enrich?: boolean; seed?: number; updatedAt?: (i: number) => string } = {},
) {
  const changes: StoredChange[] = [];
  const truths: Truth[] = [];
  let n = 0;
  for (const store of catalogStores(perStore, options.seed)) {
    for (let i = 0; i < store.productCount; i++) {
      const p = store.product(i);
      const product = options.enrich === false ? simToRecord(store, p) : await enrichedRecord(store, p);
      changes.push({
        source: 'extraction',
        url: p.url,
        vendor: store.host,
        updatedAt: options.updatedAt?.(n) ?? new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
        country: 'us',
        product,
      });
      truths.push(truthOf(p));
      n++;
    }
  }
  return { changes, truths };
}

/** Records by URL, as the table would serve them for hits. */
export function recordsOf(changes: StoredChange[]) {
  const byUrl = new Map(changes.map((c) => [c.url, c]));
  return {
    async get(ref: { url: string; country: string }) {
      const change = byUrl.get(ref.url);
      return change ? { product: change.product, updatedAt: change.updatedAt } : null;
    },
  };
}
