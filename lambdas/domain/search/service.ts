// The search use-cases over the catalog: keep the index current from the table's change feed
// (at most once per interval per process, before answering), persist snapshots so a new process
// starts warm, and answer searches and the feed with the richest record held for each product.
import { gunzipSync, gzipSync } from 'node:zlib';
import type {
  CatalogChange,
  CatalogFeed,
  CatalogRecords,
  IndexBoosts,
  IndexFilter,
  SearchDocument,
  SearchIndex,
  SnapshotStore,
} from '../../ports/search-index';
import type { CatalogItem, FeedRequest, ProductSearch, SearchHit, SearchRequest, SearchResponse } from './api';
import { AGE_FACET, catalogKey, toCatalogItem, toSearchDocument } from './document';
import { analyze, normalise } from './text';
import {
  bareCategoryId,
  colourOf,
  coloursOfPhrase,
  excludeGroupsOf,
  keywordsOnly,
  understand,
  type Understanding,
} from './understand';
import { fold } from '../enrichment/text';

export interface SearchServiceDeps {
  index: SearchIndex;
  /** The table's change feed; null when documents arrive only through ingest() (benchmarks). */
  feed: CatalogFeed | null;
  records: CatalogRecords;
  snapshots: SnapshotStore | null;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Catch up with the feed at most this often (default 1 s). */
  catchUpEveryMs?: number;
  /** Save a snapshot at most this often after changes (default 30 s); 0 saves after every change. */
  saveEveryMs?: number;
  /** Feed pages read per catch-up, so one search never waits on a whole backlog (default 20). */
  pagesPerCatchUp?: number;
  log?: (line: string) => void;
}

export interface SearchService extends ProductSearch {
  /** Reads the change feed now (or when the interval has passed); returns documents changed. */
  refresh(options?: { force?: boolean }): Promise<number>;
  /** Adds stored products or listings directly (benchmarks, tests, the indexer's own batches). */
  ingest(changes: CatalogChange[]): Promise<number>;
  /** Writes a snapshot now. */
  save(): Promise<void>;
  /** Where the feed will be read from next. */
  cursor(): string | null;
}

// 3: the analyzer no longer folds synonyms into index terms.
const SNAPSHOT_VERSION = 3;
const FEED_PAGE = 1000;

// Weights of the soft signals, in BM25 units (a strong title match scores about 3-6).
const WEIGHTS = {
  colour: 3,
  gentleColour: 1.5,
  queryWord: 1,
  profileColour: 1.5,
  gender: 1.5,
  brand: 0.5,
  category: 2,
  available: 0.4,
  completeness: 0.8,
  value: 1,
  profileWord: 0.5,
};

