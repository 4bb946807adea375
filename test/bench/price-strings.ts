// `npm run bench -- price-strings`: scores parsePrice on price-parser's 1191 cases, per group,
// beside price-parser's own 1057/1191, and measures parse speed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePrice } from '../../lambdas/domain/extraction/price';
import { CORPORA } from '../corpora';

export interface PriceCase {
  id: string;
  group: string;
  status: string;
  input: string | null;
  currency_hint: string | null;
  decimal_separator_hint: '.' | ',' | '€' | null;
  expected: { amount: string | null; currency_raw: string | null };
}

const corpus = path.join(CORPORA, 'price-strings');

export function loadPriceCases(): PriceCase[] {
  return (JSON.parse(readFileSync(path.join(corpus, 'cases.json'), 'utf8')) as { cases: PriceCase[] }).cases;
}

// Tokens the expected values use that currency-symbols.json does not list, read by a person:
// each names the ISO codes the token can denote. An empty list means no ISO 4217 code exists
// (bitcoin, the livre tournois), so the right answer is null.
const EXTRA_TOKENS: Record<string, string[]> = {
  Р: ['RUB'],
  'р.': ['RUB'],
  '₽': ['RUB'],
  руб: ['RUB'],
  'грн.': ['UAH'],
  грн: ['UAH'],
  hrn: ['UAH'],
  تومان: ['IRR'],
  ریال: ['IRR'],
  ريال: ['SAR', 'QAR', 'OMR', 'YER', 'IRR'],
  جنيه: ['EGP'],
  درهم: ['AED', 'MAD'],
  "so'm": ['UZS'],
  Sʻ: ['UZS'],
  "S'": ['UZS'],
  som: ['UZS', 'KGS'],
  с: ['KGS'],
  US$: ['USD'],
  'US $': ['USD'],
  A$: ['AUD'],
  'AU $': ['AUD'],
  CAN$: ['CAD'],
  CAD$: ['CAD'],
  CND: ['CAD'],
  '₶': [],
  '₿': [],
  BTC: [],
  Ƀ: [],
  Dinara: ['RSD'],
  din: ['RSD'],
  дин: ['RSD'],
  Дин: ['RSD'],
  euro: ['EUR'],
  '֏': ['AMD'],
  '₼': ['AZN'],
  '₺': ['TRY'],
  元: ['CNY'],
  圆: ['CNY'],
  圓: ['CNY'],
  人民币: ['CNY'],
  yuan: ['CNY'],
  yen: ['JPY'],
  บาท: ['THB'],
  'ر.س': ['SAR'],
  'ج.م': ['EGP'],
  'E£': ['EGP'],
  zl: ['PLN'],
  دج: ['DZD'],
  'د.ج': ['DZD'],
  '.د.ب': ['BHD'],
  $b: ['BOB'],
  franc: ['CHF', 'XOF', 'XAF'],
  francs: ['CHF', 'XOF', 'XAF'],
  ናቕፋ: ['ERN'],
  نافكا: ['ERN'],
  E: ['SZL'],
  ብር: ['ETB'],
  ლ: ['GEL'],
  ლარი: ['GEL'],
  lari: ['GEL'],
  '¢': ['GHS', 'USD'],
  '₵': ['GHS'],
  GFr: ['GNF', 'CHF'],
  'ع.د': ['IQD'],
  'د.ع': ['IQD'],
  'د.': ['AED', 'MAD', 'IQD', 'JOD', 'KWD', 'BHD', 'LYD', 'TND', 'DZD'],
  'د.ك': ['KWD'],
  'دينار كويتي': ['KWD'],
  'ل.د': ['LYD'],
  'د.ل': ['LYD'],
  ден: ['MKD'],
  ДЕН: ['MKD'],
  Ar: ['MGA'],
  'د.إ': ['AED'],
  MT: ['MZN'],
  FRw: ['RWF'],
  'R₣': ['RWF'],
  SPL: ['SPL'],
  'ج.س.': ['SDG'],
  'ج.س': ['SDG'],
  'د.ت': ['TND'],
  G$: ['GYD'],
  GY$: ['GYD'],
  Dh: ['AED', 'MAD'],
  Dhs: ['AED'],
  Esc: ['CVE', 'PTE'],
  ID: ['IQD'],
  Ks: ['MMK'],
  NT: ['TWD'],
  Nu: ['BTN'],
  Rbl: ['BYN', 'RUB'],
  Re: ['INR', 'LKR', 'PKR', 'NPR'],
  'S/': ['PEN'],
  SFr: ['CHF'],
  Sl: ['SLL', 'SLE'],
  VNĐ: ['VND'],
  kwz: ['AOA'],
  nis: ['ILS'],
  'ש״ח': ['ILS'],
  'ש"ח': ['ILS'],
  "ש'ח": ['ILS'],
  'ش.ج': ['ILS'],
  pound: ['GBP'],
  stg: ['GBP'],
  '￡': ['GBP'],
  GBp: ['GBP'],
  'د.أ': ['JOD'],
  'د.ا': ['JOD'],
  'دينار أردني': ['JOD'],
  'د.م': ['MAD'],
  دينار: ['KWD', 'JOD', 'BHD', 'IQD', 'LYD', 'TND', 'DZD', 'RSD'],
  'ر.ع': ['OMR'],
  'ر.ق': ['QAR'],
  'ل.س': ['SYP'],
  'ل.ل': ['LBP'],
  ரூ: ['LKR', 'INR'],
  රු: ['LKR'],
  км: ['BAM'],
  KShs: ['KES'],
  тг: ['KZT'],
  'ر.ي': ['YER'],
  'ش.ص': ['SOS'],
  Kr: ['DKK', 'NOK', 'SEK', 'ISK'],
  CHf: ['CHF'],
  chf: ['CHF'],
  nzd: ['NZD'],
  mkd: ['MKD'],
  pln: ['PLN'],
  G: ['HTG'],
  q: ['GTQ'],
  Q: ['GTQ'],
  C$: ['NIO', 'CAD'],
  лв: ['BGN', 'KGS'],
  UM: ['MRO', 'MRU'],
  Db: ['STD', 'STN'],
  Z$: ['ZWD', 'ZWL'],
  RF: ['RWF'],
  D: ['GMD'],
  K: ['MMK', 'PGK', 'ZMW'],
  L: ['ITL', 'HNL', 'LSL', 'SZL', 'ALL', 'MDL', 'RON'],
  P: ['BWP'],
};

