// The in-process search engine: a field-weighted BM25 (BM25F) inverted index plus typed
// columns (price, stock, colour bitmasks, gender, age, brand, vendor) outside the text index.
// A query walks the postings of its terms once, accumulating scores in preallocated arrays,
// then intersects with the columns: filtered queries cost the postings of their words, not a
// callback per document (MiniSearch) nor a scan. Updates are incremental: a replaced document
// leaves a tombstone that compaction clears once they pass a quarter of the index.
import type {
  IndexFilter,
  IndexHit,
  IndexQuery,
  SearchDocument,
  SearchIndex,
  WeightedTerm,
} from '../../ports/search-index';
import { analyze, editDistance, normalise } from '../../domain/search/text';

/** The text fields and their weights (the OpenSearch adapter weighs them the same). */
export const FIELDS = ['title', 'brand', 'category', 'attributes', 'description'] as const;
export const FIELD_WEIGHTS = [3, 2, 2, 1.5, 1];
/** Fields whose words an exclusion ("without hood") looks at: what the product is, not prose. */
const EXCLUSION_FIELDS = 0b01111;
const K1 = 1.2;
const B = 0.75;
const TF_BITS = 6;
const TF_MAX = (1 << TF_BITS) - 1;
export const MAX_GROUPS = 30;
const NO_TEXT: SearchDocument['text'] = Object.freeze({
  title: '',
  brand: '',
  category: '',
  attributes: '',
  description: '',
});

const FAMILIES = [
  'pink',
  'red',
  'orange',
  'brown',
  'yellow',
  'olive',
  'yellow green',
  'green',
  'blue',
  'purple',
  'white',
  'gray',
  'black',
];
const FAMILY_BIT = new Map(FAMILIES.map((family, i) => [family, 1 << i]));
const maskOf = (families: readonly string[] | undefined) =>
  (families ?? []).reduce((mask, f) => mask | (FAMILY_BIT.get(f) ?? 0), 0);