export function createSearchService(deps: SearchServiceDeps): SearchService {
  const { index } = deps;
  const catchUpEveryMs = deps.catchUpEveryMs ?? 1000;
  const saveEveryMs = deps.saveEveryMs ?? 30_000;
  const pagesPerCatchUp = deps.pagesPerCatchUp ?? 20;
  const log = deps.log ?? (() => {});
  let cursor: string | null = null;
  let ready: Promise<void> | null = null;
  let running: Promise<number> | null = null;
  let lastCatchUp = -Infinity;
  let lastSave = deps.now();
  let unsaved = 0;
  let saving: Promise<void> | null = null;

  function load(): Promise<void> {
    ready ??= (async () => {
      if (!deps.snapshots) return;
      try {
        const data = await deps.snapshots.load();
        if (!data) return;
        const snapshot = JSON.parse(gunzipSync(data).toString('utf8')) as {
          version: number;
          cursor: string | null;
          state: unknown;
        };
        if (snapshot.version !== SNAPSHOT_VERSION) return;
        index.importState(snapshot.state);
        cursor = snapshot.cursor;
      } catch (error) {
        // A damaged snapshot costs a full catch-up, never an outage.
        log(`search: snapshot unreadable, rebuilding from the table (${(error as Error).message})`);
      }
    })();
    return ready;
  }

  /** Would the index ignore this change (it holds it, or holds something richer or newer)? */
  function ignores(change: Omit<CatalogChange, 'product'>): boolean {
    const held = index.get(catalogKey(change.url, change.vendor));
    // A removal matters only to a listing held from before it.
    if (change.removed) return held?.source !== 'listing' || held.updatedAt > change.updatedAt;
    if (!held) return false;
    if (held.source === 'extraction' && change.source === 'listing') return true;
    if (held.source === change.source && held.updatedAt >= change.updatedAt) return true;
    return false;
  }

  async function apply(changes: CatalogChange[]): Promise<number> {
    const docs: SearchDocument[] = [];
    const batch = new Map<string, CatalogChange>();
    let changed = 0;
    const flush = async () => {
      for (const change of batch.values()) docs.push(await toSearchDocument(change));
      changed += index.upsert(docs.splice(0));
      batch.clear();
    };
    for (const change of changes) {
      if (change.removed) {
        // In feed order: what came before the removal is indexed first, then judged.
        await flush();
        if (!ignores(change)) changed += index.remove([catalogKey(change.url, change.vendor)]);
        continue;
      }
      if (ignores(change)) continue;
      const key = catalogKey(change.url, change.vendor);
      const seen = batch.get(key);
      // Within one batch the same rule: extraction over listing, then the newest.
      if (seen && seen.source === 'extraction' && change.source === 'listing') continue;
      if (seen && seen.source === change.source && seen.updatedAt >= change.updatedAt) continue;
      batch.set(key, change);
    }
    await flush();
    unsaved += changed;
    return changed;
  }

  async function catchUp(): Promise<number> {
    if (!deps.feed) return 0;
    let changed = 0;
    for (let page = 0; page < pagesPerCatchUp; page++) {
      // Removals cost no read and are judged in order when applied (their listing may be in this very page).
      const read = await deps.feed.read(cursor, {
        limit: FEED_PAGE,
        skip: (change) => !change.removed && ignores(change),
      });
      changed += await apply(read.changes);
      cursor = read.cursor;
      if (!read.more) break;
    }
    return changed;
  }

  function maybeSave() {
    if (!deps.snapshots || !unsaved || saving) return;
    if (deps.now() - lastSave < saveEveryMs) return;
    saving = save()
      .catch((error) => log(`search: snapshot not saved (${(error as Error).message})`))
      .finally(() => (saving = null));
  }

  /** One snapshot write at a time, in order: a later save never lands before an earlier one. */
  let saveTurn: Promise<void> = Promise.resolve();
  function save(): Promise<void> {
    const turn = saveTurn.then(writeSnapshot, writeSnapshot);
    saveTurn = turn.catch(() => undefined);
    return turn;
  }

  async function writeSnapshot(): Promise<void> {
    if (!deps.snapshots) return;
    const pending = unsaved;
    const body = JSON.stringify({ version: SNAPSHOT_VERSION, cursor, state: index.exportState() });
    await deps.snapshots.save(gzipSync(body));
    unsaved = Math.max(0, unsaved - pending);
    lastSave = deps.now();
  }

  async function refresh(options: { force?: boolean } = {}): Promise<number> {
    await load();
    if (running) return running;
    if (!options.force && deps.now() - lastCatchUp < catchUpEveryMs) return 0;
    lastCatchUp = deps.now();
    running = catchUp().finally(() => (running = null));
    const changed = await running;
    maybeSave();
    return changed;
  }

  async function hydrate(docs: SearchDocument[]): Promise<Array<CatalogItem | null>> {
    return Promise.all(
      docs.map(async (doc) => {
        if (doc.record) return toCatalogItem(doc, doc.record);
        if (!doc.ref) return null;
        const stored = await deps.records.get(doc.ref);
        return stored ? toCatalogItem(doc, stored.product) : null;
      }),
    );
  }

  async function search(request: SearchRequest): Promise<SearchResponse> {
    await refresh();
    const keywords = request.mode === 'keywords';
    const understanding = keywords ? keywordsOnly(request.query) : await understand(request.query, index);
    const filter = await filterOf(request, understanding, keywords);
    const boosts = keywords ? null : await boostsOf(request, understanding);
    const lift = keywords || understanding.understood.colours.length ? [] : await profileFamilies(request.profile);
    // A profile colour may move a product into the top 3: rank a window wide enough to find one.
    const window = lift.length ? Math.max(request.offset + request.limit, LIFT_POOL) : 0;
    const found = index.search({
      groups: understanding.groups,
      relax: true,
      filter,
      boosts,
      offset: window ? 0 : request.offset,
      limit: window || request.limit,
    });
    const total = found.total;
    const hits = window
      ? liftColour(found.hits, lift).slice(request.offset, request.offset + request.limit)
      : found.hits;
    const items = await hydrate(hits.map((hit) => hit.doc));
    const shown: SearchHit[] = [];
    items.forEach((item, i) => item && shown.push({ item, score: Math.round(hits[i].score * 1e4) / 1e4 }));
    return { hits: shown, total: total - (hits.length - shown.length), understood: understanding.understood };
  }

  async function feed(request: FeedRequest): Promise<{ items: CatalogItem[]; total: number }> {
    await refresh();
    const { docs, total } = index.recent(request);
    const items = await hydrate(docs);
    return { items: items.filter((item): item is CatalogItem => item !== null), total };
  }

  return {
    search,
    feed,
    refresh,
    async ingest(changes) {
      await load();
      const changed = await apply(changes);
      maybeSave();
      return changed;
    },
    save,
    cursor: () => cursor,
  };
}

