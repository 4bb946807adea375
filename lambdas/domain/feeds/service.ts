// GET /v2/feeds/google-merchant: a vendor's stored products as Merchant Center items, a page of
// records at a time by cursor, so a catalog of any size is served in bounded pages.
import { notFound } from '../errors';
import { vendorOf } from '../listings/catalog';
import type { ProductPages } from '../../ports/product-pages';
import type { VendorStore } from '../../ports/vendors';
import { merchantItems, type MerchantItem, type RefusedItem } from './merchant';

interface FeedPageRequest {
  vendor: string;
  country: string;
  cursor: string | null;
  /** Product records per page (each gives one item per variant). */
  pageSize: number;
}

interface FeedPage {
  vendor: string;
  items: MerchantItem[];
  refused: RefusedItem[];
  /** Product records read for this page. */
  products: number;
  nextCursor: string | null;
}

export function createMerchantFeed(deps: { pages: ProductPages; vendors: VendorStore }) {
  return {
    /** Every organization may read any vendor the service knows, as with listings and vendors. */
    async page(request: FeedPageRequest): Promise<FeedPage> {
      const vendor = vendorOf(request.vendor);
      if (!(await deps.vendors.get(vendor)))
        throw notFound(`Vendor ${vendor} is not known to the service; extract or crawl it first`);
      const { records, cursor } = await deps.pages.page({
        vendor,
        country: request.country,
        cursor: request.cursor,
        limit: request.pageSize,
      });
      const items: MerchantItem[] = [];
      const refused: RefusedItem[] = [];
      for (const record of records) {
        const made = merchantItems(record.product);
        items.push(...made.items);
        refused.push(...made.refused);
      }
      return { vendor, items, refused, products: records.length, nextCursor: cursor };
    },
  };
}
