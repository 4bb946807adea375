// Learned choice of price, title, brand and SKU among each field's candidates (features.ts),
// and of the page type: logistic regression with weights fitted offline on labelled pages by
// test/bench/fit-extraction.ts and committed as weights.json. Deterministic and offline: the
// weights are data, the scoring a dot product. A field whose best candidate scores below its
// fitted threshold is left empty (a price where the page states none is an error too).
import type { PageClassification } from './classify';
import {
  brandCandidates,
  type FieldCandidate,
  type Features,
  pageFeatures,
  priceCandidates,
  type Readings,
  skuCandidates,
  titleCandidates,
} from './features';
import type { MergedProduct } from './merge';
import fitted from './weights.json';

export interface Model {
  bias: number;
  weights: Record<string, number>;
  /** Least probability for a value to be given (pages without one are scored too). */
  threshold: number;
}

export type LearnedField = 'price' | 'title' | 'brand' | 'sku' | 'page';

export type ExtractionWeights = Partial<Record<LearnedField, Model>>;

export const WEIGHTS: ExtractionWeights = (fitted as { models: ExtractionWeights }).models ?? {};

export function probability(model: Model, features: Features): number {
  let z = model.bias;
  for (const k in features) z += (model.weights[k] ?? 0) * features[k];
  return 1 / (1 + Math.exp(-z));
}

/** Least probability to give a value where the rules found none: filling a gap takes an even bet. */
const FILL_GAP = 0.5;

function best<T>(
  model: Model,
  list: Array<FieldCandidate<T>>,
  ruleHasValue: boolean,
): { pick: FieldCandidate<T>; p: number } | null {
  let out: { pick: FieldCandidate<T>; p: number } | null = null;
  for (const c of list) {
    const p = probability(model, c.features);
    if (!out || p > out.p) out = { pick: c, p };
  }
  const least = ruleHasValue ? model.threshold : Math.max(model.threshold, FILL_GAP);
  return out && out.p >= least ? out : null;
}

function choosePrice(r: Readings, model: Model, merged: MergedProduct): void {
  const chosen = best(model, priceCandidates(r), merged.price != null);
  if (!chosen) {
    merged.price = null;
    merged.compareAt = null;
    delete merged.provenance.price;
    return;
  }
  const { pick } = chosen;
  if (merged.price != null && Math.abs(merged.price - pick.value) < 0.005) return;
  merged.price = pick.value;
  merged.currency = merged.currency ?? pick.currency ?? null;
  if (merged.compareAt != null && merged.compareAt <= pick.value) merged.compareAt = null;
  merged.provenance.price = pick.source;
}

function chooseText(
  field: 'title' | 'brand' | 'sku',
  list: Array<FieldCandidate<string>>,
  model: Model,
  merged: MergedProduct,
): void {
  const chosen = best(model, list, merged[field] != null);
  if (!chosen) {
    // A title is what makes a product record: the rules' stays when no candidate convinces.
    if (field !== 'title') {
      merged[field] = null;
      delete merged.provenance[field];
    }
    return;
  }
  if (merged[field] === chosen.pick.value) return;
  merged[field] = chosen.pick.value;
  merged.provenance[field] = chosen.pick.source;
}

/**
 * The rules' reading (`r`) re-decided by the learned models present in `weights` (a field
 * without a model keeps the rules' value). Returns the new merged product and classification.
 */
export function learnedReading(
  r: Readings,
  withoutSiteName: (t: string) => string,
  weights: ExtractionWeights = WEIGHTS,
): { merged: MergedProduct; classification: PageClassification } {
  const merged: MergedProduct = { ...r.merged, provenance: { ...r.merged.provenance } };
  if (weights.price) choosePrice(r, weights.price, merged);
  if (weights.title) chooseText('title', titleCandidates(r, withoutSiteName), weights.title, merged);
  if (weights.brand) chooseText('brand', brandCandidates(r), weights.brand, merged);
  if (weights.sku) chooseText('sku', skuCandidates(r), weights.sku, merged);
  let classification = r.classification;
  if (weights.page) {
    const p = probability(weights.page, pageFeatures({ ...r, merged }));
    const isProduct = p >= weights.page.threshold;
    if (isProduct !== classification.isProduct)
      classification = {
        isProduct,
        score: classification.score,
        reason: isProduct
          ? ''
          : classification.reason || 'Not a product page: no single product with a title and a price was found.',
      };
  }
  return { merged, classification };
}
