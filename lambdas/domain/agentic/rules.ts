// The rules an agentic result must pass, checked on the catalog record before verification and
// again on the live record after it: complete (title, price, image), in stock when the profile
// says in_stock_only, nothing the profile avoids, and within the price the query asked for.
import type { ProductRecord } from '../extraction/types';
import type { ProfileSignals, UnderstoodQuery } from '../search/api';

/** The hard rules of one agentic search; small and plain (it travels in SQS messages). */
export interface HardRules {
  inStockOnly: boolean;
  /** Lower-case words or phrases. */
  avoid: string[];
  minPrice?: number;
  maxPrice?: number;
  /** The currency the price bounds were written in, when the query said. */
  currency?: string;
}

export function hardRules(signals: ProfileSignals, understood?: Pick<UnderstoodQuery, 'price'>): HardRules {
  const rules: HardRules = { inStockOnly: signals.inStockOnly === true, avoid: [...(signals.avoid ?? [])] };
  const price = understood?.price;
  if (price?.min !== undefined && Number.isFinite(price.min)) rules.minPrice = price.min;
  if (price?.max !== undefined && Number.isFinite(price.max)) rules.maxPrice = price.max;
  if (price?.currency) rules.currency = price.currency.toUpperCase();
  return rules;
}

/** A result must show a title, a price and an image. */
export function missingParts(product: ProductRecord): string[] {
  const missing: string[] = [];
  if (!product.title?.trim()) missing.push('title');
  if (typeof product.price.current_value !== 'number' || !Number.isFinite(product.price.current_value))
    missing.push('price');
  if (!product.images.some((image) => typeof image.url === 'string' && image.url.trim() !== '')) missing.push('image');
  return missing;
}

/** Crude singular: "hoodies" -> "hoodie", "dresses" -> "dress", "boxes" -> "box". */
const stem = (word: string) =>
  word.length > 4 && /(ss|sh|ch|x)es$/.test(word)
    ? word.slice(0, -2)
    : word.length > 3 && word.endsWith('s') && !word.endsWith('ss')
      ? word.slice(0, -1)
      : word;

const words = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem);

/** The text an avoided word is looked for in: what the product is, not what its copy mentions. */
function describingText(product: ProductRecord): string {
  const parts: unknown[] = [
    product.title,
    product.product_type,
    product.taxonomy_product_category_path,
    product.brand,
    ...product.tags,
  ];
  const attributes = product.attributes;
  if (attributes) {
    for (const [key, value] of Object.entries(attributes)) {
      if (
        key === 'summary' ||
        key === 'care_instructions' ||
        key === 'additional_product_information' ||
        key === 'features'
      )
        continue;
      if (value && typeof value === 'object' && !Array.isArray(value)) parts.push(...Object.values(value));
      else if (Array.isArray(value)) parts.push(...value);
      else parts.push(value);
    }
  }
  return parts.filter((p): p is string => typeof p === 'string').join(' \u0000 ');
}

/** The avoided term the product shows, or null. A phrase matches as consecutive words. */
export function avoidedTerm(product: ProductRecord, avoid: readonly string[]): string | null {
  if (!avoid.length) return null;
  const fields = describingText(product).split('\u0000').map(words);
  for (const term of avoid) {
    const wanted = words(term);
    if (!wanted.length) continue;
    const hit = fields.some((field) => field.some((_, i) => wanted.every((w, k) => field[i + k] === w)));
    if (hit) return term;
  }
  return null;
}

/** Why the product breaks a hard rule, or null when it passes them all. */
export function ruleBroken(product: ProductRecord, rules: HardRules): string | null {
  if (rules.inStockOnly && product.is_available !== true) return 'not in stock';
  const avoided = avoidedTerm(product, rules.avoid);
  if (avoided) return `shows "${avoided}", which the profile avoids`;
  const price = product.price.current_value;
  const comparable =
    !rules.currency || !product.price.currency || product.price.currency.toUpperCase() === rules.currency;
  if (comparable && (rules.minPrice !== undefined || rules.maxPrice !== undefined)) {
    if (typeof price !== 'number') return 'no price to compare with the price asked for';
    if (rules.minPrice !== undefined && price < rules.minPrice) return `price ${price} is below ${rules.minPrice}`;
    if (rules.maxPrice !== undefined && price > rules.maxPrice) return `price ${price} is above ${rules.maxPrice}`;
  }
  return null;
}

/** Why a verified (live) record cannot be shown, or null when it can. */
export function rejection(product: ProductRecord | null, rules: HardRules): string | null {
  if (!product) return 'the product page could not be read';
  const missing = missingParts(product);
  if (missing.length) return `the product page lacks ${missing.join(', ')}`;
  return ruleBroken(product, rules);
}
