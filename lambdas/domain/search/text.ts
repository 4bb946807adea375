// The analyzer shared by indexing and querying: one spelling per word (folded, singular, British
// -> American spelling) then a Porter stem, so "running", "runs" and "run" meet. Both sides go
// through it, so it only has to be consistent. It never turns a word into another word:
// synonyms ("trainers" for "sneakers") are the query's business (understood mode only), so
// keyword search finds a word only where the word is.
import { stemmer } from 'stemmer';
import { fold, singular } from '../enrichment/text';

const stemCache = new Map<string, string>();

/** Porter stem of a normalised token; numbers and short words stay as they are. */
export function stem(token: string): string {
  if (token.length <= 3 || !/^[a-z]+$/.test(token)) return token;
  let stemmed = stemCache.get(token);
  if (stemmed === undefined) {
    stemmed = stemmer(token);
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(token, stemmed);
  }
  return stemmed;
}

// The same word spelled two ways; nothing here names another thing.
const SPELLING: Record<string, string> = {
  colour: 'color',
  colours: 'colors',
  grey: 'gray',
  jewellery: 'jewelry',
  aluminium: 'aluminum',
  duffle: 'duffel',
  pyjama: 'pajama',
  pyjamas: 'pajamas',
  tyre: 'tire',
  tyres: 'tires',
  hoody: 'hoodie',
  moisturiser: 'moisturizer',
  moisturisers: 'moisturizers',
  sweatpant: 'sweatpants',
};

const STOPWORDS = new Set(
  'a an and or the of for with in on to by from at as is are be this that it its your our my you we new & + - x'.split(
    ' ',
  ),
);

/** Normalised words of one white-space-free chunk: folded, joined ("t-shirt"), stopwords out, singular. */
function wordTokens(raw: string): string[] {
  const folded = fold(raw).replace(/\b([a-z])-([a-z]{2,})\b/g, '$1$2');
  const out: string[] = [];
  for (const part of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (!part || STOPWORDS.has(part)) continue;
    const word = part.endsWith("'s") ? part.slice(0, -2) : part;
    out.push(singular(SPELLING[word] ?? word));
  }
  return out;
}

const wordCache = new Map<string, string[]>();
const MAX_TERMS = 400;

/**
 * Index/query terms of a text, in order: its normalised words, stemmed. Texts are split on
 * white space first and each distinct word is analysed once per process (catalog text repeats
 * its words endlessly); the one rule that spans two words ("t shirt" -> tshirt) is
 * applied before the split.
 */
export function analyze(text: string | null | undefined): string[] {
  if (!text) return [];
  const joined = text.replace(/\b([a-z])[-\s](shirts?|neck|ray|book|reader|bike|bikes|cigarettes?|line)\b/gi, '$1$2');
  const out: string[] = [];
  for (const raw of joined.split(/\s+/)) {
    if (!raw) continue;
    let terms = wordCache.get(raw);
    if (!terms) {
      terms = wordTokens(raw).map(stem);
      if (wordCache.size > 200_000) wordCache.clear();
      wordCache.set(raw, terms);
    }
    for (const term of terms) out.push(term);
    if (out.length > MAX_TERMS) break;
  }
  return out;
}

/** Lower case, no diacritics, '&' as 'and', punctuation as spaces: how brand names and filter values compare. */
export function normalise(value: string): string {
  return fold(value)
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

// Words that name the same thing to a shopper. In the understood mode a query word expands to
// its group (weighted a little below the word itself); keyword mode never uses them.
const SYNONYM_GROUPS: string[][] = [
  ['sneaker', 'trainer', 'runner', 'kicks'],
  ['mug', 'cup'],
  ['tshirt', 'tee'],
  ['headphone', 'earbud', 'earphone', 'headset'],
  ['sofa', 'couch', 'settee'],
  ['pants', 'trousers', 'slacks'],
  ['sweater', 'jumper', 'pullover'],
  ['handbag', 'purse'],
  ['sunglasses', 'shades'],
  ['lamp', 'lantern'],
  ['jacket', 'anorak'],
  ['beanie', 'toque'],
  ['flip flop', 'thong sandal'],
  ['backpack', 'rucksack'],
  ['phone', 'cellphone', 'smartphone'],
  ['television', 'tv', 'telly'],
  ['crib', 'cot'],
  ['diaper', 'nappy'],
  ['flashlight', 'torch'],
  ['cooktop', 'hob'],
  ['plush', 'plushie'],
];

let synonymIndex: Map<string, string[]> | null = null;

/** Other terms for a term ("trainer" -> ["sneaker", "runner", ...]); empty when none. */
export function synonymsOf(term: string): string[] {
  if (!synonymIndex) {
    synonymIndex = new Map();
    for (const group of SYNONYM_GROUPS) {
      const terms = [...new Set(group.map((word) => analyze(word).join(' ')).filter((t) => t && !t.includes(' ')))];
      for (const t of terms)
        synonymIndex.set(t, [...new Set([...(synonymIndex.get(t) ?? []), ...terms.filter((o) => o !== t)])]);
    }
  }
  return synonymIndex.get(term) ?? [];
}

/** How many typos a query word of this length may carry (Algolia's thresholds: 1 from 4 letters, 2 from 8). */
export function typoBudget(word: string): number {
  if (!/^\p{L}+$/u.test(word)) return 0;
  return word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
}

/** Damerau-Levenshtein (optimal string alignment) distance, or max+1 as soon as it exceeds max. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const n = b.length;
  let prevPrev = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let current = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = current[0];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(prev[j] + 1, current[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, prevPrev[j - 2] + 1);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, current] = [prev, current, prevPrev];
  }
  return prev[n];
}
