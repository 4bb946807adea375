// The product store as the extraction jobs use it: remember the latest record per URL and
// country, tell the vendor store about it, and serve a fresh stored record instead of a new
// fetch when the caller allows it (the synchronous /api/product(s) path).
import type { ExtractOptions, ProductRecord } from '../extraction/types';
import type { BatchProductStore, ProductFlags, StoredProduct } from '../../ports/products';
import type { VendorStore } from '../../ports/vendors';
import { vendorKey } from '../extraction/url';
import { recordProductSeen, recordProductsSeen } from '../vendors/service';

/**
 * How long a stored record may be served instead of extracting again: a day, the window in which
 * prices and availability of most shops stay put and after which peers expire their results too.
 */
export const PRODUCT_FRESHNESS_MS = 24 * 60 * 60 * 1000;

export const flagsOf = (options: ExtractOptions): ProductFlags => ({
  enrichment: options.enableEnrichment,
  reviews: options.enableReviews,
  image_tags: options.enableImageTags,
  similar_products: options.enableSimilarProducts,
});

/** A stored record can answer a request when it has every part the request turns on. */
export const covers = (stored: ProductFlags, wanted: ProductFlags): boolean =>
  (stored.enrichment || !wanted.enrichment) &&
  (stored.reviews || !wanted.reviews) &&
  (stored.image_tags || !wanted.image_tags) &&
  (stored.similar_products || !wanted.similar_products);

/** Nulls the fields a flag governs when that flag is off (the spec's flag-dependence table). */
export function maskToFlags(product: ProductRecord, flags: ProductFlags): ProductRecord {
  const untag = <T extends { attributes: unknown } | null>(image: T): T =>
    image && !flags.image_tags ? { ...image, attributes: null } : image;
  return {
    ...product,
    ...(flags.enrichment
      ? {}
      : {
          attributes: null,
          product_type: null,
          taxonomy_product_category_id: null,
          taxonomy_product_category_path: null,
        }),
    reviews: flags.reviews ? product.reviews : null,
    similar_products: flags.similar_products ? product.similar_products : null,
    images: product.images.map(untag),
    variants: product.variants.map((variant) => ({ ...variant, image: untag(variant.image) })),
  };
}

export interface ProductCatalogDeps {
  store: BatchProductStore;
  /** The vendor summaries to keep current; omitted where vendors are not tracked. */
  vendors?: VendorStore;
  now?: () => Date;
}

export type ProductCatalog = ReturnType<typeof createProductCatalog>;

/**
 * One vendor update per vendor of a batch of stored records (ascending instants): its new
 * products counted together, its newest instant as the latest update.
 */
async function tellVendors(
  vendors: VendorStore,
  records: readonly StoredProduct[],
  stored: ReadonlyArray<{ firstSeen: boolean }>,
): Promise<void> {
  const perVendor = new Map<string, { newProducts: number; updatedAt: string }>();
  for (const [i, record] of records.entries()) {
    if (!record.vendor) continue;
    const seen = perVendor.get(record.vendor) ?? { newProducts: 0, updatedAt: record.updated_at };
    if (stored[i].firstSeen) seen.newProducts++;
    if (record.updated_at > seen.updatedAt) seen.updatedAt = record.updated_at;
    perVendor.set(record.vendor, seen);
  }
  await Promise.all([...perVendor].map(([vendor, seen]) => recordProductsSeen(vendors, { vendor, ...seen })));
}

export function createProductCatalog(deps: ProductCatalogDeps) {
  const now = deps.now ?? (() => new Date());
  let nextInstant = 0;
  let vendorTurn: Promise<void> = Promise.resolve();
  return {
    /** Stores a successful extraction of `url` and counts it for its vendor (new only the first time). */
    async remember(url: string, options: ExtractOptions, product: ProductRecord): Promise<{ newProduct: boolean }> {
      const updatedAt = now().toISOString();
      const vendor = vendorKey(product.url || url) ?? vendorKey(url);
      const { firstSeen } = await deps.store.put({
        url,
        country: options.countryCode,
        vendor,
        product,
        flags: flagsOf(options),
        updated_at: updatedAt,
      });
      if (vendor && deps.vendors) await recordProductSeen(deps.vendors, { vendor, newProduct: firstSeen, updatedAt });
      return { newProduct: firstSeen };
    },

    /**
     * remember() for a batch of successful extractions: the records in one batch write, then one
     * vendor write per vendor (its new products counted, its newest instant). Records get
     * distinct instants, 1 ms apart in list order, in blocks that never overlap between calls, and calls tell the vendors
     * in the order of their blocks: a vendor is never sent an older instant than it has, which
     * would cost the vendor store a second write.
     */
    async rememberAll(
      items: ReadonlyArray<{ url: string; product: ProductRecord }>,
      options: ExtractOptions,
    ): Promise<Array<{ newProduct: boolean }>> {
      if (!items.length) return [];
      const base = Math.max(now().getTime(), nextInstant);
      nextInstant = base + items.length;
      const previousTurn = vendorTurn;
      let endTurn!: () => void;
      vendorTurn = new Promise<void>((resolve) => (endTurn = resolve));
      try {
        const records: StoredProduct[] = items.map(({ url, product }, i) => ({
          url,
          country: options.countryCode,
          vendor: vendorKey(product.url || url) ?? vendorKey(url),
          product,
          flags: flagsOf(options),
          updated_at: new Date(base + i).toISOString(),
        }));
        const stored = await deps.store.putAll(records);
        await previousTurn;
        if (deps.vendors) await tellVendors(deps.vendors, records, stored);
        return stored.map(({ firstSeen }) => ({ newProduct: firstSeen }));
      } finally {
        endTurn();
      }
    },

    /** The stored record for url+country if younger than maxAgeMs and extracted with every wanted part. */
    async findFresh(
      url: string,
      options: ExtractOptions,
      maxAgeMs = PRODUCT_FRESHNESS_MS,
    ): Promise<ProductRecord | null> {
      const stored = await deps.store.get(url, options.countryCode);
      if (!stored) return null;
      if (now().getTime() - Date.parse(stored.updated_at) > maxAgeMs) return null;
      const wanted = flagsOf(options);
      if (!covers(stored.flags, wanted)) return null;
      return maskToFlags(stored.product, wanted);
    },

    listUpdated: deps.store.listUpdated.bind(deps.store),
  };
}
