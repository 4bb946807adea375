// The seam between the search engine (catalog, index, query understanding, ranking) and the
// search operations built on it (/api/search, /api/regular-search, /api/feed, mini and agentic
// searches). Operations code against these types only.
import type { ProductRecord } from '../extraction/types';

/** A product as search sees it: the richest data the service holds for one product URL. */
export interface CatalogItem {
  /** vendor + normalised URL: one entry per product whatever the country or source. */
  key: string;
  url: string;
  /** Vendor key (lower-case hostname without www.). */
  vendor: string;
  /** An extracted record wins over a listing of the same URL. */
  source: 'extraction' | 'listing';
  /** When the service last stored this product (ISO, Z). */
  updatedAt: string;
  /** The full product record; a listing is mapped into it with the fields it lacks null/empty. */
  product: ProductRecord;
}

export interface SearchFilters {
  minPrice?: number;
  maxPrice?: number;
  isAvailable?: boolean;
  /** Any of these brands (case-insensitive). */
  brands?: string[];
  /** key -> any of these values (case-insensitive), e.g. { color: ['blue'], gender: ['women'] }. */
  attributes?: Record<string, string[]>;
  vendor?: string;
}

/** What a customer profile means to ranking: hard rules filter, boosts re-rank. */
export interface ProfileSignals {
  inStockOnly?: boolean;
  avoid?: string[];
  colours?: string[];
  fits?: string[];
  aesthetics?: string[];
  activities?: string[];
  value?: boolean;
}

export interface SearchRequest {
  query: string;
  /** 'understand': query understanding + re-ranking; 'keywords': keywords and filters only. */
  mode: 'understand' | 'keywords';
  filters?: SearchFilters;
  profile?: ProfileSignals;
  offset: number;
  limit: number;
}

export interface UnderstoodQuery {
  /** The words left to match as text after constraints were taken out. */
  terms: string[];
  price?: { min?: number; max?: number; currency?: string };
  /** ISCC-NBS level-1 families wanted / not wanted. */
  colours: string[];
  notColours: string[];
  /** Words negated in the query ("without hood" -> hood). */
  excluded: string[];
  /** 'women' | 'men' | 'unisex' */
  gender?: string;
  /** 'adult' | 'kids' | 'baby' | 'teen' */
  ageGroup?: string;
  brands: string[];
  category?: { id: string; path: string };
}

export interface SearchHit {
  item: CatalogItem;
  score: number;
}

export interface SearchResponse {
  hits: SearchHit[];
  /** Every match, not just this page. */
  total: number;
  understood: UnderstoodQuery;
}

export interface FeedRequest {
  vendor?: string;
  updatedSince?: string;
  offset: number;
  limit: number;
}

export interface ProductSearch {
  search(request: SearchRequest): Promise<SearchResponse>;
  /** Most recently updated first. */
  feed(request: FeedRequest): Promise<{ items: CatalogItem[]; total: number }>;
}
