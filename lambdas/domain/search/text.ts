// The analyzer shared by indexing and querying: one spelling per word (the enrichment's tokens:
// folded, singular, British -> American, trainers -> sneakers, tee -> tshirt) then a Porter stem,
// so "running", "runs" and "run" meet. Both sides go through it, so it only has to be consistent.
import { stemmer } from 'stemmer';
import { fold, tokens } from '../enrichment/text';

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

const wordCache = new Map<string, string[]>();
const MAX_TERMS = 400;

/**
 * Index/query terms of a text, in order: the enrichment's tokens, stemmed. Texts are split on
 * white space first and each distinct word is analysed once per process (catalog text repeats
 * its words endlessly); the one rule of tokens() that spans two words ("t shirt" -> tshirt) is
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
      terms = tokens(raw).map(stem);
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

// Words that name the same thing to a shopper. Query words expand to the group (weighted a
// little below the word itself); the enrichment's tokens already fold the British spellings.
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
  ['television', 'tv'],
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
