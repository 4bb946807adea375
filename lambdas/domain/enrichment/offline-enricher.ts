// The offline enricher: deterministic, no network, no model. Every value comes from what the
// store wrote (options, title, tags, breadcrumbs, description) or is null.
import type { Enricher, Enrichment, EnrichmentInput } from '../../ports/enricher';
import type { ProductAttributes } from '../extraction/types';
import {
  readAdditional,
  readAgeGroup,
  readCare,
  readClosure,
  readFeatures,
  readGender,
  readMaterial,
  readPattern,
  readSeasons,
  readSummary,
} from './attributes';
import { colourFamily, findColourLabel, namesNoFamily } from './colour';
import { matchTaxonomy } from './taxonomy';

const COLOUR_OPTION =
  /^(?:colou?rs?|colou?r ?way|farbe|couleur|colore|cor|kleur|kolor|vari|färg|farve|farge|color\/colour|shade)$/i;
const COLOUR_TAG = /^(?:colou?r|farbe|couleur)\s*[:_-]\s*(.+)$/i;

export function createOfflineEnricher(): Enricher {
  return { enrich: enrichOffline };
}

export async function enrichOffline(raw: EnrichmentInput): Promise<Enrichment> {
  const input = sanitize(raw);
  const [color, match] = await Promise.all([readColour(input), matchTaxonomy(input)]);
  const gender = readGender(input);
  const description = input.description;
  const attributes: ProductAttributes = {
    summary: readSummary(description),
    features: readFeatures(description),
    care_instructions: readCare(input),
    color,
    material: readMaterial(input),
    pattern: readPattern(input),
    closure_type: readClosure(input),
    gender,
    age_group: readAgeGroup(input, gender),
    season: readSeasons(input),
    additional_attributes: readAdditional(input, COVERED_NAMES),
  };
  return {
    attributes,
    product_type: input.storeProductType ?? match?.leaf ?? null,
    taxonomy_product_category_id: match?.id ?? null,
    taxonomy_product_category_path: match?.path ?? null,
  };
}

// Option or "Name: value" names whose values already have their own attribute.
const COVERED_NAMES = new Set([
  'color',
  'colour',
  'colors',
  'colours',
  'farbe',
  'couleur',
  'material',
  'materials',
  'fabric',
  'composition',
  'care',
  'care instructions',
  'pattern',
  'gender',
  'season',
  'closure',
  'title',
]);

async function readColour(
  input: EnrichmentInput,
): Promise<{ iscc_family: string | null; merchant_label: string | null } | null> {
  let label: string | null = null;
  for (const [name, values] of Object.entries(input.options)) {
    if (COLOUR_OPTION.test(name.trim()) && values.length && values[0].trim()) {
      label = values[0].trim();
      break;
    }
  }
  if (!label) {
    for (const tag of input.tags) {
      const tagged = COLOUR_TAG.exec(tag.trim());
      if (tagged) {
        label = tagged[1].trim();
        break;
      }
    }
  }
  label ??= input.title ? findColourLabel(input.title) : null;
  label ??= findColourLabel(input.tags.join(' , '));
  if (!label) return null;
  const family = namesNoFamily(label) ? null : await colourFamily(label);
  return { iscc_family: family, merchant_label: label.slice(0, 80) };
}

/** Bad input is never an error: wrong types become empty values, long texts are capped. */
function sanitize(raw: EnrichmentInput): EnrichmentInput {
  const text = (v: unknown, max: number) => (typeof v === 'string' && v.trim() ? v.slice(0, max) : null);
  const list = (v: unknown, max: number) =>
    Array.isArray(v)
      ? v
          .filter((x): x is string => typeof x === 'string' && x.trim() !== '')
          .slice(0, max)
          .map((x) => x.slice(0, 200))
      : [];
  const options: Record<string, string[]> = {};
  if (raw && typeof raw.options === 'object' && raw.options !== null) {
    for (const [name, values] of Object.entries(raw.options).slice(0, 10))
      options[name.slice(0, 60)] = list(values, 50);
  }
  return {
    title: text(raw?.title, 500),
    description: text(raw?.description, 20_000),
    brand: text(raw?.brand, 200),
    tags: list(raw?.tags, 100),
    storeProductType: text(raw?.storeProductType, 200)?.trim() ?? null,
    options,
    breadcrumbs: list(raw?.breadcrumbs, 12),
  };
}
