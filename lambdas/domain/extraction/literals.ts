// Where each of a fixed set of literals first occurs in a page's raw text, found in one pass
// instead of one scan per literal. The page-level raw-text rules (platform markers, the
// shop currency, Shopify's analytics object, WooCommerce's variation form) each need a literal
// that every match of theirs contains: a literal absent from the page means the rule cannot
// match, and a present one says where its first match can start at the earliest.
//
// Exact, not approximate (each engine below says why): a skip scan for ASCII literals of five
// characters or more (the page's), an Aho-Corasick automaton for shorter ASCII ones, and a regex
// alternation for the rest, where after a match the scan resumes one character on when the
// matched literal can overlap another (so no occurrence hides behind it), and a literal inside a
// longer one is recorded at its offset within every match of the longer.

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A proper suffix of `a` is a proper prefix of `b` ("abc" and "cde"). */
function overlaps(a: string, b: string): boolean {
  for (let k = 1; k < Math.min(a.length, b.length); k++) if (a.endsWith(b.slice(0, k))) return true;
  return false;
}

export type LiteralPositions = ReadonlyMap<string, number>;

export interface LiteralFinder {
  readonly literals: readonly string[];
  /** Each literal that occurs in `text`, with the index of its first occurrence. */
  find(text: string): LiteralPositions;
}

// Literals of ASCII characters only (all of the rules'): found by an Aho-Corasick automaton, one
// table step per character of the page, instead of a regex alternation that tries every literal
// at each position (a third of the time on these pages, most of them two-byte strings).
const ALPHABET = 128;
const ASCII = /^[\x00-\x7f]*$/;

function automatonFinder(literals: readonly string[]): LiteralFinder {
  // The trie: goto[state][char] -> state; `words[state]`: the literal ending at that state.
  const trie: Array<Map<number, number>> = [new Map()];
  const words: Array<string | null> = [null];
  for (const literal of literals) {
    let state = 0;
    for (let i = 0; i < literal.length; i++) {
      const c = literal.charCodeAt(i);
      let to = trie[state].get(c);
      if (to === undefined) {
        to = trie.length;
        trie.push(new Map());
        words.push(null);
        trie[state].set(c, to);
      }
      state = to;
    }
    words[state] = literal;
  }
  // Breadth first: each state's failure state and its full transition row; `out[state]`: every
  // literal that ends at this state's position (its own and its failure chain's), longest first.
  const count = trie.length;
  const delta = new Uint32Array(count * ALPHABET);
  const fail = new Uint32Array(count);
  const out: string[][] = Array.from({ length: count }, (_, s) => (words[s] ? [words[s]!] : []));
  const queue: number[] = [];
  for (let c = 0; c < ALPHABET; c++) {
    const to = trie[0].get(c);
    if (to !== undefined) {
      queue.push(to);
      delta[c] = to;
    }
  }
  for (let q = 0; q < queue.length; q++) {
    const state = queue[q];
    for (const literal of out[fail[state]]) if (!out[state].includes(literal)) out[state].push(literal);
    for (let c = 0; c < ALPHABET; c++) {
      const to = trie[state].get(c);
      if (to !== undefined) {
        fail[to] = delta[fail[state] * ALPHABET + c];
        queue.push(to);
        delta[state * ALPHABET + c] = to;
      } else delta[state * ALPHABET + c] = delta[fail[state] * ALPHABET + c];
    }
  }
  const ends = new Uint8Array(count);
  for (let s = 0; s < count; s++) ends[s] = out[s].length ? 1 : 0;
  return {
    literals,
    find(text: string): LiteralPositions {
      const first = new Map<string, number>();
      let state = 0;
      const length = text.length;
      // Bounded: one step per character. Occurrences come in the order of their ends, so a
      // literal's first one found is its first (same length: same order of starts).
      for (let i = 0; i < length; i++) {
        const c = text.charCodeAt(i);
        state = c < ALPHABET ? delta[state * ALPHABET + c] : 0;
        if (ends[state] === 1)
          for (const literal of out[state]) if (!first.has(literal)) first.set(literal, i - literal.length + 1);
      }
      return first;
    },
  };
}

