// Which number of a price string is the price: not a percentage, date, quantity or measure; the
// one its currency is written against; "was ... now" and ranges.
import type { FoundCurrency } from './scanner';
import type { NumberSpan } from './numbers';
import { COMMA, digitAt, DOT, HYPHEN, isAsciiLetter, isSpaceCode, PERCENT } from './chars';

const UNIT_AFTER =
  /^\s?(?:ft|feet|foot|inch(?:es)?|in\.|cm|mm|km|m²|sq\s?ft|sqft|litre|liter|litres|liters|lbs?|oz|kg|mg|ml|gb|tb|mb|ghz|mhz|mah|w\b|v\b|hz|%|x\b|pcs|pieces|stk|ausgaben|issues)/i;
const MONTH =
  /(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)/i;
const MONTH_BEFORE = new RegExp(`${MONTH.source}\\.?,?\\s*$`, 'i');
const WAS = /\b(?:was|statt|avant|antes|prima)\b/i;
const RANGE_JOIN = /^\s*(?:-|–|—|to|bis|à|a|al|до|tot|til|till)\s*$/i;
const QUANTITY_BEFORE =
  /(?:заказ|qty|quantity|min\.?|артикул|код товара|sku|item\s*#?|model|art\.?\s*nr\.?)\s*[:#]?\s*$/i;

export interface Candidate {
  span: NumberSpan;
  currency: FoundCurrency | null;
  /** The currency is written before the number ("$12") rather than after ("12 €"). */
  prefix: boolean;
}

function rejectsAsPrice(text: string, span: NumberSpan): boolean {
  const { start, end, raw } = span;
  // "40%", "40 %".
  const next = text.charCodeAt(end);
  if (next === PERCENT || (isSpaceCode(next) && text.charCodeAt(end + 1) === PERCENT)) return true;
  // Dates: "15.08.2017", "25-09", "July, 2004". (Spans hold no "/", so a date has two dots.)
  if (raw.indexOf('.') !== raw.lastIndexOf('.') && /^\d{1,2}[./]\d{1,2}[./]\d{2,4}$/.test(raw)) return true;
  if (next === HYPHEN && digitAt(text, end + 1)) return true;
  if (start >= 2 && text.charCodeAt(start - 1) === HYPHEN && digitAt(text, start - 2) && /^\d{1,4}$/.test(raw))
    return true;
  const windowStart = Math.max(0, start - 24);
  if (raw.length === 4 && /^\d{4}$/.test(raw) && MONTH_BEFORE.test(text.slice(windowStart, start))) return true;
  if (mayEndQuantityLabel(text, windowStart, start) && QUANTITY_BEFORE.test(text.slice(windowStart, start))) {
    return !/^\s?[€$£]/.test(text.slice(end, end + 12));
  }
  return false;
}

/** Cheap pre-check for QUANTITY_BEFORE: its labels end in a letter, "." or "#", then [:#] and spaces. */
function mayEndQuantityLabel(text: string, from: number, to: number): boolean {
  let k = to - 1;
  while (k >= from && isSpaceCode(text.charCodeAt(k))) k--;
  if (k >= from && (text.charCodeAt(k) === 0x3a || text.charCodeAt(k) === 0x23)) {
    k--;
    while (k >= from && isSpaceCode(text.charCodeAt(k))) k--;
  }
  if (k < from) return false;
  const code = text.charCodeAt(k);
  return code >= 0x80 || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) || code === DOT || code === 0x23;
}

/** Cheap pre-check for UNIT_AFTER: its units start with a Latin letter or "%", after one optional space. */
function mayStartUnit(text: string, at: number): boolean {
  const first = text.charCodeAt(at);
  if (first === PERCENT || isAsciiLetter(first)) return true;
  const second = text.charCodeAt(at + 1);
  return isSpaceCode(first) && (second === PERCENT || isAsciiLetter(second));
}

/** Cheap pre-check for WAS: its words start with w, s, a or p. */
function mayHoldWasWord(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i) | 0x20;
    if (code === 0x77 || code === 0x73 || code === 0x61 || code === 0x70) return true;
  }
  return false;
}

