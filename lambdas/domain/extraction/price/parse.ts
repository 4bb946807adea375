// The price parser's entry point: "1.299,99 €" -> 1299.99 EUR, "CHF 1'049,95", "From £12",
// "Free". Pure: no I/O. Normalises the text, finds currency tokens and numbers, chooses the price
// and its currency (text, hints, country). Returns ISO 4217 codes.
import { findCurrencies, resolveCurrency, type FoundCurrency } from './scanner';
import { findNumbers, numberValue, toNumber } from './numbers';
import { choosePrice } from './choice';
import { isSpaceCode, isZeroWidth, SPACE } from './chars';

export interface PriceHints {
  /** A currency the page states elsewhere: an ISO code ("CAD") or nearby text ("Pris NOK"). */
  currency?: string | null;
  /** Two-letter country of the store; resolves "$", "kr", "£" and separator ambiguity. */
  countryCode?: string | null;
  /** Forces the decimal separator when the caller knows it (e.g. from the page's locale). */
  decimalSeparator?: '.' | ',' | '€' | null;
}

export interface ParsedPrice {
  amount: number | null;
  currency: string | null;
}

const FREE = /\b(?:free|gratis|kostenlos|gratuit|gratuito|бесплатно|zdarma|darmowy)\b/i;
const FREE_SHIPPING = /\b(?:free|gratis|kostenlose?r?)\s+(?:shipping|delivery|returns|versand|lieferung)\b/i;

/** Anything normalizeText would change: non-ASCII, control characters, runs of spaces. */
const NEEDS_NORMALIZING = /[^\x21-\x7e ]| {2}/;

/**
 * One pass: every space-like character becomes a space and runs of them one space (NBSP, narrow
 * NBSP, thin and figure spaces are thousands separators), zero-width characters go, and
 * Arabic-Indic, Persian and fullwidth digits and Arabic separators become ASCII.
 */
/** Cheap pre-check for FREE and FREE_SHIPPING: every word of theirs starts with f, g, k, z, d or б. */
function mayHoldFreeWord(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i) | 0x20;
    if (code === 0x66 || code === 0x67 || code === 0x6b || code === 0x7a || code === 0x64) return true;
    if (code === 0x431) return true; // б, Б
  }
  return false;
}

