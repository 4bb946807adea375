// The extraction engine's public types: the spec's full product record and per-URL result.
// Every family shapes these (legacy renames fields, v1/v2 keep them); the engine returns them.

import type { Outcome } from '../../topology/metrics';

// Outcomes and their classes are metric dimensions too: the table is the topology's.
export { OUTCOME_CLASS, type Outcome } from '../../topology/metrics';

export interface Price {
  currency: string | null;
  current_value: number | null;
  compare_at_value: number | null;
}

export interface ProductImage {
  id: string;
  url: string;
  width: number | null;
  height: number | null;
  alt_text: string | null;
  position: number;
  variant_ids: string[];
  /** null unless enable_image_tags. */
  attributes: Record<string, unknown> | null;
}

export interface ProductOption {
  name: string;
  values: string[];
  position: number;
}

export interface ProductVariant {
  id: string;
  sku: string | null;
  url: string | null;
  title: string | null;
  /** option1..optionN hold the variant's value of options[0..N-1]. */
  option1: string | null;
  option2: string | null;
  option3: string | null;
  is_available: boolean | null;
  price: Price;
  image: ProductImage | null;
  affiliate_link: string | null;
}

export interface ProductAttributes {
  additional_attributes?: string[];
  age_group?: string | null;
  gender?: string | null;
  summary?: string | null;
  features?: string[] | null;
  care_instructions?: string | null;
  color?: { iscc_family: string | null; merchant_label: string | null } | null;
  material?: { primary: string | null; merchant_label: string | null } | null;
  pattern?: string | null;
  closure_type?: string | null;
  season?: string[] | null;
  style?: string[] | null;
  mood?: string[] | null;
  occasion?: string[] | null;
  additional_product_information?: string | null;
  [key: string]: unknown;
}

export interface Review {
  author: string | null;
  rating: number | null;
  title: string | null;
  body: string | null;
  date: string | null;
}

export interface Faq {
  question: string;
  answer: string;
}

/** The full product record of v1/v2 extract. Every field is always present. */
export interface ProductRecord {
  id: string;
  title: string | null;
  description: string | null;
  description_html: string | null;
  vendor: string | null;
  brand: string | null;
  url: string;
  handle: string | null;
  is_available: boolean | null;
  attributes: ProductAttributes | null;
  price: Price;
  images: ProductImage[];
  options: ProductOption[];
  variants: ProductVariant[];
  store_canonical_url: string | null;
  store_domain: string | null;
  platform: Platform | null;
  platform_id: string | null;
  product_type: string | null;
  taxonomy_product_category_id: string | null;
  taxonomy_product_category_path: string | null;
  tags: string[];
  video_url: string | null;
  review_count: number | null;
  average_rating: number | null;
  rating_scale: number | null;
  faqs: Faq[] | null;
  reviews: Review[] | null;
  updated_at: string;
  similar_products: unknown[] | null;
  affiliate_link: string | null;
  /** Set by the extraction path on every record it returns (absent on records stored before it existed). */
  fetched_with?: FetchedWith;
  /** Only when the request asked (include_provenance): where each field's value came from (docs/provenance.md). */
  provenance?: Provenance;
}

/**
 * What a value was read from: the platform's product JSON, JSON-LD, microdata, OpenGraph meta,
 * the page's visible text (`browser` instead when a browser rendered the page), or the address.
 */
export type ProvenanceSource =
  | 'platform-json'
  | 'json-ld'
  | 'microdata'
  | 'open-graph'
  | 'page-text'
  | 'browser'
  | 'url';

/** One field's provenance: the source of the record's value, the sources stating the same, and the values that lost. */
export interface FieldProvenance {
  source: ProvenanceSource;
  also: ProvenanceSource[];
  rejected: Array<{ value: string | number | boolean; sources: ProvenanceSource[] }>;
}

/** Field name (title, price, variants[0].price...) -> its provenance; a field without a value has none. */
export type Provenance = Record<string, FieldProvenance>;

export type Platform =
  | 'shopify'
  | 'woocommerce'
  | 'bigcommerce'
  | 'magento'
  | 'salesforce_commerce_cloud'
  | 'wix'
  | 'squarespace'
  | 'prestashop';

export interface UrlResult {
  url: string;
  product: ProductRecord | null;
  success: boolean;
  outcome: Outcome;
  retry: boolean;
  /** Human-readable; empty string on success. */
  message: string;
  /** Only when the landing URL after redirects differs from the input. */
  final_url?: string;
}

export interface ExtractOptions {
  enableEnrichment: boolean;
  enableReviews: boolean;
  enableImageTags: boolean;
  enableSimilarProducts: boolean;
  /** Lower-case two-letter code from the spec's supported list. */
  countryCode: string;
  /** When a browser renders the page: auto (default: HTML first, then only a client-rendered page without a product), always, never. */
  render?: RenderMode;
  /** Records carry `provenance` (absent, not false, when off: the options of a request that did not ask stay as they were). */
  includeProvenance?: true;
}

export type RenderMode = 'auto' | 'always' | 'never';

/** How a record's page was read: its HTML as fetched, or the page a browser rendered. */
export type FetchedWith = 'http' | 'browser';

/** The engine's entry point, as every caller (sync API, SQS worker, benchmarks) sees it. */
export type ExtractUrl = (url: string, options: ExtractOptions) => Promise<UrlResult>;