/** The ISO codes an expected currency token may denote; [] = none exists. */
export function isoCandidates(token: string): string[] {
  const extra = EXTRA_TOKENS[token];
  if (extra) return extra;
  const { currencies } = JSON.parse(readFileSync(path.join(corpus, 'currency-symbols.json'), 'utf8')) as {
    currencies: Record<string, { s?: string; sn?: string; sn2?: string[] }>;
  };
  const codes: string[] = [];
  for (const [code, c] of Object.entries(currencies)) {
    const names = [code, c.s, c.sn, ...(c.sn2 ?? [])].filter(Boolean).map((x) => x!.toLowerCase());
    if (names.includes(token.toLowerCase())) codes.push(code);
  }
  return codes;
}

export interface CaseScore {
  amountOk: boolean;
  currencyOk: boolean;
  got: { amount: number | null; currency: string | null };
}

export function scoreCase(c: PriceCase, candidatesOf: (token: string) => string[] = memoCandidates): CaseScore {
  const got = parsePrice(c.input ?? '', {
    currency: c.currency_hint,
    decimalSeparator: c.decimal_separator_hint,
  });
  const want = c.expected.amount === null ? null : Number(c.expected.amount);
  const amountOk =
    want === null
      ? got.amount === null
      : got.amount !== null && Math.abs(got.amount - want) <= 1e-9 * Math.max(1, want);
  const candidates = c.expected.currency_raw === null ? [] : candidatesOf(c.expected.currency_raw);
  const currencyOk =
    candidates.length === 0 ? got.currency === null : got.currency !== null && candidates.includes(got.currency);
  return { amountOk, currencyOk, got };
}

