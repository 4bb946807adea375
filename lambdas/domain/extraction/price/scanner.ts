// Finding currency tokens in a price string: a trie of case-folded spellings built once per
// process from the currency table, and the rules that make a token count (word boundaries, a
// number nearby for word-like tokens) and resolve an ambiguous one (hints, country, default).
import { CODE_ONLY, COUNTRY_CURRENCY, CURRENCY_TOKENS, TOKEN_DEFAULT } from './currency';
import { codePointBefore, COMMA, digitAt, DOT, isDigitCode, isLetterOrMark, isSpaceCode } from './chars';

// Token index, built once per process. Tokens are found by walking a trie of case-folded
// characters from each position, which gives the same matches as one big alternation regex
// (longest token first, case-insensitive, letters may not continue a word-like token) at a
// fraction of the cost: most positions end at the first lookup.

interface TokenInfo {
  codes: string[];
  /** Latin-letter words (kr, Lek, euro, lowercase codes) and one-letter tokens must touch a number. */
  needsNumber: boolean;
  /** The codes a match may mean: replaced currencies only when the token means nothing else. */
  choices: string[];
  /** 2 = unambiguous symbol, 1 = ambiguous symbol. */
  strength: number;
}

/** One spelling the scanner looks for; a lower priority wins where several match at a position. */
interface TokenSpelling {
  priority: number;
  /** A letter before the token means it is part of a word ("Kč" in "ZKč"). */
  checkBefore: boolean;
  /** A letter after the token means it is part of a word ("L" in "Lamp"). */
  checkAfter: boolean;
}

interface TrieNode {
  next: Map<number, TrieNode>;
  ends: TokenSpelling[];
}

interface CurrencyIndex {
  tokens: Map<string, TokenInfo>;
  /** Lower-cased 3-letter ISO codes -> code. */
  codes: Map<string, string>;
  trie: TrieNode;
  /** Every token and code in match priority: longest first, then table order. */
  ordered: string[];
}

let index: CurrencyIndex | null = null;

function currencyIndex(): CurrencyIndex {
  if (index) return index;
  const tokens = new Map<string, TokenInfo>();
  const codes = new Map<string, string>();
  for (const line of CURRENCY_TOKENS.split('\n')) {
    if (!line.trim()) continue;
    const [code, ...symbols] = line.split('|');
    codes.set(code.toLowerCase(), code);
    for (const symbol of symbols) {
      const info = tokens.get(symbol) ?? { codes: [], needsNumber: isWeakToken(symbol), choices: [], strength: 2 };
      if (!info.codes.includes(code)) info.codes.push(code);
      tokens.set(symbol, info);
    }
  }
  for (const code of CODE_ONLY) codes.set(code.toLowerCase(), code);
  for (const info of tokens.values()) {
    info.choices = info.codes.filter((c) => !CODE_ONLY.includes(c) || info.codes.length === 1);
    info.strength = info.choices.length > 1 ? 1 : 2;
  }
  const ordered = [...new Set([...tokens.keys(), ...[...codes.values()]])]
    .filter((token) => token.length > 0)
    .sort((a, b) => b.length - a.length);
  const trie: TrieNode = { next: new Map(), ends: [] };
  ordered.forEach((token, priority) => {
    const spelling: TokenSpelling = {
      priority,
      checkBefore: isLetterOrMark(token.codePointAt(0) ?? 0),
      checkAfter: isLetterOrMark([...token].at(-1)?.codePointAt(0) ?? 0),
    };
    addToTrie(trie, token, spelling);
    // "AU $59.95", "US $1.23": a space may sit between a country prefix and "$".
    if (/^[A-Z]{1,3}\$$/.test(token)) addToTrie(trie, `${token.slice(0, -1)} $`, spelling);
  });
  index = { tokens, codes, trie, ordered };
  return index;
}

function addToTrie(trie: TrieNode, spelling: string, info: TokenSpelling): void {
  let node = trie;
  for (let i = 0; i < spelling.length; i++) {
    const key = foldCase(spelling.charCodeAt(i));
    let child = node.next.get(key);
    if (!child) node.next.set(key, (child = { next: new Map(), ends: [] }));
    node = child;
  }
  node.ends.push(info);
}

// Lazily filled per UTF-16 unit: 0 = not computed yet (unit 0 never reaches the table).
const foldTable = new Uint16Array(0x10000);
/** 0 = unknown, else startKind(). */
const startTable = new Uint8Array(0x10000);

/**
 * One key per case-insensitive class of a UTF-16 unit, as a /iu regex compares them ("kr" = "KR",
 * "ſ" = "s", Kelvin sign = "k"). Units whose case mapping is not one unit stay themselves.
 */
function foldCase(unit: number): number {
  if (unit < 0x80) return unit >= 0x61 && unit <= 0x7a ? unit - 0x20 : unit;
  const known = foldTable[unit];
  if (known !== 0) return known;
  let key = unit;
  // Dotless and dotted i have no simple case folding: they only match themselves.
  if (unit !== 0x131 && unit !== 0x130 && (unit < 0xd800 || unit > 0xdfff)) {
    const lower = String.fromCharCode(unit).toLowerCase();
    const upper = lower.length === 1 ? lower.toUpperCase() : '';
    if (upper.length === 1) key = upper.charCodeAt(0);
    else if (lower.length === 1) key = lower.charCodeAt(0);
  }
  foldTable[unit] = key;
  return key;
}

/** 1 = no token starts with this unit, 2 = some may, 3 = some may and all of them begin with a letter. */
function startKind(trie: TrieNode, unit: number): number {
  if (!trie.next.has(foldCase(unit))) return 1;
  return unit < 0xd800 || unit > 0xdfff ? (isLetterOrMark(unit) ? 3 : 2) : 2;
}

