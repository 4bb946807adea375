// Where each field of a record came from, built only for a request that asks (include_provenance):
// the reader the rules and the learned chooser credited with the value (MergedProduct.provenance),
// the other readers stating the same value, and the values other readers stated that lost, with
// their readers. A request that does not ask runs none of this: the engine calls it behind the
// option, so its record has no `provenance` key and costs nothing more (docs/provenance.md).
import type { PageAnalysis } from './analyse';
import type { ProductCandidate, Source, VariantCandidate } from './candidate';
import { SOURCE_TRUST } from './candidate';
import { type MergedProduct, ownCandidates } from './merge';
import type { FieldProvenance, ProductRecord, Provenance, ProvenanceSource } from './types';
import { cleanSku, isAvailable } from './values';

type Reader = Source | 'url';
type Value = string | number | boolean;
interface Statement {
  source: Reader;
  value: Value;
}

const LABEL: Record<Reader, ProvenanceSource> = {
  platform_json: 'platform-json',
  json_ld: 'json-ld',
  microdata: 'microdata',
  opengraph: 'open-graph',
  dom: 'page-text',
  url: 'url',
};

/** A rejected text (a long description) is shown up to this many characters. */
const MAX_TEXT = 300;

/** Values compare as the record shows them: amounts to the cent, texts without case and spacing. */
function keyOf(value: Value): string {
  if (typeof value === 'number') return value.toFixed(2);
  if (typeof value === 'string') return value.trim().toLowerCase().replace(/\s+/g, ' ');
  return String(value);
}

const shown = (value: Value): Value =>
  typeof value === 'string' && value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;

/**
 * `value`'s provenance among the readers' `stated` values: from the first of `credited` that
 * states it (else the first reader that does, else the first credited), the other readers
 * stating it, and every other value with the readers stating it.
 */
function entry(value: Value, credited: Array<Reader | undefined>, stated: Statement[]): FieldProvenance {
  const key = keyOf(value);
  const agreeing = stated.filter((s) => keyOf(s.value) === key).map((s) => s.source);
  const named = credited.filter((c): c is Reader => !!c);
  const source = named.find((c) => agreeing.includes(c)) ?? agreeing[0] ?? named[0] ?? 'dom';
  const rejected = new Map<string, { value: Value; sources: ProvenanceSource[] }>();
  for (const s of stated) {
    const k = keyOf(s.value);
    if (k === key) continue;
    const known = rejected.get(k) ?? { value: shown(s.value), sources: [] };
    if (!known.sources.includes(LABEL[s.source])) known.sources.push(LABEL[s.source]);
    rejected.set(k, known);
  }
  return {
    source: LABEL[source],
    also: [...new Set(agreeing.filter((s) => s !== source).map((s) => LABEL[s]))],
    rejected: [...rejected.values()],
  };
}

/** What `get` reads from each reader (empty values are no statement). */
function statements(readers: ProductCandidate[], get: (c: ProductCandidate) => Value | null | undefined): Statement[] {
  const out: Statement[] = [];
  for (const c of readers) {
    const value = get(c);
    if (value != null && value !== '') out.push({ source: c.source, value });
  }
  return out;
}

const optionKey = (v: VariantCandidate) =>
  v.options
    .map(([, x]) => x.trim().toLowerCase())
    .sort()
    .join('|');

/** Another reader's reading of variant `v`: same SKU, else same id, else same option values. */
function twinOf(v: VariantCandidate, list: VariantCandidate[]): VariantCandidate | undefined {
  const key = v.options.length ? optionKey(v) : null;
  return list.find((o) => {
    if (v.sku && o.sku) return v.sku === o.sku;
    if (v.id && o.id) return v.id === o.id;
    return key !== null && o.options.length > 0 && optionKey(o) === key;
  });
}

/** variants[i].price for each listed variant: its reader, and what other readers say of the same variant. */
function variantPrices(out: Provenance, readers: ProductCandidate[], merged: MergedProduct, record: ProductRecord) {
  const chosen = readers.find((c) => c.source === merged.provenance.variants && c.variants?.length);
  if (!chosen || !merged.variants.length) return;
  const others = readers.filter((c) => c !== chosen && c.variants?.length);
  record.variants.forEach((variant, i) => {
    const value = variant.price.current_value;
    const own = chosen.variants![i];
    if (value == null || !own) return;
    const stated: Statement[] = own.price != null ? [{ source: chosen.source, value: own.price }] : [];
    for (const c of others) {
      const twin = twinOf(own, c.variants!);
      if (twin?.price != null) stated.push({ source: c.source, value: twin.price });
    }
    out[`variants[${i}].price`] = entry(value, [chosen.source], stated);
  });
}

