// Variant data that themes embed in the page outside schema.org: option <select>s in the buy
// form (names and values) and JSON blocks (`<script type="application/json">`) holding the
// variant list with sku, price, availability and option values.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { VariantCandidate } from '../candidate';
import { parseTolerantJson } from '../tolerant-json';
import { asArray, cleanText, toNumber } from '../values';

type Json = Record<string, unknown>;

export interface EmbeddedVariants {
  options: Array<{ name: string; values: string[] }>;
  /** Prices as written in the JSON; the caller decides whether they are minor units. */
  variants: Array<VariantCandidate & { rawPrice: number | null }>;
}

const PLACEHOLDER = /^(choose|select|pick|please|wähle|bitte|choisir|sélectionner|seleccion|scegli|kies|-+)\b/i;

function optionName($: CheerioAPI, select: Element): string | null {
  const a = select.attribs;
  if (a['data-option-name']) return cleanText(a['data-option-name']);
  // The visible label before an attribute slug ("Colour", not "pa_color").
  const id = a.id;
  const label = id ? cleanText($(`label[for="${id}"]`).first().text()) : null;
  if (label) return label;
  const explicit = a['aria-label'] ?? a['data-attribute_name'];
  if (explicit) return cleanText(explicit.replace(/^attribute_(pa_)?/, ''));
  const parentLabel = $(select).closest('label');
  if (parentLabel.length) {
    const text = cleanText(parentLabel.clone().children('select').remove().end().text());
    if (text) return text;
  }
  const name = a.name ?? '';
  const m = name.match(/^attribute_(?:pa_)?(.+)$/) ?? name.match(/^options?\[(.+)\]$/);
  return m ? cleanText(m[1].replace(/[-_]/g, ' ')) : null;
}

function readSelects($: CheerioAPI): EmbeddedVariants['options'] {
  const options: EmbeddedVariants['options'] = [];
  // Selects in a form or in a product block ("form select, [class*=product i] select" in one pass).
  const inBuyArea = (el: Element) => {
    for (
      let p = el.parent as Element | null, k = 0;
      p && p.type === 'tag' && k < 60;
      p = p.parent as Element | null, k++
    ) {
      if (p.name === 'form' || /product/i.test(p.attribs.class ?? '')) return true;
    }
    return false;
  };
  $('select').each((_, el) => {
    if (options.length >= 3) return false;
    if (!inBuyArea(el)) return;
    const name = optionName($, el);
    if (!name || /quantity|qty|country|currency|language|sort/i.test(name)) return;
    const values = $(el)
      .find('option')
      .toArray()
      .map((o) => cleanText($(o).text()))
      .filter((v): v is string => !!v && !PLACEHOLDER.test(v));
    if (values.length && !options.some((o) => o.name === name)) options.push({ name, values: [...new Set(values)] });
  });
  return options;
}

function variantList(value: unknown): Json[] | null {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? (value as Json).variants : null;
  if (!Array.isArray(list) || !list.length || list.length > 500) return null;
  const objects = list.filter((v): v is Json => !!v && typeof v === 'object');
  const looksLikeVariants =
    objects.length === list.length &&
    objects.every((v) => ('sku' in v || 'id' in v) && ('price' in v || 'options' in v || 'option1' in v));
  return looksLikeVariants ? objects : null;
}

export function readEmbeddedVariants($: CheerioAPI, wooVariations = true): EmbeddedVariants {
  const options = readSelects($);
  let variants: EmbeddedVariants['variants'] = [];
  const scripts = $('script[type="application/json"], script[type="text/json"]').toArray().slice(0, 30);
  for (const script of scripts) {
    const text = $(script).text();
    if (text.length > 500_000 || !/sku|option/i.test(text)) continue;
    const list = variantList(parseTolerantJson(text));
    if (!list) continue;
    variants = list.map((v) => {
      const values = Array.isArray(v.options)
        ? v.options.map(String)
        : [v.option1, v.option2, v.option3].filter((x) => x != null).map(String);
      const pairs: Array<[string, string]> = values
        .slice(0, 3)
        .map((value, i) => [options[i]?.name ?? `Option ${i + 1}`, value]);
      const available = typeof v.available === 'boolean' ? v.available : null;
      return {
        id: v.id != null ? String(v.id) : null,
        sku: cleanText(asArray(v.sku)[0] as string) ?? null,
        title: cleanText(v.title as string) ?? cleanText(v.name as string),
        options: pairs,
        rawPrice: toNumber(v.price),
        price: null,
        compareAt: null,
        availability: available == null ? null : available ? 'InStock' : 'OutOfStock',
      };
    });
    break;
  }
  if (!variants.length && wooVariations) variants = readWooVariations($, options);
  // Option values seen only in the variant list still belong to the options.
  if (variants.length && !options.length) {
    const names = [...new Set(variants.flatMap((v) => v.options.map(([n]) => n)))];
    for (const name of names)
      options.push({
        name,
        values: [
          ...new Set(variants.map((v) => v.options.find(([n]) => n === name)?.[1]).filter((x): x is string => !!x)),
        ],
      });
  }
  return { options, variants };
}