export function choosePrice(text: string, numbers: NumberSpan[], currencies: FoundCurrency[]): Candidate | null {
  const candidates: Candidate[] = [];
  for (const span of numbers) {
    if (rejectsAsPrice(text, span)) continue;
    const attached = attachedCurrency(text, span, currencies, numbers);
    if (!attached.currency && mayStartUnit(text, span.end) && UNIT_AFTER.test(text.slice(span.end, span.end + 10)))
      continue;
    candidates.push(attached);
  }
  if (!candidates.length) return null;
  const withCurrency: Candidate[] = [];
  for (const c of candidates) if (c.currency) withCurrency.push(c);
  if (!withCurrency.length) return candidates[0];
  // "Was $120.00 Now $60.00": the current price follows "now".
  const was = mayHoldWasWord(text) ? WAS.exec(text) : null;
  const now = was ? /\b(?:now|jetzt|nu|maintenant|ahora|adesso)\b/i.exec(text.slice(was.index)) : null;
  if (was && now) {
    now.index += was.index;
    let current: Candidate | undefined;
    for (const c of withCurrency) {
      if (c.span.start > now.index) {
        current = c;
        break;
      }
    }
    // "Was: $124.95 Now: $0.00" is a placeholder, not a giveaway.
    if (current && !/^[0.,]+$/.test(current.span.raw)) return current;
  }
  const first = withCurrency[0];
  const position = candidates.indexOf(first);
  // "From 26 to 50 €": one suffix currency covers a range; the lowest (first) end is the price.
  if (!first.prefix && position > 0) {
    const previous = candidates[position - 1];
    if (!previous.currency && RANGE_JOIN.test(text.slice(previous.span.end, first.span.start))) return previous;
  }
  // Bare numbers before a prefixed price ("50 - $2.00") are quantities; unprefixed prices are
  // written the same way ("€ 10.00 € 8.00"), so the first currency-attached number wins.
  return first;
}

/**
 * The currency written against this number. A token directly before a number is that number's
 * prefix ("$2.00"), so in "50 - $2.00" the "$" does not also count as a suffix of 50.
 */
function attachedCurrency(
  text: string,
  span: NumberSpan,
  currencies: FoundCurrency[],
  numbers: NumberSpan[],
): Candidate {
  let bestCurrency: FoundCurrency | null = null;
  let bestIsPrefix = false;
  let bestGap = Number.POSITIVE_INFINITY;
  const prefixStyle = currencies.length > 0 && numbers.length > 0 && currencies[0].start < numbers[0].start;
  for (const c of currencies) {
    if (c.end <= span.start) {
      const gap = span.start - c.end;
      if (gap <= 3 && gap < bestGap && onlyGapChars(text, c.end, span.start, isPrefixGapCode)) {
        bestCurrency = c;
        bestIsPrefix = true;
        bestGap = gap;
      }
    } else if (c.start >= span.end) {
      const gap = c.start - span.end;
      let next: NumberSpan | undefined;
      for (const n of numbers) {
        if (n.start >= c.end) {
          next = n;
          break;
        }
      }
      const gapToNext = next ? next.start - c.end : -1;
      // Between two numbers the token belongs to the nearer one; on a tie, to the side the
      // string writes its currencies on ("3,49 zł 1,75 zł" is suffix, "$ 1 $ 2" prefix).
      const prefixOfNext =
        next !== undefined &&
        gapToNext <= 2 &&
        onlyGapChars(text, c.end, next.start, isNextPrefixGapCode) &&
        (gapToNext < gap || (gapToNext === gap && prefixStyle));
      if (gap <= 3 && gap < bestGap && !prefixOfNext && onlyGapChars(text, span.end, c.start, isSuffixGapCode)) {
        bestCurrency = c;
        bestIsPrefix = false;
        bestGap = gap;
      }
    }
  }
  return { span, currency: bestCurrency, prefix: bestIsPrefix };
}

function onlyGapChars(text: string, from: number, to: number, allowed: (code: number) => boolean): boolean {
  for (let k = from; k < to; k++) if (!allowed(text.charCodeAt(k))) return false;
  return true;
}

/** "$ 12", "EUR: 12", "US$ $12". */
function isPrefixGapCode(code: number): boolean {
  return isSpaceCode(code) || code === 0x3a || code === 0x24;
}

/** "12 €", "12,- €", "12.– €", "12* €". */
function isSuffixGapCode(code: number): boolean {
  return isSpaceCode(code) || code === COMMA || code === DOT || code === HYPHEN || code === 0x2013 || code === 0x2a;
}

function isNextPrefixGapCode(code: number): boolean {
  return isSpaceCode(code) || code === 0x3a;
}
