// Locale-aware price parsing: "1.299,99 €" -> 1299.99 EUR, "CHF 1'049,95", "From £12", "Free".
// Pure: no I/O, no dependencies. Currency tokens come from the table below, which extends the
// symbol list of scrapinghub/price-parser (BSD-3-Clause, data from StorePilot/coinify) with the
// spellings scraped pages actually use (руб., грн, تومان, 元, yen ...). Returns ISO 4217 codes.

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

// ---------------------------------------------------------------------------------------------
// Currency data. One line per ISO code: CODE then the tokens that denote it, separated by "|".
// A token listed under several codes is ambiguous and is resolved by hints, country, default.
const CURRENCY_TOKENS = `
AED|د.إ|د.إ.|درهم|Dh|Dhs
AFN|Af|؋
ALL|Lek
AMD|դր.|֏
ANG|ƒ
AOA|Kz|kwz
ARS|AR$|$
AUD|AU$|A$|$
AWG|ƒ|Afl.
AZN|man.|ман.|₼
BAM|KM|км
BDT|Tk|৳
BBD|Bds$|$
BGN|лв.|лв
BHD|BD|د.ب|.د.ب|د.ب.
BIF|FBu|Fbu
BND|BN$|$
BOB|Bs|$b
BRL|R$
BSD|$
BTN|Nu.|Nu
BWP|P
BYN|Br|Rbl
BZD|BZ$|$
CAD|CA$|C$|CAD$|CAN$|CND|$
CDF|FrCD
CHF|Fr.|SFr|CHf|chf|GFr|franc|francs
CLP|CL$|$
CNY|CN¥|元|圆|圓|人民币|yuan|RMB|¥
COP|CO$|$
CRC|₡
CUC|CUC$|$
CUP|₱
CVE|CV$|Esc
CZK|Kč|Kc
DJF|Fdj
DKK|Dkr|kr|Kr|kr.
DOP|RD$
DZD|DA|دج|د.ج|د.ج.
EGP|ج.م|ج.م.|E£|جنيه|LE
ERN|Nfk|ናቕፋ|نافكا
ETB|Br|ብር
EUR|€|euro|euros|Euro
FJD|FJ$|$
GBP|£|￡|pound|pounds|stg|GBp
GEL|ლ|ლარი|lari|₾
GHS|GH₵|₵|GH¢
GMD|D
GNF|FG|GFr
GTQ|Q|q
GYD|G$|GY$|$
HKD|HK$|$
HNL|L
HRK|kn
HTG|G
HUF|Ft
IDR|Rp
ILS|₪|nis|ש״ח|ש"ח|ש'ח|ש.ח
INR|₹|Rs|Rs.|Re|र|रु|টকা
IQD|ع.د|د.ع|د.ع.
IRR|﷼|ریال|ريال|تومان
ISK|Ikr|kr
JMD|J$|$
JOD|JD|د.أ|د.ا|د.أ.|دينار أردني
JPY|¥|￥|円|yen
KES|Ksh|KSh|KShs
KGS|сом|с|som
KHR|៛
KMF|CF|FC|KMF
KPW|₩|원
KRW|₩|원
KWD|KD|د.ك|د.ك.|دينار كويتي
KYD|CI$|$
KZT|тңг.|тг|₸
LAK|₭
LBP|LB£|ل.ل|ل.ل.
LKR|SLRs|SL Re|රු|ரூ|Rs
LRD|LD|L$|$
LYD|LD|ل.د|د.ل|د.ل.
MAD|د.م|د.م.|DH
MDL|lei
MGA|Ar
MKD|ден|ДЕН|mkd
MMK|K|Ks
MNT|₮
MOP|MOP$
MRU|UM
MUR|MURs|₨
MVR|MRf|Rf
MWK|MK
MXN|MX$|$
MYR|RM
MZN|MTn|MT
NAD|N$
NGN|₦
NIO|C$
NOK|Nkr|kr|Kr|kr.
NPR|NPRs|नेरू|रू|₨
NZD|NZ$|$
OMR|ر.ع|ر.ع.
PAB|B/.
PEN|S/.|S/
PGK|K
PHP|₱
PKR|PKRs|₨|Rs
PLN|zł|Zł|zl|pln
PYG|₲
QAR|QR|ر.ق|ر.ق.
RON|lei|leu|Lei|LEI
RSD|din.|дин.|din|дин|Дин|Dinara|dinara
RUB|₽|руб.|руб|рублей|рубля|рубль|р.|Р|RUR
RWF|FRw|RF|R₣|FR
SAR|SR|ر.س|ر.س.
SBD|SI$|$
SCR|₨
SDG|ج.س|ج.س.
SEK|Skr|kr|Kr|kr.
SGD|S$|SGD$|$
SLL|Le|Sl
SOS|Ssh|ش.ص
SRD|$
SSP|SSP
STN|Db
SYP|SY£|ل.س|ل.س.
SZL|L|E
THB|฿|บาท
TJS|ЅM
TMT|T
TND|DT|د.ت|د.ت.
TOP|T$
TRY|TL|₺
TTD|TT$|$
TWD|NT$|NT
TZS|TSh
UAH|₴|грн|грн.|hrn
UGX|USh
USD|US$|$|U.S.$
UYU|$U|$
UZS|so'm|soʻm|Sʻ|S'|сўм
VES|Bs.S|Bs.F.
VND|₫|đ|VNĐ|VND
VUV|VT|Vt
WST|WS$|$
XAF|FCFA
XOF|CFA
XPF|CFP
YER|ر.ي|ر.ي.
ZAR|R
ZMW|ZK
ZWL|Z$|$
ILS|ش.ج
ITL|₤
PTE|Esc
`;