function isWeakToken(symbol: string): boolean {
  const letters = symbol.replace(/[.\s]/g, '');
  if (/^[A-Za-z'ʻ]+$/.test(letters)) return true;
  // A lone letter of any script ("Р", "с", "D") reads as a word unless it touches a number.
  return [...letters].length === 1 && /\p{L}/u.test(letters);
}

/** Currency tokens in match priority (longest first): what the scanner looks for. */
export function currencyTokensByPriority(): readonly string[] {
  return currencyIndex().ordered;
}

/**
 * Spans of currency tokens in the text, left to right without overlap; at each position the
 * longest token wins. Case-insensitive; a word-like token may not sit inside a longer word.
 */
export function scanCurrencyTokens(text: string): Array<{ start: number; end: number }> {
  const { trie } = currencyIndex();
  const spans: Array<{ start: number; end: number }> = [];
  const n = text.length;
  let i = 0;
  while (i < n && spans.length < 200) {
    const unit = text.charCodeAt(i);
    let starts = startTable[unit];
    if (starts === 0) startTable[unit] = starts = startKind(trie, unit);
    // Tokens that start with a letter never start inside a word.
    if (starts === 1 || (starts === 3 && isLetterOrMark(codePointBefore(text, i)))) {
      i++;
      continue;
    }
    let node = trie.next.get(foldCase(unit));
    let bestEnd = -1;
    let bestPriority = Number.POSITIVE_INFINITY;
    for (let j = i + 1; node; j++) {
      for (const spelling of node.ends) {
        if (spelling.priority >= bestPriority) continue;
        if (spelling.checkBefore && isLetterOrMark(codePointBefore(text, i))) continue;
        if (spelling.checkAfter && j < n && isLetterOrMark(text.codePointAt(j) ?? 0)) continue;
        bestPriority = spelling.priority;
        bestEnd = j;
      }
      node = j < n ? node.next.get(foldCase(text.charCodeAt(j))) : undefined;
    }
    if (bestEnd > i) {
      spans.push({ start: i, end: bestEnd });
      i = bestEnd;
    } else {
      // Step over a whole surrogate pair: no token starts inside one.
      i += unit >= 0xd800 && unit <= 0xdbff && i + 1 < n ? 2 : 1;
    }
  }
  return spans;
}

export interface FoundCurrency {
  start: number;
  end: number;
  token: string;
  codes: string[];
  /** 3 = ISO code, 2 = unambiguous symbol, 1 = ambiguous symbol. */
  strength: number;
}

const CODE_WORDS = new Set([
  'all',
  'top',
  'cup',
  'try',
  'mop',
  'bob',
  'pen',
  'gel',
  'mad',
  'sos',
  'nio',
  'bam',
  'dop',
  'ern',
  'lak',
  'std',
  'fun',
  'mvr',
  'php',
]);

export function findCurrencies(text: string, wholeTextIsToken = false): FoundCurrency[] {
  const { tokens, codes } = currencyIndex();
  const found: FoundCurrency[] = [];
  for (const { start, end } of scanCurrencyTokens(text)) {
    const raw = text.slice(start, end);
    const exact = tokens.get(raw) ?? tokens.get(raw.replace(' ', ''));
    const code = raw.length === 3 ? codes.get(raw.toLowerCase()) : undefined;
    const touches = wholeTextIsToken || touchesNumber(text, start, end);
    // Lower-case codes that are everyday words ("see all 2 formats", "top 10") only count upper-case.
    if (code && (raw === code || (touches && !CODE_WORDS.has(raw.toLowerCase())))) {
      found.push({ start, end, token: raw, codes: [code], strength: 3 });
    } else if (exact && (!exact.needsNumber || touches)) {
      found.push({ start, end, token: raw, codes: exact.choices, strength: exact.strength });
    }
  }
  return found;
}

/** A digit within 4 characters: "12 kr", "12,- kr", "kr. 12", "kr: .50". */
function touchesNumber(text: string, start: number, end: number): boolean {
  // Before: a digit, then at most 3 of [\s:.,\-–*].
  for (let k = start - 1; k >= Math.max(0, start - 4); k--) {
    const code = text.charCodeAt(k);
    if (isDigitCode(code)) return true;
    if (
      !isSpaceCode(code) &&
      code !== 0x3a &&
      code !== DOT &&
      code !== COMMA &&
      code !== 0x2d &&
      code !== 0x2013 &&
      code !== 0x2a
    )
      break;
  }
  // After: at most 2 of [\s:.], an optional dot, then a digit.
  // (Every index read here is below end + 4.)
  for (let skipped = 0; skipped <= 2; skipped++) {
    if (skipped > 0) {
      const code = text.charCodeAt(end + skipped - 1);
      if (!isSpaceCode(code) && code !== 0x3a && code !== DOT) break;
    }
    const code = text.charCodeAt(end + skipped);
    if (isDigitCode(code) || (code === DOT && digitAt(text, end + skipped + 1))) return true;
  }
  return false;
}

export function resolveCurrency(found: FoundCurrency, hintCodes: string[], country: string | null): string {
  if (found.codes.length === 1) return found.codes[0];
  for (const hinted of hintCodes) if (found.codes.includes(hinted)) return hinted;
  const local = country ? COUNTRY_CURRENCY.get(country) : undefined;
  if (local && found.codes.includes(local)) return local;
  const preferred = TOKEN_DEFAULT.get(found.token.replace(' ', ''));
  if (preferred && found.codes.includes(preferred)) return preferred;
  return found.codes[0];
}
