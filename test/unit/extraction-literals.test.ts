// One regex pass says where each literal first occurs: it must agree with indexOf for every
// literal, including literals that overlap or contain each other, on made-up text and on every
// corpus page.
import { describe, expect, it } from 'vitest';
import { literalFinder, matchFrom } from '../../lambdas/domain/extraction/literals';
import { PLATFORM_LITERALS } from '../../lambdas/domain/extraction/platform';
import { corpusPages } from '../corpus-pages';

function byIndexOf(text: string, literals: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of literals) {
    const at = text.indexOf(l);
    if (at >= 0) out.set(l, at);
  }
  return out;
}

const sorted = (m: ReadonlyMap<string, number>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

describe('literalFinder', () => {
  it('finds overlapping, nested and repeated literals where indexOf does', () => {
    const literals = ['abc', 'cde', 'bcd', 'b', 'abcdef', 'Shopify', 'Shopify.currency', 'xx', 'x.y'];
    const finder = literalFinder(literals);
    for (const text of [
      'abcde',
      'zzabcdefzz',
      'cdeabc',
      'xxxx x.y Shopify.currency Shopify',
      'Shopify.currencShopify.currency',
      'bbbb',
      '',
      'no literal here',
    ])
      expect(sorted(finder.find(text)), text).toEqual(sorted(byIndexOf(text, literals)));
  });

  it('agrees with indexOf for the page literals on every corpus page', () => {
    const literals = [
      ...PLATFORM_LITERALS,
      'Shopify.currency',
      '"priceCurrency"',
      '"currency',
      'var meta = {"product":',
      'data-product_variations',
    ];
    const finder = literalFinder(literals);
    let found = 0;
    for (const page of corpusPages()) {
      const mine = finder.find(page.html);
      expect(sorted(mine), page.name).toEqual(sorted(byIndexOf(page.html, literals)));
      found += mine.size;
    }
    expect(found).toBeGreaterThan(100);
  });

  it('matchFrom finds the first match at or after an index, as match() does from there', () => {
    const rule = /"priceCurrency"\s*:\s*"([A-Za-z]{3})"/;
    const text = 'x "priceCurrency": "EUR" y "priceCurrency" : "usd"';
    expect(matchFrom(rule, text, 0)?.[1]).toBe('EUR');
    expect(matchFrom(rule, text, 3)?.[1]).toBe('usd');
    expect(matchFrom(rule, text, text.length)).toBeNull();
    // The rule itself stays non-global (no lastIndex state carried between pages).
    expect(rule.global).toBe(false);
  });
});