// ISO codes of replaced or non-circulating currencies: codes only, never chosen for a symbol.
const CODE_ONLY = 'DEM FRF ITL ESP PTE NLG BEF ATS FIM GRD IEP LUF CYP MTL SKK SIT EEK LTL LVL'.split(' ');

/** Which currency an ambiguous token means when nothing else decides. */
const TOKEN_DEFAULT_TABLE: Record<string, string> = {
  $: 'USD', '£': 'GBP', '¥': 'JPY', '₩': 'KRW', 원: 'KRW', kr: 'SEK', Kr: 'SEK', 'kr.': 'DKK', Br: 'BYN', Rs: 'INR',
  '₨': 'PKR', '₱': 'PHP', ƒ: 'ANG', K: 'MMK', L: 'HNL', LD: 'LYD', lei: 'RON', GFr: 'CHF', C$: 'CAD', 'ريال': 'SAR',
};
const TOKEN_DEFAULT = new Map(Object.entries(TOKEN_DEFAULT_TABLE));
/** Currency of each supported store country (spec: Limits), for "$", "kr", "£" ... */
const COUNTRY_CURRENCY_TABLE: Record<string, string> = {
  nl: 'EUR', ca: 'CAD', si: 'EUR', co: 'COP', by: 'BYN', ee: 'EUR', no: 'NOK', br: 'BRL', us: 'USD', de: 'EUR',
  es: 'EUR', vn: 'VND', il: 'ILS', th: 'THB', gb: 'GBP', ph: 'PHP', kg: 'KGS', in: 'INR', ru: 'RUB', fr: 'EUR',
  hk: 'HKD', ua: 'UAH', jp: 'JPY', at: 'EUR', mm: 'MMK', my: 'MYR', pl: 'PLN', au: 'AUD', nz: 'NZD', ro: 'RON',
  tw: 'TWD', mx: 'MXN', id: 'IDR', dk: 'DKK', ng: 'NGN', ch: 'CHF', hu: 'HUF', sg: 'SGD', sa: 'SAR', ae: 'AED',
  cn: 'CNY', ar: 'ARS', cl: 'CLP', it: 'EUR', tr: 'TRY', lv: 'EUR', gh: 'GHS', sk: 'EUR', gr: 'EUR', eg: 'EGP',
  lu: 'EUR', bg: 'BGN', se: 'SEK', lt: 'EUR', lk: 'LKR', kz: 'KZT', hr: 'EUR', bd: 'BDT', kr: 'KRW', cz: 'CZK',
  fi: 'EUR', ie: 'EUR', be: 'EUR', pt: 'EUR', za: 'ZAR', uk: 'GBP', kw: 'KWD', bh: 'BHD', om: 'OMR', jo: 'JOD',
  qa: 'QAR', md: 'MDL', rs: 'RSD',
};

