// The product store as the extraction jobs use it: remember the latest record per URL and
// country, tell the vendor store about it, and serve a fresh stored record instead of a new
// fetch when the caller allows it (the synchronous /api/product(s) path).
import type { ExtractOptions, ProductRecord } from '../extraction/types';
import type {
  BatchProductStore,
  ClaimedProduct,
  ProductFlags,
  SerializedProduct,
  StoredProduct,
} from '../../ports/products';
import type { VendorStore } from '../../ports/vendors';
import { vendorKey } from '../extraction/url';
import { recordProductSeen, recordProductsSeen } from '../vendors/service';

/**
 * How long a stored record may be served instead of extracting again: a day, the window in which
 * prices and availability of most shops stay put and after which peers expire their results too.
 */
export const PRODUCT_FRESHNESS_MS = 24 * 60 * 60 * 1000;
/**
 * Records an extract batch sends at once as they come: their log heads are read in one BatchGet
 * (100 keys) and they are written 25 a BatchWriteItem, four at once.
 */
const RECORDS_PER_WRITE = 100;

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

/** Records to store for extracted products, `updated_at` one millisecond apart from `base` (their order). */
function storedRecords(
  items: ReadonlyArray<{ url: string; product: ProductRecord; serialized?: SerializedProduct }>,
  options: ExtractOptions,
  base: number,
): StoredProduct[] {
  return items.map(({ url, product, serialized }, i) => ({
    url,
    country: options.countryCode,
    vendor: vendorKey(product.url || url) ?? vendorKey(url),
    product,
    ...(serialized ? { serialized } : {}),
    flags: flagsOf(options),
    updated_at: new Date(base + i).toISOString(),
  }));
}
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

/** One vendor update per vendor of these products: the new ones counted, the newest instant. */
async function tellVendorsOf(vendors: VendorStore, products: readonly ClaimedProduct[], countNew: boolean) {
  const perVendor = new Map<string, { newProducts: number; updatedAt: string }>();
  for (const product of products) {
    if (!product.vendor) continue;
    const seen = perVendor.get(product.vendor) ?? { newProducts: 0, updatedAt: product.at };
    if (countNew && product.isNew) seen.newProducts++;
    if (product.at > seen.updatedAt) seen.updatedAt = product.at;
    perVendor.set(product.vendor, seen);
  }
  await Promise.all([...perVendor].map(([vendor, seen]) => recordProductsSeen(vendors, { vendor, ...seen })));
}

/**
 * An extract batch's stored products, between its record writes and its claim: `publish` once
 * the claim is decided (or `release` when the batch ends without one).
 */
export interface StoredBatch {
  /** The records written, in input order; isNew when the URL had no first-seen mark when read. */
  products: ClaimedProduct[];
  /**
   * Won: the claim holds these products (this batch's), so the new ones get their first-seen
   * marks (batch writes) and are counted for their vendors. Lost: another delivery's claim
   * counts; this one only moves its vendors' latest update to the records it wrote.
   */
  publish(won: boolean): Promise<void>;
  /** Ends the batch's turn without telling anything (a failure before publish). */
  release(): void;
}

