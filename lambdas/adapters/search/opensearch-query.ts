// The OpenSearch form of the search index: the index's mappings, a SearchDocument as the engine
// stores it, and the request bodies built from the same planned query (IndexQuery) the
// in-process index answers. The text is analysed by our own analyser (stems, folding) before
// it is sent, and stored as whitespace-separated terms, so a query's term groups (synonyms and
// weights already applied by query understanding) match exactly what the default index matches.
// Pure functions: test/unit/opensearch-query.test.ts pins the bodies offline.
import type { IndexFilter, IndexQuery, SearchDocument, TermGroup } from '../../ports/search-index';
import { analyze, normalise } from '../../domain/search/text';
import { FIELD_WEIGHTS, FIELDS, MAX_GROUPS } from './memory-index';

/** The text fields a product is described by (an exclusion looks at these, not the description). */
const DESCRIBING = ['title', 'brand', 'category', 'attributes'] as const;
const TEXT_FIELDS = FIELDS.map((field, f) => `t_${field}^${FIELD_WEIGHTS[f]}`);
/** A typo match scores this share of an exact one (the default index tries typos only when no variant exists). */
const TYPO_SHARE = 0.5;

const keyword = { type: 'keyword' } as const;
const terms = { type: 'text', analyzer: 'whitespace', similarity: 'BM25' } as const;

/** The index's settings and mappings (created by the indexer when missing). */
export const INDEX_BODY = {
  settings: { index: { number_of_shards: 2, number_of_replicas: 1, max_result_window: 10_000 } },
  mappings: {
    dynamic: 'strict',
    properties: {
      key: keyword,
      vendor: keyword,
      source: keyword,
      updatedAt: { type: 'date' },
      ...Object.fromEntries(FIELDS.map((field) => [`t_${field}`, terms])),
      described: keyword,
      mentions: keyword,
      price: { type: 'double' },
      onSale: { type: 'boolean' },
      available: { type: 'boolean' },
      brand: keyword,
      colours: keyword,
      primaryColour: keyword,
      gender: keyword,
      ageGroup: keyword,
      categoryId: keyword,
      categoryPath: keyword,
      facets: keyword,
      completeness: { type: 'float' },
      /** The search document itself, returned with hits, never searched. */
      doc: { type: 'object', enabled: false },
    },
  },
};

/** `aa-1-13` -> [aa, aa-1, aa-1-13]: a document in a category is also in every ancestor. */
const ancestors = (id: string) => id.split('-').map((_, i, parts) => parts.slice(0, i + 1).join('-'));

/** One document as the engine stores it. */
export function engineDocument(doc: SearchDocument): Record<string, unknown> {
  const analysed = Object.fromEntries(FIELDS.map((field) => [field, analyze(doc.text[field])]));
  return {
    key: doc.key,
    vendor: doc.vendor,
    source: doc.source,
    updatedAt: doc.updatedAt,
    ...Object.fromEntries(FIELDS.map((field) => [`t_${field}`, analysed[field].join(' ')])),
    described: [...new Set(DESCRIBING.flatMap((field) => analysed[field]))],
    mentions: [...new Set(FIELDS.flatMap((field) => analysed[field]))],
    price: doc.price,
    onSale: doc.onSale,
    available: doc.available,
    brand: doc.brand,
    colours: doc.colours,
    primaryColour: doc.primaryColour,
    gender: doc.gender,
    ageGroup: doc.ageGroup,
    categoryId: doc.categoryId,
    categoryPath: doc.categoryId ? ancestors(doc.categoryId) : [],
    facets: Object.entries(doc.facets).flatMap(([key, values]) => values.map((value) => `${key}\u0000${value}`)),
    completeness: doc.completeness,
    doc,
  };
}

/** Any of the group's variants, each at its weight; typo-tolerant variants score less. */
function groupClause(group: TermGroup): Record<string, unknown> {
  const should: Array<Record<string, unknown>> = group.variants.map((v) => ({
    multi_match: { query: v.term, fields: TEXT_FIELDS, type: 'best_fields', tie_breaker: 0.3, boost: v.weight },
  }));
  if (group.maxTypos > 0)
    for (const v of group.variants)
      should.push({
        multi_match: {
          query: v.term,
          fields: TEXT_FIELDS,
          fuzziness: group.maxTypos,
          prefix_length: 1,
          boost: v.weight * TYPO_SHARE,
        },
      });
  return { bool: { should, minimum_should_match: 1 } };
}

/** A known value outside `values` drops the document; an unknown one keeps it. */
const knownWithin = (field: string, values: string[]) => ({
  bool: { should: [{ terms: { [field]: values } }, { bool: { must_not: { exists: { field } } } }] },
});

/** Exact constraints: filter clauses (no score), and what must not be there. */
export function filterClauses(filter: IndexFilter): { filter: unknown[]; must_not: unknown[] } {
  const out: { filter: unknown[]; must_not: unknown[] } = { filter: [], must_not: [] };
  if (filter.minPrice !== undefined || filter.maxPrice !== undefined)
    out.filter.push({ range: { price: { gte: filter.minPrice, lte: filter.maxPrice } } });
  if (filter.available !== undefined) out.filter.push({ term: { available: filter.available } });
  if (filter.brands?.length) out.filter.push({ terms: { brand: filter.brands.map(normalise) } });
  if (filter.vendor !== undefined) out.filter.push({ term: { vendor: filter.vendor } });
  for (const [key, values] of Object.entries(filter.facets ?? {}))
    if (values.length)
      out.filter.push({ terms: { facets: values.map((value) => `${key.toLowerCase()}\u0000${normalise(value)}`) } });
  if (filter.genders) out.filter.push(knownWithin('gender', filter.genders));
  if (filter.ageGroups) out.filter.push(knownWithin('ageGroup', filter.ageGroups));
  for (const group of filter.exclude ?? [])
    if (group.length) out.must_not.push({ bool: { filter: group.map((term) => ({ term: { described: term } })) } });
  if (filter.excludePrimaryColours?.length)
    out.must_not.push({ terms: { primaryColour: filter.excludePrimaryColours } });
  return out;
}

