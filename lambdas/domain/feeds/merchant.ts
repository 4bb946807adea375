// A stored product record as Google Merchant Center items: one item per variant (grouped by
// item_group_id), with the attribute names of Merchant Center's product data specification, and
// the items Merchant Center would disapprove set apart with the rule each one breaks. The rules
// and limits are the specification's (docs/merchant-feed.md cites them); nothing is invented to
// make an item pass: a value the page did not state stays out, and a required one missing refuses
// the item.
import { createHash } from 'node:crypto';
import type { ProductRecord, ProductVariant } from '../extraction/types';
import { gtinProblem, normaliseGtin } from './gtin';

type MerchantAvailability = 'in_stock' | 'out_of_stock' | 'preorder' | 'backorder';
type MerchantCondition = 'new' | 'refurbished' | 'used';

/** One Merchant Center item: the specification's attribute names, values in its text formats. */
export interface MerchantItem {
  id: string;
  title: string;
  description: string;
  link: string;
  image_link: string;
  additional_image_link?: string[];
  price: string;
  sale_price?: string;
  availability: MerchantAvailability;
  availability_date?: string;
  brand?: string;
  gtin?: string;
  mpn?: string;
  identifier_exists?: 'yes' | 'no';
  item_group_id?: string;
  google_product_category?: string;
  product_type?: string;
  condition: MerchantCondition;
  color?: string;
  size?: string;
}

interface Refusal {
  /** The attribute at fault, by its specification name. */
  attribute: keyof MerchantItem;
  /** Stable machine-readable rule name. */
  code: string;
  message: string;
}

export interface RefusedItem {
  id: string;
  product_url: string;
  variant_id: string | null;
  reasons: Refusal[];
}

/** Limits of the specification (characters). */
const LIMITS = {
  id: 50,
  title: 150,
  description: 5000,
  link: 2000,
  image_link: 2000,
  additional_image_link: 10,
  brand: 70,
  mpn: 70,
  item_group_id: 50,
  product_type: 750,
} as const;

/**
 * The top level of Google's product taxonomy. The service classifies into Shopify's Standard
 * Product Taxonomy, which shares these vertical names with Google's; deeper levels differ, so only
 * the vertical goes to google_product_category (Merchant Center refines it) and the full path to
 * product_type, the merchant's own category, where any text is valid.
 */
const GOOGLE_VERTICALS = new Set([
  'Animals & Pet Supplies',
  'Apparel & Accessories',
  'Arts & Entertainment',
  'Baby & Toddler',
  'Business & Industrial',
  'Cameras & Optics',
  'Electronics',
  'Food, Beverages & Tobacco',
  'Furniture',
  'Hardware',
  'Health & Beauty',
  'Home & Garden',
  'Luggage & Bags',
  'Mature',
  'Media',
  'Office Supplies',
  'Religious & Ceremonial',
  'Software',
  'Sporting Goods',
  'Toys & Games',
  'Vehicles & Parts',
]);

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** Fraction digits of a currency (JPY 0, USD 2, KWD 3); null for a code that is no ISO 4217 currency. */
function currencyDigits(currency: string): number | null {
  if (!/^[A-Z]{3}$/.test(currency)) return null;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return null;
  }
}

/** "15.00 USD": the number with the currency's fraction digits, a space, the ISO 4217 code. */
export function merchantPrice(amount: number, currency: string): string | null {
  const digits = currencyDigits(currency);
  return digits === null ? null : `${amount.toFixed(digits)} ${currency}`;
}

/** An id within the specification's 50 characters: as is when it fits, else a stable digest. */
function itemId(raw: string): string {
  return raw.length <= LIMITS.id ? raw : createHash('sha256').update(raw).digest('hex').slice(0, 40);
}

const text = (value: string | null | undefined) => value?.replace(/\s+/g, ' ').trim() || '';

/** The variant's value of the option whose name says colour or size. */
function optionValue(record: ProductRecord, variant: ProductVariant, name: RegExp): string | undefined {
  const index = record.options.findIndex((o) => name.test(o.name));
  const value = index >= 0 && index < 3 ? variant[`option${index + 1}` as 'option1'] : null;
  return value ?? undefined;
}