// A Map: lookups come with freshly lower-cased strings, which a keyed object lookup must intern.
const COUNTRY_CURRENCY = new Map(Object.entries(COUNTRY_CURRENCY_TABLE));

// ISO 4217 minor-unit exponents that differ from the default 2.
const EXPONENT: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0, VUV: 0,
  XAF: 0, XOF: 0, XPF: 0, BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3, CLF: 4, UYW: 4,
};

/** Digits after the decimal point in the currency's minor unit (ISO 4217): JPY 0, KWD 3, else 2. */
export function currencyExponent(code: string | null | undefined): number {
  if (!code) return 2;
  return EXPONENT[code.trim().toUpperCase()] ?? 2;
}

/** Converts an amount in minor units (cents) to units: (1999, 'USD') -> 19.99, (500, 'JPY') -> 500. */
export function parseMinorUnits(value: string | number, currency: string): number {
  const minor = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isFinite(minor)) return Number.NaN;
  const exponent = currencyExponent(currency);
  return roundTo(minor / 10 ** exponent, exponent);
}

function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

// ---------------------------------------------------------------------------------------------
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

const LETTER_OR_MARK = /^[\p{L}\p{M}]$/u;

function isLetterOrMark(codePoint: number): boolean {
  if (codePoint < 0x80) return (codePoint >= 0x41 && codePoint <= 0x5a) || (codePoint >= 0x61 && codePoint <= 0x7a);
  return LETTER_OR_MARK.test(String.fromCodePoint(codePoint));
}

/** The code point that ends just before `at`, or -1 at the start. */
function codePointBefore(text: string, at: number): number {
  if (at <= 0) return -1;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(at - 2) ?? -1;
  }
  return low;
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

interface FoundCurrency {
  start: number;
  end: number;
  token: string;
  codes: string[];
  /** 3 = ISO code, 2 = unambiguous symbol, 1 = ambiguous symbol. */
  strength: number;
}

