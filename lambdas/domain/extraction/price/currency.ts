// The currency table of the price parser: every ISO 4217 code with the tokens that denote it,
// replaced currencies, the default meaning of ambiguous tokens, each store country's currency,
// and the minor-unit exponents (the one table of minor units: legacy price strings use it too).
// The tokens extend the symbol list of scrapinghub/price-parser (BSD-3-Clause, data from
// StorePilot/coinify) with the spellings scraped pages actually use (руб., грн, تومان, 元, yen ...).
//
// Currency data. One line per ISO code: CODE then the tokens that denote it, separated by "|".
// A token listed under several codes is ambiguous and is resolved by hints, country, default.
export const CURRENCY_TOKENS = `
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
BYN|Br|Rbl|р.|руб.|руб
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
LKR|SLRs|SL Re|රු|ரூ|Rs|Rs.
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
PKR|PKRs|₨|Rs|Rs.
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
TWD|NT$|NT|$
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
export const CODE_ONLY = 'DEM FRF ITL ESP PTE NLG BEF ATS FIM GRD IEP LUF CYP MTL SKK SIT EEK LTL LVL'.split(' ');

/** Which currency an ambiguous token means when nothing else decides. */
const TOKEN_DEFAULT_TABLE: Record<string, string> = {
  $: 'USD',
  '£': 'GBP',
  '¥': 'JPY',
  '₩': 'KRW',
  원: 'KRW',
  kr: 'SEK',
  Kr: 'SEK',
  'kr.': 'DKK',
  Br: 'BYN',
  Rs: 'INR',
  'Rs.': 'INR',
  'р.': 'RUB',
  руб: 'RUB',
  'руб.': 'RUB',
  '₨': 'PKR',
  '₱': 'PHP',
  ƒ: 'ANG',
  K: 'MMK',
  L: 'HNL',
  LD: 'LYD',
  lei: 'RON',
  GFr: 'CHF',
  C$: 'CAD',
  ريال: 'SAR',
};
export const TOKEN_DEFAULT = new Map(Object.entries(TOKEN_DEFAULT_TABLE));
/** Currency of each supported store country (spec: Limits), for "$", "kr", "£" ... */
const COUNTRY_CURRENCY_TABLE: Record<string, string> = {
  nl: 'EUR',
  ca: 'CAD',
  si: 'EUR',
  co: 'COP',
  by: 'BYN',
  ee: 'EUR',
  no: 'NOK',
  br: 'BRL',
  us: 'USD',
  de: 'EUR',
  es: 'EUR',
  vn: 'VND',
  il: 'ILS',
  th: 'THB',
  gb: 'GBP',
  ph: 'PHP',
  kg: 'KGS',
  in: 'INR',
  ru: 'RUB',
  fr: 'EUR',
  hk: 'HKD',
  ua: 'UAH',
  jp: 'JPY',
  at: 'EUR',
  mm: 'MMK',
  my: 'MYR',
  pl: 'PLN',
  au: 'AUD',
  nz: 'NZD',
  ro: 'RON',
  tw: 'TWD',
  mx: 'MXN',
  id: 'IDR',
  dk: 'DKK',
  ng: 'NGN',
  ch: 'CHF',
  hu: 'HUF',
  sg: 'SGD',
  sa: 'SAR',
  ae: 'AED',
  cn: 'CNY',
  ar: 'ARS',
  cl: 'CLP',
  it: 'EUR',
  tr: 'TRY',
  lv: 'EUR',
  gh: 'GHS',
  sk: 'EUR',
  gr: 'EUR',
  eg: 'EGP',
  lu: 'EUR',
  bg: 'BGN',
  se: 'SEK',
  lt: 'EUR',
  lk: 'LKR',
  kz: 'KZT',
  hr: 'EUR',
  bd: 'BDT',
  kr: 'KRW',
  cz: 'CZK',
  fi: 'EUR',
  ie: 'EUR',
  be: 'EUR',
  pt: 'EUR',
  za: 'ZAR',
  uk: 'GBP',
  kw: 'KWD',
  bh: 'BHD',
  om: 'OMR',
  jo: 'JOD',
  qa: 'QAR',
  md: 'MDL',
  rs: 'RSD',
  pk: 'PKR',
  pe: 'PEN',
  ma: 'MAD',
  ke: 'KES',
  np: 'NPR',
  is: 'ISK',
  uy: 'UYU',
  py: 'PYG',
  bo: 'BOB',
  cr: 'CRC',
  do: 'DOP',
  gt: 'GTQ',
  tn: 'TND',
  dz: 'DZD',
  ge: 'GEL',
  am: 'AMD',
  az: 'AZN',
  uz: 'UZS',
  mn: 'MNT',
  kh: 'KHR',
  mk: 'MKD',
  al: 'ALL',
  ba: 'BAM',
  mt: 'EUR',
  cy: 'EUR',
  me: 'EUR',
  ec: 'USD',
  sv: 'USD',
};

// A Map: lookups come with freshly lower-cased strings, which a keyed object lookup must intern.
export const COUNTRY_CURRENCY = new Map(Object.entries(COUNTRY_CURRENCY_TABLE));

// ISO 4217 minor-unit exponents that differ from the default 2.
const EXPONENT: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
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

/** Currencies whose minor unit is a thousandth (KWD 423.923): "34.000" is then no thousands group. */
export const THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(
  Object.keys(EXPONENT).filter((code) => EXPONENT[code] === 3),
);