/** A list field (images, variants): the first reader listing any, the other readers listing some. */
function listEntry(
  readers: ProductCandidate[],
  has: (c: ProductCandidate) => boolean,
  credited?: Reader,
): FieldProvenance | null {
  const listing: Reader[] = readers.filter(has).map((c) => c.source);
  const source = credited && listing.includes(credited) ? credited : listing[0];
  return source
    ? { source: LABEL[source], also: listing.filter((s) => s !== source).map((s) => LABEL[s]), rejected: [] }
    : null;
}

export interface ProvenanceInput {
  analysis: PageAnalysis;
  /** The platform's product JSON, when the probe read one. */
  platform: ProductCandidate | null;
  /** The product as decided (rules, then the learned chooser), with its credited readers. */
  merged: MergedProduct;
}

/** Every field of `record` that has a value, with where it came from. */
export function provenanceOf({ analysis, platform, merged }: ProvenanceInput, record: ProductRecord): Provenance {
  const all = platform ? [platform, ...analysis.candidates] : analysis.candidates;
  const readers = ownCandidates(all, analysis.dom, analysis.url).sort(
    (a, b) => SOURCE_TRUST.indexOf(a.source) - SOURCE_TRUST.indexOf(b.source),
  );
  const p = merged.provenance;
  const out: Provenance = {};
  const put = (
    field: string,
    value: Value | null | undefined,
    credited: Array<Reader | undefined>,
    stated: Statement[],
  ) => {
    if (value != null && value !== '') out[field] = entry(value, credited, stated);
  };
  put(
    'title',
    record.title,
    [p.title],
    statements(readers, (c) => c.title),
  );
  put(
    'description',
    record.description,
    [p.description, p.descriptionHtml],
    statements(readers, (c) => c.description),
  );
  put(
    'brand',
    record.brand,
    [p.brand],
    statements(readers, (c) => c.brand),
  );
  put(
    'vendor',
    record.vendor,
    merged.vendor ? [p.vendor] : [p.brand],
    statements(readers, (c) => (merged.vendor ? c.vendor : c.brand)),
  );
  put(
    'price',
    record.price.current_value,
    [p.price],
    statements(readers, (c) => c.price),
  );
  put(
    'compare_at_price',
    record.price.compare_at_value,
    [p.price],
    statements(readers, (c) => c.compareAt),
  );
  put(
    'currency',
    record.price.currency,
    [p.price],
    statements(readers, (c) => c.currency),
  );
  put(
    'availability',
    record.is_available,
    [p.availability, p.variants],
    statements(readers, (c) => isAvailable(c.availability)),
  );
  // A product without variants is its own variant: its SKU is that variant's.
  if (!merged.variants.length)
    put(
      'sku',
      record.variants[0]?.sku,
      [p.sku],
      statements(readers, (c) => cleanSku(c.sku)),
    );
  const images = listEntry(readers, (c) => !!c.images?.length);
  if (images && record.images.length) out.images = images;
  const variants = listEntry(readers, (c) => !!c.variants?.length, p.variants);
  if (variants && merged.variants.length) out.variants = variants;
  variantPrices(out, readers, merged, record);
  return out;
}

/** A rendered page's provenance: what was read from its visible text was read from what a browser rendered. */
export function renderedProvenance(provenance: Provenance): Provenance {
  const relabel = (s: ProvenanceSource): ProvenanceSource => (s === 'page-text' ? 'browser' : s);
  const out: Provenance = {};
  for (const [field, e] of Object.entries(provenance))
    out[field] = {
      source: relabel(e.source),
      also: e.also.map(relabel),
      rejected: e.rejected.map((r) => ({ value: r.value, sources: r.sources.map(relabel) })),
    };
  return out;
}

/** The record without its provenance: what the shared product store keeps (provenance stays with the request's result). */
export function withoutProvenance(record: ProductRecord): ProductRecord {
  if (!record.provenance) return record;
  const { provenance: _omitted, ...rest } = record;
  return rest;
}