/** Request filters (exact) combined with what the query states (hard constraints). */
async function filterOf(request: SearchRequest, u: Understanding, keywords: boolean): Promise<IndexFilter> {
  const f = request.filters ?? {};
  const filter: IndexFilter = {};
  let min = f.minPrice;
  let max = f.maxPrice;
  if (!keywords && u.understood.price) {
    if (u.understood.price.min !== undefined) min = Math.max(min ?? -Infinity, u.understood.price.min);
    if (u.understood.price.max !== undefined) max = Math.min(max ?? Infinity, u.understood.price.max);
  }
  if (min !== undefined) filter.minPrice = min;
  if (max !== undefined) filter.maxPrice = max;
  if (f.isAvailable !== undefined) filter.available = f.isAvailable;
  else if (!keywords && (u.inStock || request.profile?.inStockOnly)) filter.available = true;
  const requested = f.brands?.length ? f.brands.map(normalise) : null;
  const stated = !keywords && u.understood.brands.length ? u.understood.brands : null;
  if (requested && stated) {
    const both = requested.filter((b) => stated.includes(b));
    // Disjoint: nothing can satisfy both, and a brand name never normalises to a control character.
    filter.brands = both.length ? both : ['\u0000'];
  } else if (requested ?? stated) {
    filter.brands = (requested ?? stated)!;
  }
  if (f.vendor) filter.vendor = f.vendor;
  if (f.attributes && Object.keys(f.attributes).length) filter.facets = f.attributes;
  if (keywords) return filter;

  const avoid = request.profile?.avoid ?? [];
  const avoidColours: string[] = [];
  const avoidGroups: string[][] = [];
  for (const phrase of avoid) {
    const family = await colourOf(phrase.trim());
    if (family) avoidColours.push(family);
    else
      avoidGroups.push(
        ...excludeGroupsOf(
          fold(phrase)
            .replace(/[^\p{L}\p{N}]+/gu, ' ')
            .trim(),
        ),
      );
  }
  const exclude = [...u.exclude, ...avoidGroups];
  const notColours = [...new Set([...u.understood.notColours, ...avoidColours])];
  if (exclude.length) filter.exclude = exclude;
  if (notColours.length) filter.excludePrimaryColours = notColours;
  if (u.genders) filter.genders = u.genders;
  if (u.ageGroups) filter.ageGroups = u.ageGroups;
  // A child's product says so: one of unknown age is not one (the facet holds known ages only).
  if (u.ageKnown && u.ageGroups) filter.facets = withFacet(filter.facets, AGE_FACET, u.ageGroups);
  return filter;
}

