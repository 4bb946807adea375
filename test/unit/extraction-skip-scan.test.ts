// The skip scan (Wu-Manber) that finds the page literals when none is shorter than five
// characters: where each literal first occurs must be where indexOf says, on made-up text built to
// trip it (literals at the very start and end, overlapping and nested literals, literals broken by
// or beside non-ASCII characters, texts shorter than the shortest literal) and on seeded random
// texts made of literal pieces.
import { describe, expect, it } from 'vitest';
import { literalFinder } from '../../lambdas/domain/extraction/literals';

const byIndexOf = (text: string, literals: readonly string[]) =>
  new Map(literals.filter((l) => text.includes(l)).map((l) => [l, text.indexOf(l)] as const));
const sorted = (m: ReadonlyMap<string, number>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

const LITERALS = ['Shopify', 'Shopify.currency', '"currency', '"priceCurrency"', 'dwvar_', 'BCData', 'cdata', 'aaaaa'];

describe('skip scan', () => {
  it('finds literals where indexOf does on made-up text', () => {
    const finder = literalFinder(LITERALS);
    for (const text of [
      '',
      'Shop',
      'Shopify',
      'xShopify.currency',
      'Shopify.currencShopify.currency',
      '中文 "currency":"CNY" Shopify.currency ¥',
      'Shop\u00e9ify Shopify',
      '\u{1F600}"priceCurrency" "currency Shopify.currenc',
      'ShopShopify.currency',
      'aaaaaaaaaa',
      'BCDatacdatadwvar_',
      'é"currency€BCData€',
      'dwvar',
      '"pric€eCurrency" "priceCurrency"',
    ])
      expect(sorted(finder.find(text)), text).toEqual(sorted(byIndexOf(text, LITERALS)));
  });

  it('finds literals where indexOf does on random texts of literal pieces and non-ASCII characters', () => {
    const finder = literalFinder(LITERALS);
    const pieces = [
      ...LITERALS.flatMap((l) => [l, l.slice(0, 3), l.slice(2), l.slice(1, -1)]),
      'é',
      '€',
      '中',
      ' ',
      'a',
    ];
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let found = 0;
    for (let round = 0; round < 2000; round++) {
      let text = '';
      for (let k = random(30); k > 0; k--) text += pieces[random(pieces.length)];
      const expected = byIndexOf(text, LITERALS);
      found += expected.size;
      expect(sorted(finder.find(text)), text).toEqual(sorted(expected));
    }
    expect(found).toBeGreaterThan(1000);
  });

  it('keeps the character-by-character automaton for literals shorter than five characters', () => {
    const literals = ['abc', 'Shopify', 'b'];
    const finder = literalFinder(literals);
    for (const text of ['abcShopify', 'xxb', '中b文abc'])
      expect(sorted(finder.find(text)), text).toEqual(sorted(byIndexOf(text, literals)));
  });
});
