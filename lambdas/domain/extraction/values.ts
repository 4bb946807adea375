// Small value normalisers shared by the readers.
import { textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import type { Availability } from './candidate';
import { parsePrice } from './price';

// A character reference with its semicolon: "&iacute;", "&#39;", "&#x2F;". One without it
// ("AT&T", "B&Q", "&copy 2024") is left as written.
const CHARACTER_REFERENCE = /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/gi;

/**
 * Character references left in a value: markup states names already escaped (JSON-LD's
 * `"name": "Cama Elo&iacute;sa"`, a meta content written `&amp;#39;`), and the page's parser
 * decodes one level only. Each reference is decoded as HTML decodes it; an unknown one stays
 * (HTML reads "&notit;" as "¬it;": that is no reference a name meant).
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(CHARACTER_REFERENCE, (ref) => {
    const char = textContent(parseDocument(ref));
    return char && [...char].length <= 2 ? char : ref;
  });
}

/** A text value as the readers give it: whitespace collapsed, character references decoded; "" is none. */
export function cleanText(value: unknown): string | null {
  if (value == null) return null;
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = decodeEntities(String(value))
    .replace(/[\u00a0\u2009\u202f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text ? text : null;
}

// A label some shops write into the SKU value itself ("SKU: AK-1700", "Item # 48213", "Артикул: 5").
const SKU_PREFIX =
  /^(?:sku|item\s*(?:#|no\.?|number)|art(?:ikel)?\.?[\s-]*(?:nr|no)\.?|artikelnummer|ref(?:erence)?\.?|réf\.?|product\s*(?:code|id|no\.?)|style\s*(?:#|no\.?)|model\s*(?:#|no\.?)?|артикул|品番|货号|mpn)\s*(?:[:#：]\s*|\s+(?=\S*\d))/iu;

/** A SKU as a value: whitespace collapsed, a label written into the value cut; "" or "-"-like is none. */
export function cleanSku(value: unknown): string | null {
  const text = cleanText(value);
  if (!text) return null;
  const bare = text.replace(SKU_PREFIX, '').trim();
  return bare && /[\p{L}\p{N}]/u.test(bare) && !isSkuPlaceholder(bare) ? bare : null;
}

/**
 * What templates and feeds write where a SKU is missing: an unfilled placeholder ("{{ sku }}",
 * "${sku}", "%SKU%"), a null word ("N/A", "null", "none", "0", "sku"), an address, or words
 * without a digit (the product's name copied into the field). None is an identifier: the next
 * source's SKU is the product's.
 */
export function isSkuPlaceholder(value: string): boolean {
  const v = value.trim();
  return (
    v.length > 64 ||
    /[{}]|\$\{|^%.*%$|^<%|\[\[/.test(v) ||
    /^(?:sku|null|nil|undefined|none|n\.?\s?\/?\s?a\.?|tbd|tba|false|true|string|default|0+|\?+|x+|-+)$/i.test(v) ||
    /^(?:https?:)?\/\//i.test(v) ||
    (/\s/.test(v) && !/\p{N}/u.test(v))
  );
}

/** First string out of a string, number, {name}/{@value} object or array of those. */
export function firstString(value: unknown): string | null {
  if (value == null) return null;
  if (Array.isArray(value)) {
    for (const v of value) {
      const s = firstString(v);
      if (s) return s;
    }
    return null;
  }
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return firstString(o.name ?? o['@value'] ?? o.value ?? null);
  }
  return cleanText(value);
}

export function asArray<T = unknown>(value: unknown): T[] {
  if (value == null) return [];
  return (Array.isArray(value) ? value : [value]) as T[];
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A price stated in markup. schema.org asks for a dot decimal, but shops also write "48,00",
 * "1.299,00" or "$12.99"; the locale-aware parser reads those. Zero and negatives are no price.
 */
export function markupPrice(value: unknown, currency?: string | null, countryCode?: string | null): number | null {
  if (value == null || value === '') return null;
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (PLAIN_DECIMAL.test(text)) {
    const n = Number(text);
    return n > 0 ? n : null;
  }
  const parsed = parsePrice(text, { currency: currency ?? null, countryCode: countryCode ?? null });
  return parsed.amount != null && parsed.amount > 0 ? parsed.amount : null;
}

export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim()) {
    const n = Number(value.trim().replace(',', '.'));
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function toPositiveInt(value: unknown): number | null {
  const n = toNumber(typeof value === 'string' ? value.replace(/[^\d.]/g, '') : value);
  return n != null && n > 0 ? Math.round(n) : null;
}

const CURRENCY_CODE = /^[A-Z]{3}$/;

export function currencyCode(value: unknown): string | null {
  const text = firstString(value);
  if (!text) return null;
  const upper = text.toUpperCase();
  if (CURRENCY_CODE.test(upper)) return upper;
  const parsed = parsePrice(`${text} 1`, {});
  return parsed.currency && CURRENCY_CODE.test(parsed.currency) ? parsed.currency : null;
}

export function normaliseAvailability(value: unknown): Availability | null {
  const text = firstString(value);
  if (!text) return null;
  const key = text
    .replace(/^https?:\/\/schema\.org\//i, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
  if (!key) return null;
  if (/^(instock|available|instoreonly|onlineonly|yes|true|1|instockonline|instocks)$/.test(key)) return 'InStock';
  if (/^(outofstock|soldout|oos|unavailable|notavailable|no|false|0|outofstockonline)$/.test(key)) return 'OutOfStock';
  if (key === 'discontinued') return 'Discontinued';
  if (key === 'preorder' || key === 'presale') return 'PreOrder';
  if (key === 'backorder') return 'BackOrder';
  if (key === 'limitedavailability') return 'LimitedAvailability';
  if (key.includes('outofstock') || key.includes('soldout')) return 'OutOfStock';
  if (key.includes('instock')) return 'InStock';
  return null;
}

export function isAvailable(availability: Availability | null | undefined): boolean | null {
  if (!availability) return null;
  return (
    availability === 'InStock' ||
    availability === 'LimitedAvailability' ||
    availability === 'PreOrder' ||
    availability === 'BackOrder'
  );
}

export function absoluteUrl(value: unknown, base: string): string | null {
  const text = firstString(value);
  if (!text || text.startsWith('data:') || text.startsWith('javascript:')) return null;
  try {
    const url = new URL(text.startsWith('//') ? `https:${text}` : text, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href;
  } catch {
    return null;
  }
}

/** Template placeholders and empty words that are no brand ("$metabrand", "{{ brand }}", "Your name here"). */
export function isBrandPlaceholder(value: string): boolean {
  return /^[$%{[<]|^(your (brand|name) here|brand name|brand|null|undefined|none|n\/a|-|does not apply|no aplica|non applicabile)$/i.test(
    value.trim(),
  );
}

/**
 * A brand written as text is words, not a code or a count: a run of three or more digits is
 * allowed only beside at least two words ("365 by Whole Foods Market", not "4,512 ratings").
 */
export function brandShaped(value: string): boolean {
  if (!value || value.length > 60) return false;
  if (!/\d{3,}/.test(value)) return true;
  return (value.match(/\p{L}{2,}/gu)?.length ?? 0) >= 3;
}