/** price and sale_price: the compare-at price is the regular one when the shown price is lower. */
function prices(record: ProductRecord, variant: ProductVariant): { price?: string; sale_price?: string } {
  const single = record.variants.length <= 1;
  // A variant without a stated price takes the product's only when it is the product's one variant.
  const source = variant.price.current_value != null || !single ? variant.price : record.price;
  const currency = (source.currency ?? record.price.currency ?? '').toUpperCase();
  const current = source.current_value;
  if (current == null || current <= 0) return {};
  const regular = source.compare_at_value;
  const price = merchantPrice(regular != null && regular > current ? regular : current, currency) ?? undefined;
  if (regular == null || regular <= current) return { price };
  return { price, sale_price: merchantPrice(current, currency) ?? undefined };
}

function availabilityOf(record: ProductRecord, variant: ProductVariant): MerchantAvailability | undefined {
  const available = variant.is_available ?? record.is_available;
  return available == null ? undefined : available ? 'in_stock' : 'out_of_stock';
}

function categoryOf(record: ProductRecord): Pick<MerchantItem, 'google_product_category' | 'product_type'> {
  const path = record.taxonomy_product_category_path;
  const vertical = path?.split(' > ')[0];
  const productType = text(path ?? record.product_type).slice(0, LIMITS.product_type);
  return {
    ...(vertical && GOOGLE_VERTICALS.has(vertical) ? { google_product_category: vertical } : {}),
    ...(productType ? { product_type: productType } : {}),
  };
}

/** The variant's item; its title names the variant when the product has several. */
function itemOf(record: ProductRecord, variant: ProductVariant): Partial<MerchantItem> {
  const grouped = record.variants.length > 1;
  const baseTitle = text(record.title);
  const variantTitle = text(variant.title);
  const title =
    grouped && variantTitle && !baseTitle.toLowerCase().includes(variantTitle.toLowerCase())
      ? `${baseTitle} - ${variantTitle}`
      : baseTitle;
  const image = variant.image?.url ?? record.images[0]?.url;
  const additional = record.images
    .map((i) => i.url)
    .filter((url) => url !== image)
    .slice(0, LIMITS.additional_image_link);
  const identifiers = variant as ProductVariant & { gtin?: string | null; mpn?: string | null };
  const gtin = identifiers.gtin ? (normaliseGtin(identifiers.gtin) ?? identifiers.gtin) : undefined;
  const mpn = text(identifiers.mpn) || undefined;
  const brand = text(record.brand) || undefined;
  return {
    id: itemId(grouped ? variant.id : record.id),
    title,
    description: text(record.description),
    link: variant.url ?? record.url,
    ...(image ? { image_link: image } : {}),
    ...(additional.length ? { additional_image_link: additional } : {}),
    ...prices(record, variant),
    ...(availabilityOf(record, variant) ? { availability: availabilityOf(record, variant) } : {}),
    ...(brand ? { brand } : {}),
    ...(gtin ? { gtin } : {}),
    ...(mpn ? { mpn } : {}),
    // A store's page that states no GTIN and no MPN is the evidence there is none to submit.
    ...(!gtin && !mpn ? { identifier_exists: 'no' as const } : {}),
    ...(grouped ? { item_group_id: itemId(record.id) } : {}),
    ...categoryOf(record),
    // The record has no condition: what retail stores sell by default is new.
    condition: 'new',
    ...(optionValue(record, variant, /colou?r/i) ? { color: optionValue(record, variant, /colou?r/i) } : {}),
    ...(optionValue(record, variant, /size/i) ? { size: optionValue(record, variant, /size/i) } : {}),
  };
}