// Literals of ASCII characters, none shorter than SKIP_MIN: a skip scan (Wu-Manber) that looks
// at the last three characters of a window as long as the shortest literal and moves on by as
// much as those three allow (up to that length less two), so most of the page is stepped over,
// not stepped through.
const SKIP_MIN = 5;
const HASH_BITS = 15;
const HASH_MASK = (1 << HASH_BITS) - 1;
const hash3 = (a: number, b: number, c: number) => ((a << 10) ^ (b << 5) ^ c) & HASH_MASK;

function skipFinder(literals: readonly string[]): LiteralFinder {
  // The window: the shortest literal's length, at most 257 so every step (m - 2 at most) fits the
  // Uint8Array (a longer one wrapped: 258 gave every step 0 and a compare with no candidates).
  const m = Math.min(257, ...literals.map((literal) => literal.length));
  // shift[h]: how far the window's end can move when its last three characters hash to h (the
  // least over every literal's three-character blocks within its first m characters that hash
  // there); 0 for a block that ends some literal's first m characters, whose literals `ending[h]`
  // are then compared in full at the window's start.
  const shift = new Uint8Array(1 << HASH_BITS).fill(m - 2);
  const ending: Array<number[] | undefined> = [];
  literals.forEach((literal, index) => {
    for (let q = 2; q < m; q++) {
      const h = hash3(literal.charCodeAt(q - 2), literal.charCodeAt(q - 1), literal.charCodeAt(q));
      shift[h] = Math.min(shift[h], m - 1 - q);
    }
    const h = hash3(literal.charCodeAt(m - 3), literal.charCodeAt(m - 2), literal.charCodeAt(m - 1));
    (ending[h] ??= []).push(index);
  });
  const count = literals.length;
  /** Compares the literals whose first m characters may end at `end` (hash `h`); records first starts in `found`. */
  const compare = (text: string, h: number, end: number, found: Int32Array) => {
    const start = end - m + 1;
    for (const index of ending[h]!)
      if (found[index] < 0 && text.startsWith(literals[index], start)) found[index] = start;
  };
  /** The windows whose ends lie in [end, limit), in order; bounded: each round moves on at least one. */
  const scan = (text: string, end: number, limit: number, found: Int32Array) => {
    while (end < limit) {
      const h = hash3(text.charCodeAt(end - 2), text.charCodeAt(end - 1), text.charCodeAt(end));
      const step = shift[h];
      if (step !== 0) end += step;
      else {
        compare(text, h, end, found);
        end++;
      }
    }
  };
  return {
    literals,
    find(text: string): LiteralPositions {
      const length = text.length;
      // Four lanes, each the windows starting in one quarter of the text, stepped in turn: the
      // steps of one lane wait on its own table reads only, so the four overlap. A lane's
      // first find of a literal is the first in its quarter; the first lane that has one has the
      // page's first. Any character hashes (one in no literal gives a step no longer than is
      // safe), and every candidate is compared in full.
      const quarter = length >> 2;
      const f0 = new Int32Array(count).fill(-1);
      if (quarter < m) scan(text, m - 1, length, f0);
      else {
        const f1 = new Int32Array(count).fill(-1);
        const f2 = new Int32Array(count).fill(-1);
        const f3 = new Int32Array(count).fill(-1);
        let e0 = m - 1;
        let e1 = quarter + m - 1;
        let e2 = 2 * quarter + m - 1;
        let e3 = 3 * quarter + m - 1;
        const l0 = quarter + m - 1;
        const l1 = 2 * quarter + m - 1;
        const l2 = 3 * quarter + m - 1;
        // Bounded: every round moves each lane's window end at least one character on.
        while (e0 < l0 && e1 < l1 && e2 < l2 && e3 < length) {
          const h0 = hash3(text.charCodeAt(e0 - 2), text.charCodeAt(e0 - 1), text.charCodeAt(e0));
          const h1 = hash3(text.charCodeAt(e1 - 2), text.charCodeAt(e1 - 1), text.charCodeAt(e1));
          const h2 = hash3(text.charCodeAt(e2 - 2), text.charCodeAt(e2 - 1), text.charCodeAt(e2));
          const h3 = hash3(text.charCodeAt(e3 - 2), text.charCodeAt(e3 - 1), text.charCodeAt(e3));
          const s0 = shift[h0];
          const s1 = shift[h1];
          const s2 = shift[h2];
          const s3 = shift[h3];
          if (s0 !== 0) e0 += s0;
          else compare(text, h0, e0++, f0);
          if (s1 !== 0) e1 += s1;
          else compare(text, h1, e1++, f1);
          if (s2 !== 0) e2 += s2;
          else compare(text, h2, e2++, f2);
          if (s3 !== 0) e3 += s3;
          else compare(text, h3, e3++, f3);
        }
        scan(text, e0, l0, f0);
        scan(text, e1, l1, f1);
        scan(text, e2, l2, f2);
        scan(text, e3, length, f3);
        for (let i = 0; i < count; i++) if (f0[i] < 0) f0[i] = f1[i] >= 0 ? f1[i] : f2[i] >= 0 ? f2[i] : f3[i];
      }
      const first = new Map<string, number>();
      for (let i = 0; i < count; i++) if (f0[i] >= 0) first.set(literals[i], f0[i]);
      return first;
    },
  };
}

