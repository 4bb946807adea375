// Number spans in a price string and their values: thousands and decimal separators by shape,
// hint, currency (thousandths) and country; apostrophe and space groups; the euro sign written as
// a decimal separator.
import { COUNTRY_CURRENCY, THREE_DECIMAL_CURRENCIES } from './currency';
import { COMMA, digitAt, DOT, EURO, isDigitCode, isSeparatorCode, SPACE } from './chars';

export interface NumberSpan {
  start: number;
  end: number;
  raw: string;
  /** Decimal separator forced by the shape, e.g. "35€ 99". */
  euroDecimal: boolean;
}

export function findNumbers(text: string, euroSeparator: boolean): NumberSpan[] {
  const spans: NumberSpan[] = [];
  const n = text.length;
  let i = 0;
  for (let guard = 0; i < n && guard < 500; guard++) {
    // A digit, or ".5" / "..5".
    const startsNumber =
      digitAt(text, i) ||
      (text.charCodeAt(i) === DOT &&
        (digitAt(text, i + 1) || (text.charCodeAt(i + 1) === DOT && digitAt(text, i + 2))));
    if (!startsNumber) {
      i++;
      continue;
    }
    const start = i;
    let j = i;
    let hasSeparator = false;
    let hasGap = false;
    while (j < n) {
      const ch = text.charCodeAt(j);
      if (isDigitCode(ch)) {
        j++;
      } else if (ch === DOT || ch === COMMA) {
        hasSeparator = true;
        j++;
      } else if ((ch === 0x27 || ch === 0x2019) && digitAt(text, j - 1) && digitGroupAt(text, j + 1, 3)) {
        // "1'049", "1’049": an apostrophe between 3-digit groups.
        hasGap = true;
        j++;
      } else if (
        ch === SPACE &&
        digitAt(text, j - 1) &&
        !hasSeparator &&
        digitGroupAt(text, j + 1, 3) &&
        groupLength(text, j) <= 3
      ) {
        // "1 298,00", "120 000 000": a space between 3-digit groups is a thousands separator.
        hasGap = true;
        j++;
      } else if (
        ch === SPACE &&
        isSeparatorCode(text.charCodeAt(j - 1)) &&
        digitAt(text, j - 2) &&
        digitGroupAt(text, j + 1, 2)
      ) {
        // "559. 99", "130, 38": a stray space after the decimal separator.
        hasGap = true;
        j++;
      } else {
        break;
      }
    }
    let raw = hasGap ? text.slice(start, j).replace(/[\s'’]/g, '') : text.slice(start, j);
    let end = j;
    let euroDecimal = false;
    // "35€ 99", "1250€600": the euro sign written where the decimal separator goes.
    const euro = text.charCodeAt(j) === EURO ? /^€( ?)(\d+)/.exec(text.slice(j)) : null;
    if (euro && (euroSeparator || /^\d+$/.test(raw)) && text.indexOf('€') === text.lastIndexOf('€')) {
      const digitsOk = euro[1] ? euro[2].length === 2 : true;
      if (digitsOk) {
        raw = `${raw.replace(/[.,]/g, '')}.${euro[2]}`;
        end = j + euro[0].length;
        euroDecimal = true;
      }
    }
    spans.push({ start, end, raw, euroDecimal });
    i = Math.max(end, start + 1);
  }
  return spans;
}

/** Exactly `size` digits from `at`, not followed by another digit. */
function digitGroupAt(text: string, at: number, size: number): boolean {
  for (let k = 0; k < size; k++) if (!digitAt(text, at + k)) return false;
  return !digitAt(text, at + size);
}

function groupLength(text: string, spaceAt: number): number {
  let k = spaceAt - 1;
  while (k >= 0 && digitAt(text, k)) k--;
  return spaceAt - 1 - k;
}

export function numberValue(
  raw: string,
  decimalHint: '.' | ',' | null,
  currency: string | null,
  country: string | null,
): number | null {
  let s = raw;
  // Leading separators: ".75" is 0.75; in "$.750.30" the stray dot is noise.
  const lead = isSeparatorCode(s.charCodeAt(0)) ? (/^[.,]+/.exec(s)?.[0] ?? '') : '';
  if (lead && decimalHint && lead.includes(decimalHint) && !s.slice(lead.length).includes(decimalHint))
    return toNumber(`0.${withoutSeparators(s)}`);
  if (lead) {
    const rest = s.slice(lead.length);
    s = /[.,]/.test(rest) ? rest : `.${rest}`;
    if (!/[.,]/.test(rest)) return toNumber(s);
  }
  let trimmed = s.length;
  while (trimmed > 0 && isSeparatorCode(s.charCodeAt(trimmed - 1))) trimmed--;
  if (!trimmed) return null;
  if (trimmed < s.length) s = s.slice(0, trimmed);
  const dots = count(s, '.');
  const commas = count(s, ',');
  let decimal: '.' | ',' | null;
  if (decimalHint) {
    decimal = s.includes(decimalHint) ? decimalHint : null;
  } else if (dots && commas) {
    decimal = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
    if (count(s, decimal) > 1) decimal = null;
  } else if (dots + commas === 0) {
    decimal = null;
  } else {
    const sep = dots ? '.' : ',';
    const occurrences = dots || commas;
    const at = s.lastIndexOf(sep);
    const intPart = s.slice(0, at);
    const fraction = s.slice(at + 1);
    if (occurrences > 1) {
      decimal = null;
    } else if (fraction.length !== 3) {
      decimal = sep;
    } else {
      // "34.000" / "1,500": a thousands group, unless the currency counts thousandths
      // (KWD 423.923), or the integer part cannot lead a group ("0.500", "1235.999").
      const thousandths =
        (currency !== null && THREE_DECIMAL_CURRENCIES.has(currency)) ||
        (currency === null && country !== null && THREE_DECIMAL_CURRENCIES.has(COUNTRY_CURRENCY.get(country) ?? ''));
      decimal = thousandths || /^0+$/.test(intPart) || intPart.length > 3 ? sep : null;
    }
  }
  let normalized: string;
  if (decimal === null) {
    normalized = withoutSeparators(s);
  } else {
    const at = s.lastIndexOf(decimal);
    const whole = withoutSeparators(s.slice(0, at));
    const fraction = withoutSeparators(s.slice(at + 1));
    normalized = `${whole || '0'}.${fraction}`;
  }
  return toNumber(normalized);
}

function withoutSeparators(s: string): string {
  return s.includes('.') || s.includes(',') ? s.replace(/[.,]/g, '') : s;
}

function count(s: string, ch: string): number {
  let c = 0;
  for (let at = s.indexOf(ch); at !== -1; at = s.indexOf(ch, at + 1)) c++;
  return c;
}

/** Digits with at most one dot ("12", "12.5", ".5", "12.") as a number; else null. */
export function toNumber(s: string): number | null {
  let digits = 0;
  let dots = 0;
  let fractionDigits = 0;
  // The digits as one integer while it is exact; mantissa / 10^k is then the correctly rounded
  // value, the same double Number(s) gives.
  let mantissa = 0;
  let exact = true;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (isDigitCode(code)) {
      digits++;
      if (dots) fractionDigits++;
      if (mantissa > MAX_EXACT_MANTISSA) exact = false;
      else mantissa = mantissa * 10 + (code - 0x30);
    } else if (code === DOT && dots === 0) {
      dots++;
    } else {
      return null;
    }
  }
  if (digits === 0) return null;
  if (exact && fractionDigits < POWERS_OF_TEN.length) return mantissa / POWERS_OF_TEN[fractionDigits];
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
}

/** Below this, mantissa * 10 + 9 stays under 2^53: every step is exact. */
const MAX_EXACT_MANTISSA = Math.floor((Number.MAX_SAFE_INTEGER - 9) / 10);
/** 10^0 .. 10^22: every one an exact double. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