class Postings {
  ids = new Int32Array(4);
  tfs = new Int32Array(4);
  n = 0;
  push(id: number, packed: number) {
    if (this.n === this.ids.length) {
      const ids = new Int32Array(this.n * 2);
      ids.set(this.ids);
      this.ids = ids;
      const tfs = new Int32Array(this.n * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.ids[this.n] = id;
    this.tfs[this.n] = packed;
    this.n++;
  }
}

/** A growable typed column. */
function grow<T extends Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | Int8Array>(
  array: T,
  size: number,
): T {
  if (size <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  return next;
}

export interface MemoryIndexOptions {
  /** Compact when tombstones exceed this share of slots (default 0.25). */
  compactAt?: number;
}

export function createMemoryIndex(
  options: MemoryIndexOptions = {},
): SearchIndex & { stats(): { slots: number; terms: number; tombstones: number } } {
  const compactAt = options.compactAt ?? 0.25;
  let docs: Array<SearchDocument | null> = [];
  let byKey = new Map<string, number>();
  let postings = new Map<string, Postings>();
  /** Vocabulary by term length, for typo candidates. */
  let byLength = new Map<number, string[]>();
  let facetPostings = new Map<string, number[]>();
  let live = 0;
  let fieldLengths = FIELDS.map(() => new Float32Array(1024));
  let lengthTotals = FIELDS.map(() => 0);
  let price = new Float64Array(1024);
  let available = new Int8Array(1024);
  let colourMask = new Uint16Array(1024);
  let primaryMask = new Uint16Array(1024);
  let completeness = new Float32Array(1024);
  let onSale = new Uint8Array(1024);
  const brandCounts = new Map<string, number>();
  let recentOrder: number[] | null = null;
  // Per-query scratch, reused: a stamp marks which slots this query has touched.
  let stamp = new Uint32Array(1024);
  let matched = new Uint32Array(1024);
  let scores = new Float64Array(1024);
  let excludedStamp = new Uint32Array(1024);
  /** The slots the running query's words reached, in the order first reached. */
  let touchedSlots = new Int32Array(1024);
  let queryNo = 0;
  /** Optional words' scores by slot, for the query running now. */
  const extra = new Map<number, number>();
  const typoCache = new Map<string, WeightedTerm[]>();

  let capacity = 1024;
  function ensure(size: number) {
    if (size <= capacity) return;
    capacity = Math.max(size, capacity * 2);
    fieldLengths = fieldLengths.map((column) => grow(column, capacity));
    price = grow(price, capacity);
    available = grow(available, capacity);
    colourMask = grow(colourMask, capacity);
    primaryMask = grow(primaryMask, capacity);
    completeness = grow(completeness, capacity);
    onSale = grow(onSale, capacity);
    stamp = grow(stamp, capacity);
    matched = grow(matched, capacity);
    scores = grow(scores, capacity);
    excludedStamp = grow(excludedStamp, capacity);
    touchedSlots = grow(touchedSlots, capacity);
  }

  function addTerm(term: string): Postings {
    const list = new Postings();
    postings.set(term, list);
    const bucket = byLength.get(term.length);
    if (bucket) bucket.push(term);
    else byLength.set(term.length, [term]);
    typoCache.clear();
    return list;
  }

  /** A document's slot, columns and facets: everything but its text. */
  function addSlot(doc: SearchDocument): number {
    const id = docs.length;
    docs.push(doc);
    ensure(id + 1);
    byKey.set(doc.key, id);
    live++;
    price[id] = doc.price ?? Number.NaN;
    available[id] = doc.available === null ? -1 : doc.available ? 1 : 0;
    colourMask[id] = maskOf(doc.colours);
    primaryMask[id] = maskOf(doc.primaryColour ? [doc.primaryColour] : []);
    completeness[id] = doc.completeness;
    onSale[id] = doc.onSale ? 1 : 0;
    for (const [key, values] of Object.entries(doc.facets)) {
      for (const value of values) {
        const facet = `${key}\u0000${value}`;
        const list = facetPostings.get(facet);
        if (list) list.push(id);
        else facetPostings.set(facet, [id]);
      }
    }
    if (doc.brand) brandCounts.set(doc.brand, (brandCounts.get(doc.brand) ?? 0) + 1);
    recentOrder = null;
    return id;
  }

  function addDoc(doc: SearchDocument) {
    // Once analysed, the text lives in the postings only: the slot keeps the rest (snapshots,
    // compaction and hits never need the words again).
    const id = addSlot({ ...doc, text: NO_TEXT });
    const counts = new Map<string, number>();
    FIELDS.forEach((field, f) => {
      const terms = analyze(doc.text[field]);
      fieldLengths[f][id] = terms.length;
      lengthTotals[f] += terms.length;
      for (const term of terms) {
        const shift = f * TF_BITS;
        const packed = counts.get(term) ?? 0;
        const tf = (packed >>> shift) & TF_MAX;
        if (tf < TF_MAX) counts.set(term, packed + (1 << shift));
      }
    });
    for (const [term, packed] of counts) (postings.get(term) ?? addTerm(term)).push(id, packed);
  }

  function dropSlot(id: number) {
    const doc = docs[id];
    if (!doc) return;
    docs[id] = null;
    live--;
    FIELDS.forEach((_, f) => (lengthTotals[f] -= fieldLengths[f][id]));
    if (doc.brand) {
      const left = (brandCounts.get(doc.brand) ?? 1) - 1;
      if (left > 0) brandCounts.set(doc.brand, left);
      else brandCounts.delete(doc.brand);
    }
    recentOrder = null;
  }

  function maybeCompact() {
    const tombstones = docs.length - live;
    if (tombstones < 1024 || tombstones < docs.length * compactAt) return;
    // Live slots renumbered densely, postings filtered: no text is analysed again.
    importState(exportState());
  }

  function reset() {
    docs = [];
    byKey = new Map();
    postings = new Map();
    byLength = new Map();
    facetPostings = new Map();
    live = 0;
    lengthTotals = FIELDS.map(() => 0);
    brandCounts.clear();
    typoCache.clear();
  }

  function typoVariants(term: string, maxTypos: number, weight: number): WeightedTerm[] {
    const cacheKey = `${term}\u0000${maxTypos}`;
    const cached = typoCache.get(cacheKey);
    if (cached) return cached;
    const found: WeightedTerm[] = [];
    for (let length = term.length - maxTypos; length <= term.length + maxTypos; length++) {
      for (const candidate of byLength.get(length) ?? []) {
        const distance = editDistance(term, candidate, maxTypos);
        if (distance > 0 && distance <= maxTypos)
          found.push({ term: candidate, weight: weight * (distance === 1 ? 0.7 : 0.5) });
      }
    }
    // The closest and most common first; a handful is enough.
    found.sort((a, b) => b.weight - a.weight || (postings.get(b.term)?.n ?? 0) - (postings.get(a.term)?.n ?? 0));
    const result = found.slice(0, 8);
    if (typoCache.size > 5_000) typoCache.clear();
    typoCache.set(cacheKey, result);
    return result;
  }

  const avgLength = (f: number) => (live ? lengthTotals[f] / live : 1) || 1;

  /** BM25F contribution of one posting. */
  function bm25(packed: number, id: number, idf: number, averages: number[]): number {
    let tf = 0;
    for (let f = 0; f < FIELDS.length; f++) {
      const raw = (packed >>> (f * TF_BITS)) & TF_MAX;
      if (raw) tf += (FIELD_WEIGHTS[f] * raw) / (1 - B + (B * fieldLengths[f][id]) / averages[f]);
    }
    return (idf * tf * (K1 + 1)) / (K1 + tf);
  }

  const idfOf = (df: number) => Math.log(1 + (live - df + 0.5) / (df + 0.5));

  /** A per-query membership test built from facet postings: slot -> passes. */
  function facetPass(filter: IndexFilter): ((id: number) => boolean) | null {
    const entries = Object.entries(filter.facets ?? {}).filter(([, values]) => values.length);
    if (!entries.length) return null;
    const sets = entries.map(([key, values]) => {
      const set = new Uint8Array(docs.length);
      for (const value of values)
        for (const id of facetPostings.get(`${key.toLowerCase()}\u0000${normalise(value)}`) ?? []) set[id] = 1;
      return set;
    });
    return (id) => sets.every((set) => set[id] === 1);
  }

  function search(query: IndexQuery): { hits: IndexHit[]; total: number } {
    queryNo = (queryNo + 1) >>> 0 || 1;
    const q = queryNo;
    const filter = query.filter;
    const averages = FIELDS.map((_, f) => avgLength(f));
    let touchedCount = 0;

    // Text: every group's postings once; a slot records which groups it matched (one bit each,
    // so at most MAX_GROUPS words count: a 500-character query can hold more).
    const required = query.groups.slice(0, MAX_GROUPS);
    required.forEach((group, g) => {
      const bit = 1 << g;
      let variants = group.variants.filter((v) => postings.has(v.term));
      if (!variants.length && group.maxTypos > 0) {
        variants = group.variants.flatMap((v) => typoVariants(v.term, group.maxTypos, v.weight));
      }
      for (const variant of variants.sort((a, b) => b.weight - a.weight)) {
        const list = postings.get(variant.term)!;
        const idf = idfOf(list.n) * variant.weight;
        const { ids, tfs, n } = list;
        for (let i = 0; i < n; i++) {
          const id = ids[i];
          if (docs[id] === null) continue;
          if (stamp[id] !== q) {
            stamp[id] = q;
            matched[id] = 0;
            scores[id] = 0;
            touchedSlots[touchedCount++] = id;
          }
          if (matched[id] & bit) continue;
          matched[id] |= bit;
          scores[id] += bm25(tfs[i], id, idf, averages);
        }
      }
    });

    // Exclusions: slots holding an excluded word in what describes the product.
    const excluding = (filter.exclude ?? []).length > 0;
    if (excluding) {
      const fieldMask = packedFieldMask(EXCLUSION_FIELDS);
      for (const group of filter.exclude!) {
        // Slots holding every term of the group (counted per term), then marked.
        const lists = group.map((term) => postings.get(term));
        if (!lists.length || lists.some((list) => !list)) continue;
        const counts = new Map<number, number>();
        for (const list of lists as Postings[]) {
          for (let i = 0; i < list.n; i++)
            if (list.tfs[i] & fieldMask) counts.set(list.ids[i], (counts.get(list.ids[i]) ?? 0) + 1);
        }
        for (const [id, count] of counts) if (count === lists.length) excludedStamp[id] = q;
      }
    }

    const facets = facetPass(filter);
    const brands = filter.brands?.length ? new Set(filter.brands.map(normalise)) : null;
    const genders = filter.genders ? new Set(filter.genders) : null;
    const ages = filter.ageGroups ? new Set(filter.ageGroups) : null;
    const notPrimary = maskOf(filter.excludePrimaryColours);
    const minPrice = filter.minPrice ?? -Infinity;
    const maxPrice = filter.maxPrice ?? Infinity;
    const priced = filter.minPrice !== undefined || filter.maxPrice !== undefined;

    const passes = (id: number): boolean => {
      const doc = docs[id];
      if (doc === null) return false;
      if (priced) {
        const p = price[id];
        if (!(p >= minPrice && p <= maxPrice)) return false;
      }
      if (filter.available !== undefined && available[id] !== (filter.available ? 1 : 0)) return false;
      if (notPrimary && primaryMask[id] & notPrimary) return false;
      if (excluding && excludedStamp[id] === q) return false;
      if (filter.vendor !== undefined && doc.vendor !== filter.vendor) return false;
      if (brands && (!doc.brand || !brands.has(doc.brand))) return false;
      if (genders && doc.gender && !genders.has(doc.gender)) return false;
      if (ages && doc.ageGroup && !ages.has(doc.ageGroup)) return false;
      if (facets && !facets(id)) return false;
      return true;
    };

    const boosts = query.boosts;
    const colourWanted = boosts?.colours ? maskOf(boosts.colours.families) : 0;
    const genderWanted = boosts?.genders ? new Set(boosts.genders.values) : null;
    const brandWanted = boosts?.brands ? new Set(boosts.brands.values) : null;
    const optional = (boosts?.optional ?? []).filter((o) => postings.has(o.term));
    if (optional.length) {
      // Optional words score where they occur, after the required ones (never admit a slot).
      for (const o of optional) {
        const list = postings.get(o.term)!;
        const idf = idfOf(list.n) * o.weight;
        for (let i = 0; i < list.n; i++) {
          const id = list.ids[i];
          if (stamp[id] === q || required.length === 0)
            extra.set(id, (extra.get(id) ?? 0) + bm25(list.tfs[i], id, idf, averages) + (o.bonus ?? 0));
        }
      }
    }
    let priceCeiling = 0;
    if (boosts?.value) {
      if (touchedCount)
        for (let i = 0; i < touchedCount; i++) priceCeiling = Math.max(priceCeiling, price[touchedSlots[i]] || 0);
      else for (let id = 0; id < docs.length; id++) priceCeiling = Math.max(priceCeiling, price[id] || 0);
    }

    const finalScore = (id: number, text: number): number => {
      if (!boosts) return text;
      let score = text;
      if (colourWanted) {
        if (primaryMask[id] & colourWanted) score += boosts.colours!.weight * 1.25;
        else if (colourMask[id] & colourWanted) score += boosts.colours!.weight;
      }
      const doc = docs[id]!;
      if (genderWanted && doc.gender && genderWanted.has(doc.gender)) score += boosts.genders!.weight;
      if (brandWanted && doc.brand && brandWanted.has(doc.brand)) score += boosts.brands!.weight;
      if (boosts.category && doc.categoryId) {
        if (doc.categoryId === boosts.category.id || doc.categoryId.startsWith(`${boosts.category.id}-`))
          score += boosts.category.weight;
        else if (boosts.category.id.startsWith(`${doc.categoryId}-`)) score += boosts.category.weight / 2;
      }
      if (boosts.available && available[id] === 1) score += boosts.available;
      if (boosts.completeness) score += boosts.completeness * completeness[id];
      if (boosts.value && priceCeiling > 0 && price[id] >= 0)
        score += boosts.value * (1 - price[id] / priceCeiling) + (onSale[id] ? boosts.value / 2 : 0);
      const bonus = extra.get(id);
      if (bonus) score += bonus;
      return score;
    };

    // Required groups: all of them, relaxed one at a time when nothing matches all.
    const groups = required.length;
    const want = query.offset + query.limit;
    let total = 0;
    const top: Array<{ id: number; score: number }> = [];
    const consider = (id: number, score: number) => {
      total++;
      if (want <= 0) return;
      if (top.length < want) {
        top.push({ id, score });
        if (top.length === want) top.sort(byScore);
      } else if (score > top[want - 1].score || (score === top[want - 1].score && tieBreak(id, top[want - 1].id) < 0)) {
        top[want - 1] = { id, score };
        // Keep sorted with one insertion pass.
        for (let i = want - 1; i > 0 && byScore(top[i], top[i - 1]) < 0; i--)
          [top[i], top[i - 1]] = [top[i - 1], top[i]];
      }
    };
    const tieBreak = (a: number, b: number) =>
      completeness[b] - completeness[a] ||
      (docs[b]!.updatedAt > docs[a]!.updatedAt ? 1 : docs[b]!.updatedAt < docs[a]!.updatedAt ? -1 : a - b);
    const byScore = (a: { id: number; score: number }, b: { id: number; score: number }) =>
      b.score - a.score || tieBreak(a.id, b.id);

    if (groups === 0) {
      for (let id = 0; id < docs.length; id++) if (passes(id)) consider(id, finalScore(id, 0));
    } else {
      for (let need = groups; need >= (query.relax ? Math.max(1, groups - 2) : groups); need--) {
        for (let i = 0; i < touchedCount; i++) {
          const id = touchedSlots[i];
          if (popcount(matched[id]) < need || !passes(id)) continue;
          consider(id, finalScore(id, scores[id]));
        }
        if (total > 0) break;
      }
    }
    extra.clear();
    if (top.length < want) top.sort(byScore);
    return { hits: top.slice(query.offset, want).map(({ id, score }) => ({ doc: docs[id]!, score })), total };
  }

  const STATE_FORMAT = 'bm25f-postings-1';
  interface State {
    format: string;
    docs: SearchDocument[];
    /** Per field, the analysed length of each document. */
    lengths: number[][];
    /** term, document ids (delta-encoded, ascending), packed per-field term frequencies. */
    postings: Array<[string, number[], number[]]>;
  }

  function exportState(): State {
    // Live documents get dense ids in their current order, so every postings list stays ascending.
    const remap = new Int32Array(docs.length).fill(-1);
    const liveDocs: SearchDocument[] = [];
    const lengths: number[][] = FIELDS.map(() => []);
    docs.forEach((doc, id) => {
      if (!doc) return;
      remap[id] = liveDocs.length;
      // The text is in the postings (and empty on the slot): left out of the state.
      const { text: _text, ...rest } = doc;
      liveDocs.push(rest as SearchDocument);
      FIELDS.forEach((_, f) => lengths[f].push(fieldLengths[f][id]));
    });
    const out: State['postings'] = [];
    for (const [term, list] of postings) {
      const ids: number[] = [];
      const tfs: number[] = [];
      let previous = 0;
      for (let i = 0; i < list.n; i++) {
        const id = remap[list.ids[i]];
        if (id < 0) continue;
        ids.push(id - previous);
        previous = id;
        tfs.push(list.tfs[i]);
      }
      if (ids.length) out.push([term, ids, tfs]);
    }
    return { format: STATE_FORMAT, docs: liveDocs, lengths, postings: out };
  }

  function importState(raw: unknown) {
    const state = raw as State;
    if (!state || state.format !== STATE_FORMAT)
      throw new Error(`Unknown index state format ${String((raw as State | null)?.format)}`);
    reset();
    for (const doc of state.docs) {
      const id = addSlot({ ...doc, text: NO_TEXT });
      FIELDS.forEach((_, f) => {
        const length = state.lengths[f][id];
        fieldLengths[f][id] = length;
        lengthTotals[f] += length;
      });
    }
    for (const [term, deltas, tfs] of state.postings) {
      const list = addTerm(term);
      list.ids = new Int32Array(Math.max(4, deltas.length));
      list.tfs = new Int32Array(Math.max(4, deltas.length));
      let id = 0;
      for (let i = 0; i < deltas.length; i++) {
        id += deltas[i];
        list.ids[i] = id;
        list.tfs[i] = tfs[i];
      }
      list.n = deltas.length;
    }
  }

  return {
    exportState,
    importState,
    upsert(list) {
      let changed = 0;
      for (const doc of list) {
        const existing = byKey.get(doc.key);
        if (existing !== undefined) {
          const old = docs[existing];
          if (old && old.updatedAt === doc.updatedAt && old.source === doc.source) continue;
          dropSlot(existing);
          byKey.delete(doc.key);
        }
        addDoc(doc);
        changed++;
      }
      maybeCompact();
      return changed;
    },
    remove(keys) {
      let removed = 0;
      for (const key of keys) {
        const id = byKey.get(key);
        if (id === undefined) continue;
        dropSlot(id);
        byKey.delete(key);
        removed++;
      }
      maybeCompact();
      return removed;
    },
    get(key) {
      const id = byKey.get(key);
      return id === undefined ? undefined : (docs[id] ?? undefined);
    },
    search,
    recent({ vendor, updatedSince, offset, limit }) {
      recentOrder ??= docs
        .map((doc, id) => (doc ? id : -1))
        .filter((id) => id >= 0)
        .sort((a, b) =>
          docs[b]!.updatedAt > docs[a]!.updatedAt ? 1 : docs[b]!.updatedAt < docs[a]!.updatedAt ? -1 : a - b,
        );
      let total = 0;
      const page: SearchDocument[] = [];
      for (const id of recentOrder) {
        const doc = docs[id]!;
        if (vendor !== undefined && doc.vendor !== vendor) continue;
        if (updatedSince !== undefined && doc.updatedAt < updatedSince) break;
        if (total >= offset && page.length < limit) page.push(doc);
        total++;
      }
      return { docs: page, total };
    },
    brandShare(name) {
      const count = brandCounts.get(name);
      if (!count) return 0;
      // Documents mentioning the name: those holding its rarest word (the brand field counts too).
      let mentions = Infinity;
      for (const term of analyze(name)) mentions = Math.min(mentions, postings.get(term)?.n ?? 0);
      return Number.isFinite(mentions) ? count / Math.max(count, mentions) : 1;
    },
    size: () => live,
    documents: () => docs.filter((d): d is SearchDocument => d !== null),
    stats: () => ({ slots: docs.length, terms: postings.size, tombstones: docs.length - live }),
  };
}

function packedFieldMask(fields: number): number {
  let mask = 0;
  for (let f = 0; f < FIELDS.length; f++) if (fields & (1 << f)) mask |= TF_MAX << (f * TF_BITS);
  return mask;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
