// Character classes the price scanner and number reader test per UTF-16 unit (charCodeAt loops
// instead of regexes on the hot path).

export const DOT = 0x2e;
export const HYPHEN = 0x2d;
export const PERCENT = 0x25;
export const COMMA = 0x2c;
export const SPACE = 0x20;
export const EURO = 0x20ac;

const LETTER_OR_MARK = /^[\p{L}\p{M}]$/u;

export function isLetterOrMark(codePoint: number): boolean {
  if (codePoint < 0x80) return (codePoint >= 0x41 && codePoint <= 0x5a) || (codePoint >= 0x61 && codePoint <= 0x7a);
  return LETTER_OR_MARK.test(String.fromCodePoint(codePoint));
}

/** The code point that ends just before `at`, or -1 at the start. */
export function codePointBefore(text: string, at: number): number {
  if (at <= 0) return -1;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(at - 2) ?? -1;
  }
  return low;
}

export function digitAt(text: string, at: number): boolean {
  return isDigitCode(text.charCodeAt(at));
}

export function isDigitCode(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

export function isSeparatorCode(code: number): boolean {
  return code === DOT || code === COMMA;
}

export function isAsciiLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

export function isZeroWidth(code: number): boolean {
  return (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff;
}

/** What \s matches. */
export function isSpaceCode(code: number): boolean {
  if (code <= 0x20) return code === SPACE || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