/** The soft signals as scoring functions added to the text score (the default index's weights). */
function boostFunctions(boosts: NonNullable<IndexQuery['boosts']>): unknown[] {
  // A function that matches every document, so one matching none adds 0 (not the default 1).
  const functions: unknown[] = [{ weight: 0 }];
  const add = (filter: unknown, weight: number) => functions.push({ filter, weight });
  if (boosts.colours) {
    const { families, weight } = boosts.colours;
    add({ terms: { primaryColour: families } }, weight * 1.25);
    add(
      { bool: { filter: { terms: { colours: families } }, must_not: { terms: { primaryColour: families } } } },
      weight,
    );
  }
  if (boosts.genders) add({ terms: { gender: boosts.genders.values } }, boosts.genders.weight);
  if (boosts.brands) add({ terms: { brand: boosts.brands.values } }, boosts.brands.weight);
  if (boosts.category) {
    const { id, weight } = boosts.category;
    add({ term: { categoryPath: id } }, weight);
    const above = ancestors(id).slice(0, -1);
    if (above.length) add({ terms: { categoryId: above } }, weight / 2);
  }
  for (const o of boosts.optional ?? []) if (o.bonus) add({ term: { mentions: o.term } }, o.bonus);
  if (boosts.available) add({ term: { available: true } }, boosts.available);
  if (boosts.completeness)
    functions.push({ field_value_factor: { field: 'completeness', factor: boosts.completeness, missing: 0 } });
  if (boosts.value) {
    // Cheaper first among equals: the full weight at 0, half of it at 100 (in the catalog's currency).
    functions.push({
      filter: { exists: { field: 'price' } },
      exp: { price: { origin: 0, scale: 100, decay: 0.5 } },
      weight: boosts.value,
    });
    add({ term: { onSale: true } }, boosts.value / 2);
  }
  return functions;
}

/**
 * The search request for a planned query, with `need` of its term groups required (all of
 * them first; the engine adapter asks again with fewer when nothing matches, as the default
 * index relaxes).
 */
export function searchBody(
  query: IndexQuery,
  need = Math.min(query.groups.length, MAX_GROUPS),
): Record<string, unknown> {
  const groups = query.groups.slice(0, MAX_GROUPS).map(groupClause);
  const must =
    groups.length === 0
      ? [{ match_all: {} }]
      : need >= groups.length
        ? groups
        : [{ bool: { should: groups, minimum_should_match: need } }];
  const optional = (query.boosts?.optional ?? []).map((o) => ({
    multi_match: { query: o.term, fields: TEXT_FIELDS, type: 'best_fields', tie_breaker: 0.3, boost: o.weight },
  }));
  const bool = { must, ...(optional.length ? { should: optional } : {}), ...filterClauses(query.filter) };
  return {
    query: query.boosts
      ? {
          function_score: {
            query: { bool },
            functions: boostFunctions(query.boosts),
            score_mode: 'sum',
            boost_mode: 'sum',
          },
        }
      : { bool },
    from: query.offset,
    size: query.limit,
    track_total_hits: true,
    // Ties as the default index breaks them: the more complete, then the newer, then the key.
    sort: ['_score', { completeness: 'desc' }, { updatedAt: 'desc' }, { key: 'asc' }],
    _source: ['doc'],
  };
}

/** The most and the fewest term groups a query requires (relaxing: up to two fewer, at least one; the default index's rule). */
export const needs = (query: IndexQuery): [number, number] => {
  const groups = Math.min(query.groups.length, MAX_GROUPS);
  return [groups, query.relax ? Math.max(Math.min(1, groups), groups - 2) : groups];
};

/** Most recently updated first. */
export function recentBody(query: { vendor?: string; updatedSince?: string; offset: number; limit: number }) {
  const filter: unknown[] = [];
  if (query.vendor) filter.push({ term: { vendor: query.vendor } });
  if (query.updatedSince) filter.push({ range: { updatedAt: { gte: query.updatedSince } } });
  return {
    query: { bool: { filter } },
    from: query.offset,
    size: query.limit,
    track_total_hits: true,
    sort: [{ updatedAt: 'desc' }, { key: 'asc' }],
    _source: ['doc'],
  };
}

/** How often each brand is carried, and how many documents mention each of these words. */
export function brandStatsBody(words: string[]) {
  return {
    size: 0,
    aggs: {
      brands: { terms: { field: 'brand', size: 10_000 } },
      ...(words.length ? { mentions: { terms: { field: 'mentions', include: words, size: words.length } } } : {}),
    },
  };
}

/**
 * The external version of a document: an extraction outranks any listing, then the newer wins
 * (the rule the default index applies when it ingests), so the engine itself refuses an older
 * or poorer write whatever order the stream's shards deliver them in.
 */
export function versionOf(source: SearchDocument['source'], updatedAt: string): number {
  return (source === 'extraction' ? 2 ** 42 : 0) + Date.parse(updatedAt);
}