/** Facets with one more key required; a key already asked for keeps only the values both allow. */
function withFacet(facets: IndexFilter['facets'], key: string, values: string[]): IndexFilter['facets'] {
  const asked = facets?.[key]?.map(normalise);
  const allowed = asked ? values.filter((v) => asked.includes(v)) : values;
  // Disjoint: nothing can satisfy both, and a facet value never normalises to a control character.
  return { ...facets, [key]: allowed.length ? allowed : ['\u0000'] };
}

/** Candidates a profile colour's lift looks through. */
const LIFT_POOL = 24;
/** The top places a product in the profile's colour should reach, when a relevant one exists. */
const LIFT_INTO = 3;
/** Relevant enough to lift: at least this share of the best hit's score. */
const LIFT_RELEVANCE = 0.5;

async function profileFamilies(profile: SearchRequest['profile']): Promise<string[]> {
  const families = await Promise.all((profile?.colours ?? []).map(coloursOfPhrase));
  return [...new Set(families.flat())];
}

/**
 * The hits with the best relevant product in one of the profile's colours moved into the top
 * places when none is there (its primary colour first, then any colour it comes in).
 */
function liftColour<T extends { doc: SearchDocument; score: number }>(hits: T[], families: string[]): T[] {
  if (hits.length <= LIFT_INTO) return hits;
  const primary = (hit: T) => !!hit.doc.primaryColour && families.includes(hit.doc.primaryColour);
  const any = (hit: T) => hit.doc.colours.some((c) => families.includes(c));
  if (hits.slice(0, LIFT_INTO).some(any)) return hits;
  const floor = hits[0].score * LIFT_RELEVANCE;
  const rest = hits.slice(LIFT_INTO).filter((hit) => hit.score >= floor);
  const chosen = rest.find(primary) ?? rest.find(any);
  if (!chosen) return hits;
  const others = hits.filter((hit) => hit !== chosen);
  return [...others.slice(0, LIFT_INTO - 1), chosen, ...others.slice(LIFT_INTO - 1)];
}

async function boostsOf(request: SearchRequest, u: Understanding): Promise<IndexBoosts> {
  const profile = request.profile ?? {};
  const boosts: IndexBoosts = { available: WEIGHTS.available, completeness: WEIGHTS.completeness };
  if (u.understood.colours.length) {
    boosts.colours = {
      families: u.understood.colours,
      weight: u.colourStrength === 'gentle' ? WEIGHTS.gentleColour : WEIGHTS.colour,
    };
  } else if (profile.colours?.length) {
    const families = await profileFamilies(profile);
    if (families.length) boosts.colours = { families, weight: WEIGHTS.profileColour };
  }
  if (u.understood.gender) boosts.genders = { values: [u.understood.gender], weight: WEIGHTS.gender };
  if (u.brandBoosts) boosts.brands = { values: u.brandBoosts, weight: WEIGHTS.brand };
  if (u.understood.category)
    boosts.category = { id: bareCategoryId(u.understood.category.id), weight: WEIGHTS.category };
  if (u.value || profile.value) boosts.value = WEIGHTS.value;
  const words = [...(profile.fits ?? []), ...(profile.aesthetics ?? []), ...(profile.activities ?? [])];
  const queryWords = new Set((u.optional ?? []).flatMap((w) => analyze(w)));
  const optional = [
    // A product that has the word itself ("Wine Glasses") is read as the thing, at least as well as any product in the colour.
    ...[...queryWords].map((term) => ({ term, weight: WEIGHTS.queryWord, bonus: WEIGHTS.gentleColour * 1.25 + 0.25 })),
    ...[...new Set(words.flatMap((w) => analyze(w)))]
      .filter((t) => !queryWords.has(t))
      .map((term) => ({ term, weight: WEIGHTS.profileWord })),
  ];
  if (optional.length) boosts.optional = optional;
  return boosts;
}