function normalizeText(text: string): string {
  if (!NEEDS_NORMALIZING.test(text)) return text;
  let out = '';
  let copiedUpTo = 0;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let replacement: string | null = null;
    if (isZeroWidth(code)) {
      replacement = '';
    } else if (isSpaceCode(code)) {
      if (inSpace) replacement = '';
      else if (code !== SPACE) replacement = ' ';
      inSpace = true;
    } else {
      inSpace = false;
      replacement = asciiDigitOrSeparator(code);
    }
    if (replacement !== null) {
      out += text.slice(copiedUpTo, i) + replacement;
      copiedUpTo = i + 1;
    }
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

function asciiDigitOrSeparator(code: number): string | null {
  if (code < 0x660) return null;
  if (code <= 0x669) return String(code - 0x660);
  if (code === 0x66b) return '.';
  if (code === 0x66c) return ',';
  if (code >= 0x6f0 && code <= 0x6f9) return String(code - 0x6f0);
  if (code >= 0xff10 && code <= 0xff19) return String(code - 0xff10);
  // Full-width separators and dollar sign, as Japanese and Chinese shops write "￥１２，８００".
  if (code === 0xff0c) return ',';
  if (code === 0xff0e) return '.';
  if (code === 0xff04) return '$';
  return null;
}

/**
 * Reads the price in a scraped string. The amount is the first price (the lower end of a range);
 * null when the string holds none. "Free" is 0. The currency is an ISO 4217 code or null.
 */
export function parsePrice(text: string | null | undefined, hints: PriceHints = {}): ParsedPrice {
  const country = countryKey(hints.countryCode);
  const source = typeof text === 'string' ? normalizeText(text).slice(0, 2000) : '';
  const { inHint, hintCodes } = hintCurrencies(hints.currency);

  const inText = findCurrencies(source);
  // Without a digit there is no number to read (only "Free" or a bare currency).
  const numbers = HAS_DIGIT.test(source) ? findNumbers(source, hints.decimalSeparator === '€') : [];
  const chosen = numbers.length ? choosePrice(source, numbers, inText) : null;

  const currency = pickCurrency(chosen?.currency ?? null, inText, inHint, hintCodes, country);
  let amount: number | null = null;
  if (chosen) {
    const separator = hints.decimalSeparator === '€' ? null : (hints.decimalSeparator ?? null);
    amount = chosen.span.euroDecimal
      ? toNumber(chosen.span.raw)
      : numberValue(chosen.span.raw, separator, currency, country);
  }
  if (mayHoldFreeWord(source)) {
    if (FREE_SHIPPING.test(source)) {
      amount = null;
    } else if (amount === null && FREE.test(source)) {
      amount = 0;
    }
  }
  return { amount, currency };
}

const HAS_DIGIT = /\d/;

// A page's readers pass the same country with every price text.
let lastCountry: { raw: string; key: string } = { raw: '', key: '' };

function countryKey(raw: string | null | undefined): string | null {
  if (!raw) return null;
  if (raw !== lastCountry.raw) lastCountry = { raw, key: raw.trim().toLowerCase() };
  return lastCountry.key;
}

interface HintReading {
  hint: string | null | undefined;
  inHint: FoundCurrency[];
  hintCodes: string[];
}

// A page's readers pass the same currency hint with every price text: read it once.
let lastHint: HintReading = { hint: null, inHint: [], hintCodes: [] };

function hintCurrencies(hint: string | null | undefined): HintReading {
  if (hint === lastHint.hint) return lastHint;
  const hintText = typeof hint === 'string' ? normalizeText(hint).slice(0, 500) : '';
  const inHint = hintText ? findCurrencies(hintText, isBareToken(hintText)) : [];
  const hintCodes = inHint.filter((c) => c.strength >= 2).map((c) => c.codes[0]);
  lastHint = { hint, inHint, hintCodes };
  return lastHint;
}

function isBareToken(hint: string): boolean {
  const trimmed = hint.trim();
  return trimmed.length > 0 && trimmed.length <= 8 && !/\s\S+\s/.test(trimmed);
}

function pickCurrency(
  attached: FoundCurrency | null,
  inText: FoundCurrency[],
  inHint: FoundCurrency[],
  hintCodes: string[],
  country: string | null,
): string | null {
  // A code or unambiguous symbol in the text wins; the one touching the price first.
  const textBest = strongest(inText);
  if (textBest && textBest.strength >= 2) {
    const pick = attached && attached.strength >= 2 ? attached : (sameCurrencyNeighbour(attached, inText) ?? textBest);
    return resolveCurrency(pick, hintCodes, country);
  }
  // The page names a currency outright ("CAD" beside "$4.99"): it says which dollar is meant.
  if (hintCodes.length) return hintCodes[0];
  if (textBest) return resolveCurrency(attached ?? textBest, hintCodes, country);
  const hintBest = strongest(inHint);
  return hintBest ? resolveCurrency(hintBest, [], country) : null;
}

/** "SGD4.90 $": a stronger token elsewhere in the string names the same family as the attached one. */
/** The first of the strongest tokens. */
function strongest(list: FoundCurrency[]): FoundCurrency | null {
  let best: FoundCurrency | null = null;
  for (const c of list) if (!best || c.strength > best.strength) best = c;
  return best;
}

function sameCurrencyNeighbour(attached: FoundCurrency | null, inText: FoundCurrency[]): FoundCurrency | null {
  let first: FoundCurrency | null = null;
  for (const c of inText) {
    if (c.strength < 2) continue;
    if (!attached) return c;
    if (attached.codes.includes(c.codes[0])) return c;
    first ??= c;
  }
  return first;
}
