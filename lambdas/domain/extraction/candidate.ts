// What each reader (platform JSON, JSON-LD, microdata, OpenGraph, DOM) says about the page's
// product, before merging. Every field is optional: a reader states only what it saw.
import type { Faq, Platform, Review } from './types';

export type Source = 'platform_json' | 'json_ld' | 'microdata' | 'opengraph' | 'dom';

/** Highest trust first. */
export const SOURCE_TRUST: Source[] = ['platform_json', 'json_ld', 'microdata', 'opengraph', 'dom'];

export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder' | 'LimitedAvailability' | 'Discontinued';

export interface ImageCandidate {
  url: string;
  width?: number | null;
  height?: number | null;
  alt?: string | null;
  /** Platform variant ids this image belongs to. */
  variantIds?: string[];
}

export interface VariantCandidate {
  id?: string | null;
  sku?: string | null;
  gtin?: string | null;
  url?: string | null;
  title?: string | null;
  /** Option name -> value, in option order. */
  options: Array<[string, string]>;
  price?: number | null;
  currency?: string | null;
  compareAt?: number | null;
  availability?: Availability | null;
  image?: ImageCandidate | null;
}

export interface RatingCandidate {
  value: number | null;
  count: number | null;
  scale: number | null;
}

export interface ProductCandidate {
  source: Source;
  title?: string | null;
  description?: string | null;
  descriptionHtml?: string | null;
  brand?: string | null;
  vendor?: string | null;
  sku?: string | null;
  /**
   * The SKU names one variant, not the product: markup lists each size or colour as its own
   * Product of the same name. A product-level reference shown on the page wins over it.
   */
  skuOfVariant?: boolean;
  gtin?: string | null;
  mpn?: string | null;
  platformId?: string | null;
  handle?: string | null;
  url?: string | null;
  productType?: string | null;
  category?: string | null;
  tags?: string[];
  images?: ImageCandidate[];
  price?: number | null;
  currency?: string | null;
  compareAt?: number | null;
  /** Every distinct price the source's offers state (several offers: new/used, sale/regular). */
  offerPrices?: number[];
  /** Lowest/highest of a price range (AggregateOffer, variants). */
  priceRange?: { min: number; max: number } | null;
  availability?: Availability | null;
  options?: Array<{ name: string; values: string[] }>;
  variants?: VariantCandidate[];
  rating?: RatingCandidate | null;
  reviews?: Review[];
  videoUrl?: string | null;
  /** Attributes the page states about the product itself (color, material, size...). */
  facts?: Record<string, string>;
  /** Product URLs the page marks as related (isSimilarTo, isRelatedTo). */
  related?: string[];
}

/** Page-level facts that are not about one product. */
export interface PageFacts {
  url: string;
  canonicalUrl: string | null;
  ogType: string | null;
  ogSiteName: string | null;
  htmlTitle: string | null;
  lang: string | null;
  breadcrumbs: string[];
  faqs: Faq[];
  /** Distinct top-level Product entities in structured data (listing pages carry many). */
  productEntityCount: number;
  /** ItemList/CollectionPage/SearchResultsPage/Blog markers in structured data. */
  listingTypes: string[];
  platform: Platform | null;
}