const memo = new Map<string, string[]>();
function memoCandidates(token: string): string[] {
  let v = memo.get(token);
  if (!v) memo.set(token, (v = isoCandidates(token)));
  return v;
}

export default async function bench(): Promise<void> {
  // The first call builds the token index: what a cold Lambda pays once.
  const firstCallStart = performance.now();
  parsePrice('$1');
  const firstCallMs = performance.now() - firstCallStart;
  const cases = loadPriceCases();
  const groups = new Map<string, { n: number; amount: number; currency: number; both: number }>();
  const failures: string[] = [];
  let amount = 0;
  let currency = 0;
  let both = 0;
  for (const c of cases) {
    const s = scoreCase(c);
    const g = groups.get(c.group) ?? { n: 0, amount: 0, currency: 0, both: 0 };
    g.n++;
    if (s.amountOk) g.amount++, amount++;
    if (s.currencyOk) g.currency++, currency++;
    if (s.amountOk && s.currencyOk) g.both++, both++;
    else {
      failures.push(
        `${c.id} ${JSON.stringify(c.input)} hint=${JSON.stringify(c.currency_hint)} want ${c.expected.amount} ${c.expected.currency_raw} got ${s.got.amount} ${s.got.currency}`,
      );
    }
    groups.set(c.group, g);
  }
  const pct = (a: number, n: number) => `${a}/${n} (${((100 * a) / n).toFixed(1)}%)`;
  console.log('group'.padEnd(40), 'amount'.padEnd(18), 'currency'.padEnd(18), 'both');
  for (const [name, g] of groups) {
    console.log(name.padEnd(40), pct(g.amount, g.n).padEnd(18), pct(g.currency, g.n).padEnd(18), pct(g.both, g.n));
  }
  const n = cases.length;
  console.log('overall'.padEnd(40), pct(amount, n).padEnd(18), pct(currency, n).padEnd(18), pct(both, n));
  console.log(`price-parser (Python) passes 1057/${n} (its own token-level check; here currencies are ISO codes)`);
  if (process.argv.includes('--failures')) for (const f of failures) console.log('  miss', f);

  const inputs = cases.map((c) => c.input ?? '');
  console.log(`first call: ${firstCallMs.toFixed(1)} ms`);
  // As before: 20 rounds right after scoring (includes JIT warm-up).
  const rounds = 20;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const s of inputs) parsePrice(s);
  const ms = performance.now() - t0;
  console.log(
    `speed: ${Math.round((rounds * inputs.length) / (ms / 1000)).toLocaleString('en')} strings/s (20 rounds after scoring)`,
  );
  // Warmed: the median of 7 timed batches after 10 warm-up rounds; no hints, then the way the DOM
  // reader calls it (the page's currency hint and country with every text).
  const pageHints = { currency: 'Preis inkl. MwSt. zzgl. Versandkosten EUR', countryCode: 'de' };
  for (const [label, hints] of [
    ['no hints', {}],
    ['page hints', pageHints],
  ] as const) {
    const batch = () => {
      const start = performance.now();
      for (let r = 0; r < 10; r++) for (const s of inputs) parsePrice(s, hints);
      return performance.now() - start;
    };
    for (let w = 0; w < 10; w++) batch();
    const times = Array.from({ length: 7 }, batch).sort((a, b) => a - b);
    const rate = (10 * inputs.length) / (times[3] / 1000);
    console.log(
      `speed warmed, ${label}: ${Math.round(rate).toLocaleString('en')} strings/s (${(1e6 / rate).toFixed(2)} µs/string)`,
    );
  }
}