export function literalFinder(list: readonly string[]): LiteralFinder {
  if (list.every((literal) => ASCII.test(literal))) {
    const literals = [...new Set(list)].filter(Boolean).sort((a, b) => b.length - a.length);
    if (literals.length && literals.every((literal) => literal.length >= SKIP_MIN)) return skipFinder(literals);
    return automatonFinder(literals);
  }
  // Longest first: at one position the alternation reports the longest literal that matches.
  const literals = [...new Set(list)].filter(Boolean).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(literals.map(escapeRegExp).join('|'), 'g');
  // For each literal: the literals inside it (with every offset) and whether another can overlap it.
  const inside = new Map<string, Array<[string, number]>>();
  const step = new Map<string, number>();
  for (const a of literals) {
    const within: Array<[string, number]> = [];
    let overlapping = false;
    for (const b of literals) {
      if (b === a) continue;
      for (let at = a.indexOf(b); at >= 0; at = a.indexOf(b, at + 1)) within.push([b, at]);
      if (overlaps(a, b)) overlapping = true;
    }
    inside.set(a, within);
    step.set(a, overlapping ? 1 : a.length);
  }
  return {
    literals,
    find(text: string): LiteralPositions {
      const first = new Map<string, number>();
      const record = (literal: string, at: number) => {
        const seen = first.get(literal);
        if (seen === undefined || at < seen) first.set(literal, at);
      };
      if (!literals.length) return first;
      pattern.lastIndex = 0;
      // Bounded: every round moves the scan at least one character on.
      for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
        const literal = m[0];
        record(literal, m.index);
        for (const [inner, offset] of inside.get(literal)!) record(inner, m.index + offset);
        pattern.lastIndex = m.index + step.get(literal)!;
      }
      return first;
    },
  };
}

const globalRules = new WeakMap<RegExp, RegExp>();

/** `text.match(rule)` for a non-global rule whose every match starts at or after `from`. */
export function matchFrom(rule: RegExp, text: string, from: number): RegExpExecArray | null {
  let global = globalRules.get(rule);
  if (!global) {
    global = new RegExp(rule.source, `${rule.flags.replace('g', '')}g`);
    globalRules.set(rule, global);
  }
  global.lastIndex = from;
  return global.exec(text);
}