type Rule = (item: Partial<MerchantItem>) => Refusal | null;
const refuse = (attribute: keyof MerchantItem, code: string, message: string): Refusal => ({
  attribute,
  code,
  message,
});
const tooLong =
  (attribute: 'title' | 'description' | 'brand' | 'mpn' | 'item_group_id' | 'id'): Rule =>
  (item) => {
    const value = item[attribute];
    return value && value.length > LIMITS[attribute]
      ? refuse(
          attribute,
          `${attribute}_too_long`,
          `${attribute} has ${value.length} characters; the limit is ${LIMITS[attribute]}`,
        )
      : null;
  };
const httpUrl =
  (attribute: 'link' | 'image_link', missing: string): Rule =>
  (item) => {
    const value = item[attribute];
    if (!value) return refuse(attribute, `missing_${attribute}`, missing);
    if (!HTTP_URL.test(value))
      return refuse(attribute, `invalid_${attribute}`, `${attribute} must be an http or https URL`);
    if (value.length > LIMITS[attribute])
      return refuse(attribute, `${attribute}_too_long`, `${attribute} is longer than ${LIMITS[attribute]} characters`);
    return null;
  };

/** The specification's rules whose breach disapproves an item, in the order they are reported. */
const RULES: readonly Rule[] = [
  (item) => (item.title ? null : refuse('title', 'missing_title', 'title is required')),
  tooLong('title'),
  (item) => (item.description ? null : refuse('description', 'missing_description', 'description is required')),
  tooLong('description'),
  httpUrl('link', 'link (the product page) is required'),
  httpUrl('image_link', 'image_link is required: the page shows no product image'),
  (item) =>
    (item.additional_image_link ?? []).some((url) => !HTTP_URL.test(url))
      ? refuse(
          'additional_image_link',
          'invalid_additional_image_link',
          'every additional_image_link must be an http or https URL',
        )
      : null,
  (item) =>
    item.price
      ? null
      : refuse('price', 'missing_price', 'price is required: no positive price in a known ISO 4217 currency'),
  (item) => (item.availability ? null : refuse('availability', 'missing_availability', 'availability is required')),
  (item) =>
    (item.availability === 'preorder' || item.availability === 'backorder') && !item.availability_date
      ? refuse(
          'availability_date',
          'missing_availability_date',
          `availability ${item.availability} requires availability_date`,
        )
      : null,
  (item) =>
    item.availability_date && !ISO_DATE_TIME.test(item.availability_date)
      ? refuse('availability_date', 'invalid_availability_date', 'availability_date must be an ISO 8601 date and time')
      : null,
  (item) =>
    item.brand || item.condition !== 'new'
      ? null
      : refuse('brand', 'missing_brand', 'brand is required for new products: the page states none'),
  tooLong('brand'),
  (item) => {
    const problem = item.gtin ? gtinProblem(item.gtin) : null;
    return problem ? refuse('gtin', 'invalid_gtin', problem) : null;
  },
  tooLong('mpn'),
  tooLong('item_group_id'),
  tooLong('id'),
];

/** Every rule the item breaks (empty: Merchant Center takes it). */
export function refusalsOf(item: Partial<MerchantItem>): Refusal[] {
  return RULES.flatMap((rule) => rule(item) ?? []);
}

/** A record's items: accepted ones, and refused ones with every reason. */
export function merchantItems(record: ProductRecord): { items: MerchantItem[]; refused: RefusedItem[] } {
  const items: MerchantItem[] = [];
  const refused: RefusedItem[] = [];
  const variants = record.variants.length ? record.variants : [null];
  for (const variant of variants) {
    const item = variant ? itemOf(record, variant) : itemOf(record, selfVariant(record));
    const reasons = refusalsOf(item);
    if (reasons.length)
      refused.push({ id: item.id!, product_url: record.url, variant_id: variant?.id ?? null, reasons });
    else items.push(item as MerchantItem);
  }
  return { items, refused };
}

/** A record without variants is its own single variant. */
function selfVariant(record: ProductRecord): ProductVariant {
  return {
    id: record.id,
    sku: null,
    url: null,
    title: null,
    option1: null,
    option2: null,
    option3: null,
    is_available: record.is_available,
    price: record.price,
    image: null,
    affiliate_link: null,
  };
}
