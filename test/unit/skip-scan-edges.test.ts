// The four-lane skip scan (lambdas/domain/extraction/literals.ts) on its edges: a
// literal at every offset around the lanes' boundaries and at the text's very end, texts just
// under and over four windows long, the empty text, non-ASCII neighbours, and literals longer
// than a step table entry can hold (a shortest literal over 257 characters). Each against indexOf.
import { describe, expect, it } from 'vitest';
import { literalFinder } from '../../lambdas/domain/extraction/literals';

const expected = (literals: readonly string[], text: string) => {
  const first = new Map<string, number>();
  for (const literal of new Set(literals)) {
    const at = text.indexOf(literal);
    if (at >= 0) first.set(literal, at);
  }
  return first;
};

describe('skip scan edges', () => {
  const literals = ['Shopify.shop', 'woocommerce', 'data-product_variations', 'cdn.shopify'];
  const finder = literalFinder(literals);

  it('finds a literal placed at every offset around each lane boundary and at the very end', () => {
    for (const length of [60, 61, 62, 63, 64, 97, 200, 1001]) {
      const quarter = length >> 2;
      for (const literal of literals) {
        const starts = new Set<number>([length - literal.length]);
        for (const boundary of [quarter, 2 * quarter, 3 * quarter])
          for (let d = -literal.length - 2; d <= 2; d++) starts.add(boundary + d);
        for (const start of starts) {
          if (start < 0 || start + literal.length > length) continue;
          const text = 'é'.repeat(start) + literal + 'x'.repeat(length - start - literal.length);
          expect(finder.find(text), `${literal} at ${start} of ${length}`).toEqual(expected(literals, text));
        }
      }
    }
  });

  it('texts from empty to a little over four windows long', () => {
    for (let length = 0; length <= 4 * 11 + 8; length++)
      for (const literal of literals)
        for (let start = 0; start + literal.length <= length; start += 3) {
          const text = '€'.repeat(start) + literal + 'ab'.repeat(length).slice(0, length - start - literal.length);
          expect(finder.find(text), `${literal} at ${start} of ${length}`).toEqual(expected(literals, text));
        }
    expect(finder.find('')).toEqual(new Map());
  });

  it('literals longer than 257 characters are found where indexOf finds them (and absent ones are not)', () => {
    const long = `<script id="${'a'.repeat(300)}">`;
    const longer = `${'b'.repeat(400)}.json`;
    const longFinder = literalFinder([long, longer]);
    for (const text of [
      `${'x'.repeat(1000)}${long}${'y'.repeat(50)}`,
      `${long}${longer}`,
      `${'z'.repeat(2000)}${longer}`,
      'nothing here '.repeat(200),
      `${'a'.repeat(2000)}`,
    ])
      expect(longFinder.find(text)).toEqual(expected([long, longer], text));
  });

  it('a shortest literal of 258 or 514 characters (whose default step is a multiple of 256)', () => {
    for (const m of [258, 514]) {
      const literal = `<${'q'.repeat(m - 2)}>`;
      const finder = literalFinder([literal, `${literal}!`]);
      for (const text of [
        `${'x'.repeat(3000)}${literal}`,
        'nothing here '.repeat(300),
        `${literal}!${'y'.repeat(m * 4)}`,
      ])
        expect(finder.find(text), `m = ${m}`).toEqual(expected([literal, `${literal}!`], text));
    }
  });
});
