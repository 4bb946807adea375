// The response of GET /v2/feeds/google-merchant: Merchant Center items under the attribute names
// of its product data specification, refused items with their reasons, cursor paging.
import * as z from 'zod';

const text = z.string();
const MerchantItem = z
  .object({
    id: text.describe('Variant id (product id for a product without variants), at most 50 characters'),
    title: text.describe('At most 150 characters; names the variant when the product has several'),
    description: text.describe('Plain text, at most 5000 characters'),
    link: text.describe('The product (variant) page, http or https'),
    image_link: text,
    additional_image_link: z.array(text).max(10).optional(),
    price: text.describe('Regular price, "15.00 USD": ISO 4217 code, the currency\'s fraction digits'),
    sale_price: text.optional().describe('The shown price when the store shows a higher compare-at price'),
    availability: z.enum(['in_stock', 'out_of_stock', 'preorder', 'backorder']),
    availability_date: text.optional(),
    brand: text.optional(),
    gtin: text.optional(),
    mpn: text.optional(),
    identifier_exists: z.enum(['yes', 'no']).optional().describe('`no` when the page states neither a GTIN nor an MPN'),
    item_group_id: text.optional().describe("The product's id, on every variant of a product with several"),
    google_product_category: text.optional().describe("Google's top-level category of the product's taxonomy path"),
    product_type: text.optional().describe("The product's full taxonomy path (Shopify Standard Product Taxonomy)"),
    condition: z.enum(['new', 'refurbished', 'used']),
    color: text.optional(),
    size: text.optional(),
  })
  .meta({ id: 'MerchantItem' });

const RefusedMerchantItem = z
  .object({
    id: text,
    product_url: text,
    variant_id: text.nullable(),
    reasons: z.array(
      z.object({
        attribute: text.describe('The attribute at fault, by its specification name'),
        code: text.describe(
          'missing_title, title_too_long, missing_description, description_too_long, missing_link, invalid_link, missing_image_link, invalid_image_link, invalid_additional_image_link, missing_price, missing_availability, missing_availability_date, invalid_availability_date, missing_brand, brand_too_long, invalid_gtin, mpn_too_long, item_group_id_too_long, id_too_long',
        ),
        message: text,
      }),
    ),
  })
  .meta({ id: 'RefusedMerchantItem' });

export const MerchantFeedPage = z.object({
  data: z.array(MerchantItem),
  refused: z.array(RefusedMerchantItem).describe('Items Merchant Center would disapprove, with every rule each breaks'),
  pagination: z.object({
    page_size: z.number().int(),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
    has_next: z.boolean(),
  }),
  meta: z.object({
    vendor: text,
    country_code: text,
    products: z.number().int().describe('Product records read for this page'),
    refused_count: z.number().int(),
  }),
});

export const MERCHANT_FEED_DESCRIPTION =
  'The vendor\'s stored product records (those extracted for `country_code`) as Google Merchant Center items, one per variant with `item_group_id` for products with several, least recently updated first. `format=json` (default) answers this envelope; `format=xml` answers the RSS 2.0 document with the `g:` namespace that Merchant Center fetches, holding the accepted items of the page, with the next page in a `Link: <...>; rel="next"` header and the number of refused items in `X-Refused-Items`. Items Merchant Center would disapprove (no price, no image, no title, title over 150 or description over 5000 characters, a link that is not http(s), preorder without availability_date, a GTIN with a wrong check digit, no brand on a new product, ...) are left out of `data` and listed in `refused` with every reason. Page by `cursor` until `next_cursor` is null; a record updated while paging is read again later with its new values. Every organization with the catalog scope may read any vendor the service knows (as listings and vendors); a vendor it has never seen is 404.';