function findCurrencies(text: string, wholeTextIsToken = false): FoundCurrency[] {
  const { tokens, codes } = currencyIndex();
  const found: FoundCurrency[] = [];
  for (const { start, end } of scanCurrencyTokens(text)) {
    const raw = text.slice(start, end);
    const exact = tokens.get(raw) ?? tokens.get(raw.replace(' ', ''));
    const code = raw.length === 3 ? codes.get(raw.toLowerCase()) : undefined;
    const touches = wholeTextIsToken || touchesNumber(text, start, end);
    if (code && (raw === code || touches)) {
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
    if (!isSpaceCode(code) && code !== 0x3a && code !== DOT && code !== COMMA && code !== 0x2d && code !== 0x2013 && code !== 0x2a) break;
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

function resolveCurrency(found: FoundCurrency, hintCodes: string[], country: string | null): string {
  if (found.codes.length === 1) return found.codes[0];
  for (const hinted of hintCodes) if (found.codes.includes(hinted)) return hinted;
  const local = country ? COUNTRY_CURRENCY.get(country) : undefined;
  if (local && found.codes.includes(local)) return local;
  const preferred = TOKEN_DEFAULT.get(found.token.replace(' ', ''));
  if (preferred && found.codes.includes(preferred)) return preferred;
  return found.codes[0];
}

// ---------------------------------------------------------------------------------------------
// Numbers.

interface NumberSpan {
  start: number;
  end: number;
  raw: string;
  /** Decimal separator forced by the shape, e.g. "35€ 99". */
  euroDecimal: boolean;
}

const THREE_DECIMAL_CURRENCIES = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

const DOT = 0x2e;
const HYPHEN = 0x2d;
const PERCENT = 0x25;
const COMMA = 0x2c;
const SPACE = 0x20;
const EURO = 0x20ac;

function findNumbers(text: string, euroSeparator: boolean): NumberSpan[] {
  const spans: NumberSpan[] = [];
  const n = text.length;
  let i = 0;
  for (let guard = 0; i < n && guard < 500; guard++) {
    // A digit, or ".5" / "..5".
    const startsNumber =
      digitAt(text, i) || (text.charCodeAt(i) === DOT && (digitAt(text, i + 1) || (text.charCodeAt(i + 1) === DOT && digitAt(text, i + 2))));
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
      } else if (ch === SPACE && digitAt(text, j - 1) && !hasSeparator && digitGroupAt(text, j + 1, 3) && groupLength(text, j) <= 3) {
        // "1 298,00", "120 000 000": a space between 3-digit groups is a thousands separator.
        hasGap = true;
        j++;
      } else if (ch === SPACE && isSeparatorCode(text.charCodeAt(j - 1)) && digitAt(text, j - 2) && digitGroupAt(text, j + 1, 2)) {
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

function digitAt(text: string, at: number): boolean {
  return isDigitCode(text.charCodeAt(at));
}

function isDigitCode(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isSeparatorCode(code: number): boolean {
  return code === DOT || code === COMMA;
}

function numberValue(
  raw: string,
  decimalHint: '.' | ',' | null,
  currency: string | null,
  country: string | null,
): number | null {
  let s = raw;
  // Leading separators: ".75" is 0.75; in "$.750.30" the stray dot is noise.
  const lead = isSeparatorCode(s.charCodeAt(0)) ? (/^[.,]+/.exec(s)?.[0] ?? '') : '';
  if (lead && decimalHint && lead.includes(decimalHint) && !s.slice(lead.length).includes(decimalHint)) return toNumber(`0.${withoutSeparators(s)}`);
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
function toNumber(s: string): number | null {
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

// ---------------------------------------------------------------------------------------------
// Which number is the price.

const UNIT_AFTER = /^\s?(?:ft|feet|foot|inch(?:es)?|in\.|cm|mm|km|m²|sq\s?ft|sqft|litre|liter|litres|liters|lbs?|oz|kg|mg|ml|gb|tb|mb|ghz|mhz|mah|w\b|v\b|hz|%|x\b|pcs|pieces|stk|ausgaben|issues)/i;
const MONTH =
  /(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)/i;
const MONTH_BEFORE = new RegExp(`${MONTH.source}\\.?,?\\s*$`, 'i');
const WAS = /\b(?:was|statt|avant|antes|prima)\b/i;
const RANGE_JOIN = /^\s*(?:-|–|—|to|bis|à|a|al|до|tot|til|till)\s*$/i;
const QUANTITY_BEFORE = /(?:заказ|qty|quantity|min\.?|артикул|код товара|sku|item\s*#?|model|art\.?\s*nr\.?)\s*[:#]?\s*$/i;

interface Candidate {
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
  if (start >= 2 && text.charCodeAt(start - 1) === HYPHEN && digitAt(text, start - 2) && /^\d{1,4}$/.test(raw)) return true;
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
  return code >= 0x80 || (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a || code === DOT || code === 0x23;
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

function isAsciiLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

function choosePrice(text: string, numbers: NumberSpan[], currencies: FoundCurrency[]): Candidate | null {
  const candidates: Candidate[] = [];
  for (const span of numbers) {
    if (rejectsAsPrice(text, span)) continue;
    const attached = attachedCurrency(text, span, currencies, numbers);
    if (!attached.currency && mayStartUnit(text, span.end) && UNIT_AFTER.test(text.slice(span.end, span.end + 10))) continue;
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

// ---------------------------------------------------------------------------------------------

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

function isZeroWidth(code: number): boolean {
  return (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff;
}

/** What \s matches. */
function isSpaceCode(code: number): boolean {
  if (code <= 0x20) return code === SPACE || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 ||
    code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

function asciiDigitOrSeparator(code: number): string | null {
  if (code < 0x660) return null;
  if (code <= 0x669) return String(code - 0x660);
  if (code === 0x66b) return '.';
  if (code === 0x66c) return ',';
  if (code >= 0x6f0 && code <= 0x6f9) return String(code - 0x6f0);
  if (code >= 0xff10 && code <= 0xff19) return String(code - 0xff10);
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
    amount = chosen.span.euroDecimal ? toNumber(chosen.span.raw) : numberValue(chosen.span.raw, separator, currency, country);
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