/**
 * WooCommerce's variation data on the add-to-cart form (`data-product_variations`): each
 * variation's id, SKU, price, stock and attribute values (select values, shown by their option
 * text). "false" when the shop loads variations by Ajax instead.
 */
function readWooVariations($: CheerioAPI, options: EmbeddedVariants['options']): EmbeddedVariants['variants'] {
  const raw = $('form[data-product_variations]').first().attr('data-product_variations');
  if (!raw || raw.length > 500_000 || raw.trim()[0] !== '[') return [];
  const list = parseTolerantJson(raw);
  if (!Array.isArray(list)) return [];
  const form = $('form[data-product_variations]').first();
  const shown = (attribute: string, value: string): [string, string] => {
    const select = form
      .find('select')
      .filter((_, el) => (el.attribs['data-attribute_name'] ?? el.attribs.name) === attribute)
      .first();
    const name =
      (select.length ? optionName($, select[0]) : null) ??
      cleanText(attribute.replace(/^attribute_(pa_)?/, '').replace(/[-_]/g, ' ')) ??
      attribute;
    const label = options.find((o) => o.name.toLowerCase() === name.toLowerCase())?.name ?? name;
    const option = value
      ? select
          .find('option')
          .filter((_, o) => o.attribs.value === value)
          .first()
      : null;
    return [label, (option?.length ? cleanText(option.text()) : null) ?? value];
  };
  return list
    .slice(0, 500)
    .filter((v): v is Json => !!v && typeof v === 'object')
    .map((v) => {
      const attributes = v.attributes && typeof v.attributes === 'object' ? Object.entries(v.attributes as Json) : [];
      const price = toNumber(v.display_price);
      const regular = toNumber(v.display_regular_price);
      const image = v.image && typeof v.image === 'object' ? cleanText((v.image as Json).src as string) : null;
      return {
        id: v.variation_id != null ? String(v.variation_id) : null,
        sku: cleanText(v.sku as string),
        title: null,
        // An empty value means "any": that option does not tell this variation apart.
        options: attributes.filter(([, value]) => value).map(([attribute, value]) => shown(attribute, String(value))),
        rawPrice: price,
        price: null,
        compareAt: regular != null && price != null && regular > price ? regular : null,
        availability: typeof v.is_in_stock === 'boolean' ? (v.is_in_stock ? 'InStock' : 'OutOfStock') : null,
        image: image ? { url: image } : null,
      };
    });
}

/** Decides the unit of embedded prices against a known display price: cents when 100x off. */
export function resolveEmbeddedPrices(
  embedded: EmbeddedVariants,
  referencePrice: number | null,
  currency: string | null,
): VariantCandidate[] {
  const raw = embedded.variants.map((v) => v.rawPrice).filter((n): n is number => n != null);
  const allIntegers = raw.length > 0 && raw.every((n) => Number.isInteger(n));
  const inMinor =
    allIntegers &&
    referencePrice != null &&
    raw.some((n) => Math.abs(n / 100 - referencePrice) < 0.005) &&
    !raw.some((n) => Math.abs(n - referencePrice) < 0.005);
  return embedded.variants.map(({ rawPrice, ...v }) => ({
    ...v,
    price: rawPrice == null || rawPrice <= 0 ? null : inMinor ? Math.round(rawPrice) / 100 : rawPrice,
    currency: rawPrice == null ? null : currency,
  }));
}
