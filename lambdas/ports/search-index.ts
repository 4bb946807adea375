// The search index behind a port: the in-process engine (lambdas/adapters/search/memory-index.ts)
// ships now; a scale-out engine can implement the same contract. Also the ports the search
// service reads its catalog through: the table's change feed, the full records of hits, and
// where snapshots of the index are kept (a file locally, S3 on AWS).
import type { ProductRecord } from '../domain/extraction/types';

/** The searchable projection of one catalog product (what the index holds and snapshots). */
export interface SearchDocument {
  /** vendor + normalised URL: one document per product. */
  key: string;
  url: string;
  vendor: string;
  source: 'extraction' | 'listing';
  updatedAt: string;
  /** Where the full record lives (extractions): read for the page of hits only. */
  ref: { url: string; country: string } | null;
  /** The listing mapped into a product record (listings are small: kept inline). */
  record: ProductRecord | null;
  text: { title: string; brand: string; category: string; attributes: string; description: string };
  price: number | null;
  currency: string | null;
  /** On sale (a compare-at price above the price). */
  onSale: boolean;
  available: boolean | null;
  /** Normalised brand name (normalise()), the display name is in text.brand. */
  brand: string | null;
  /** ISCC-NBS families of every colour it comes in; the first is its primary colour. */
  colours: string[];
  primaryColour: string | null;
  gender: string | null;
  ageGroup: string | null;
  /** Taxonomy id without the gid prefix, e.g. aa-1-13-8. */
  categoryId: string | null;
  /** Share of title, price, image, description, brand, availability and category present (0..1). */
  completeness: number;
  /** Normalised attribute values by attribute key, for exact request filters. */
  facets: Record<string, string[]>;
}

export interface WeightedTerm {
  term: string;
  weight: number;
}

/** One query word: any of its variants matches it; typos are tried only when no variant is known. */
export interface TermGroup {
  variants: WeightedTerm[];
  maxTypos: number;
}

/** Exact constraints: a document failing one is never returned. */
export interface IndexFilter {
  minPrice?: number;
  maxPrice?: number;
  available?: boolean;
  brands?: string[];
  vendor?: string;
  /** key -> any of these normalised values. */
  facets?: Record<string, string[]>;
  /** A document holding every term of one of these groups in title, brand, category or attributes is dropped. */
  exclude?: string[][];
  /** Documents whose primary colour is one of these families are dropped. */
  excludePrimaryColours?: string[];
  /** Documents of a known gender / age group outside these are dropped. */
  genders?: string[];
  ageGroups?: string[];
}

/** Soft signals added to the text score (absent in keyword mode). */
export interface IndexBoosts {
  colours?: { families: string[]; weight: number };
  genders?: { values: string[]; weight: number };
  /** Normalised brand names a query named in passing (too common a word to filter by). */
  brands?: { values: string[]; weight: number };
  category?: { id: string; weight: number };
  /** Words that add to the score where they occur but are not required; `bonus` is added flat to every document holding one. */
  optional?: Array<WeightedTerm & { bonus?: number }>;
  available?: number;
  completeness?: number;
  /** Cheaper and on-sale products first among equals (a profile that values value). */
  value?: number;
}

export interface IndexQuery {
  /** Every group must match (relaxed to fewer when none match all and `relax` is set). */
  groups: TermGroup[];
  relax: boolean;
  filter: IndexFilter;
  boosts: IndexBoosts | null;
  offset: number;
  limit: number;
}

export interface IndexHit {
  doc: SearchDocument;
  score: number;
}

export interface SearchIndex {
  /** Adds or replaces documents by key; returns how many changed the index. */
  upsert(docs: SearchDocument[]): number;
  remove(keys: string[]): number;
  get(key: string): SearchDocument | undefined;
  search(query: IndexQuery): { hits: IndexHit[]; total: number };
  /** Most recently updated first. */
  recent(query: { vendor?: string; updatedSince?: string; offset: number; limit: number }): {
    docs: SearchDocument[];
    total: number;
  };
  /**
   * How much a name is a brand in this catalog: the share of the documents that mention its words
   * which carry it as their brand (0 when no document does). "Kestrel" ~1; "Apple" among fruit ~0.2.
   */
  brandShare(normalisedName: string): number;
  size(): number;
  /** Every live document (its text is in the postings, not on the document). */
  documents(): SearchDocument[];
  /** The whole index as JSON-able data (snapshots): a new process restores it without analysing any text. */
  exportState(): unknown;
  /** Replaces the index with an exported state; throws on a state it does not understand. */
  importState(state: unknown): void;
}

/** One stored product or listing as the change feed reads it. */
export interface CatalogChange {
  source: 'extraction' | 'listing';
  url: string;
  vendor: string;
  updatedAt: string;
  /** For extractions: the country the record was extracted for. */
  country: string | null;
  /** null only for a removal. */
  product: ProductRecord | null;
  /** A listing a re-crawl no longer found (updatedAt = when): search drops it unless an extraction holds the URL. */
  removed?: boolean;
}

/** The table's change feed: products and listings stored at or after a cursor, oldest first. */
export interface CatalogFeed {
  /**
   * Changes since `cursor` (null: from the beginning), at most about `limit`; `skip` says which
   * changes the index already holds (or would ignore) so their records need not be read.
   * `cursor` of the answer is where the next read starts; `more` when this read stopped at the limit.
   */
  read(
    cursor: string | null,
    options: { limit: number; skip?: (change: Omit<CatalogChange, 'product'>) => boolean },
  ): Promise<{ changes: CatalogChange[]; cursor: string | null; more: boolean }>;
}

/** The full stored record behind an extraction document (one read per hit shown). */
export interface CatalogRecords {
  get(ref: { url: string; country: string }): Promise<{ product: ProductRecord; updatedAt: string } | null>;
}

/** Where index snapshots persist between processes. */
export interface SnapshotStore {
  load(): Promise<Buffer | null>;
  save(data: Buffer): Promise<void>;
}