export function createProductCatalog(deps: ProductCatalogDeps) {
  const now = deps.now ?? (() => new Date());
  let nextInstant = 0;
  let vendorTurn: Promise<void> = Promise.resolve();

  /**
   * Distinct instants, 1 ms apart in list order, in blocks that never overlap between calls, and
   * a turn for telling the vendors in the order of the blocks: a vendor is never sent an older
   * instant than it has, which would cost the vendor store a second write.
   */
  function reserve(count: number) {
    return { base: instants(count), ...takeTurn() };
  }
  /** The first of `count` distinct instants 1 ms apart, after every instant handed out before. */
  function instants(count: number): number {
    const base = Math.max(now().getTime(), nextInstant);
    nextInstant = base + count;
    return base;
  }
  /** The next turn for telling the vendors: after the turns taken before. */
  function takeTurn() {
    const previousTurn = vendorTurn;
    let endTurn!: () => void;
    vendorTurn = new Promise<void>((resolve) => (endTurn = resolve));
    return { previousTurn, endTurn };
  }

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
      const { base, previousTurn, endTurn } = reserve(items.length);
      try {
        const records = storedRecords(items, options, base);
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

    /** The URLs (of these) already counted for their vendor (a first-seen mark exists). */
    seenBefore: (urls: readonly string[]) => deps.store.seenBefore(urls),

    /**
     * The extract worker's records before its claim, written while its batch still extracts: each
     * successful product is added as it comes and every RECORDS_PER_WRITE of them go to the table
     * at once (the rest at close), so a large batch's end waits for its last records only. Each write's records get distinct instants 1 ms apart when it is
     * sent, after every instant handed out before: records are written in the order of their
     * instants, so when two deliveries of a batch write the same product, the record that stays
     * is the one with the later instant, which is what its vendor is told. `close(seen)` (seen =
     * the URLs with a first-seen mark) waits for every write and returns the StoredBatch; no
     * first-seen marks yet: the claim decides which products are new. `release` ends the batch's
     * turn (taken at open: batches tell their vendors in the order they opened) on a failure
     * before then.
     */
    openBatch(capacity: number, options: ExtractOptions) {
      const { previousTurn, endTurn } = takeTurn();
      let ended = false;
      const release = () => {
        if (ended) return;
        ended = true;
        endTurn();
      };
      // What the claim needs of each record written (not the product: it dies young).
      const records: Array<Pick<StoredProduct, 'url' | 'vendor' | 'updated_at'>> = [];
      let added = 0;
      let unsent: Array<{ url: string; product: ProductRecord; serialized?: SerializedProduct }> = [];
      const writes: Array<Promise<void>> = [];
      const send = () => {
        if (!unsent.length) return;
        const chunk = storedRecords(unsent, options, instants(unsent.length));
        for (const { url, vendor, updated_at } of chunk) records.push({ url, vendor, updated_at });
        const write = deps.store.putRecords(chunk);
        // Awaited (and its failure thrown) by close.
        write.catch(() => undefined);
        writes.push(write);
        unsent = [];
      };
      return {
        /** `serialized`: the product serialized already by the caller (for its claim), written as is. */
        add(item: { url: string; product: ProductRecord; serialized?: SerializedProduct }): void {
          if (added >= capacity) throw new Error(`A batch opened for ${capacity} records got more`);
          added++;
          unsent.push(item);
          if (unsent.length >= RECORDS_PER_WRITE) send();
        },
        async close(seen: ReadonlySet<string>): Promise<StoredBatch> {
          try {
            send();
            await Promise.all(writes);
          } catch (error) {
            release();
            throw error;
          }
          // Each URL new at most once, for its first record in the list.
          const counted = new Set<string>();
          const products = records.map((record): ClaimedProduct => {
            const isNew = !seen.has(record.url) && !counted.has(record.url);
            if (isNew) counted.add(record.url);
            return { url: record.url, vendor: record.vendor, at: record.updated_at, isNew };
          });
          return {
            products,
            release,
            async publish(won) {
              try {
                if (!products.length) return;
                if (won) {
                  const marks = products.filter((p) => p.isNew).map(({ url, at }) => ({ url, at }));
                  if (marks.length) await deps.store.markFirstSeen(marks);
                }
                await previousTurn;
                if (deps.vendors) await tellVendorsOf(deps.vendors, products, won);
              } finally {
                release();
              }
            },
          };
        },
        release,
      };
    },

    /**
     * A claim found written by an earlier delivery: the new products it holds whose first-seen
     * marks are missing (that delivery stopped between its claim and its marks) get them now and
     * are counted for their vendors; the rest was done already.
     */
    async finishClaimed(products: readonly ClaimedProduct[]): Promise<void> {
      const fresh = products.filter((p) => p.isNew);
      if (!fresh.length) return;
      const marked = await deps.store.seenBefore(fresh.map((p) => p.url));
      const missing = fresh.filter((p) => !marked.has(p.url));
      if (!missing.length) return;
      await deps.store.markFirstSeen(missing.map(({ url, at }) => ({ url, at })));
      if (deps.vendors) await tellVendorsOf(deps.vendors, missing, true);
    },

    listUpdated: deps.store.listUpdated.bind(deps.store),
  };
}
