// The paths the extraction's performance work added, on made-up input where they could differ
// from the plain answer: the automaton's literal positions (two-byte text, non-ASCII literals
// through the regex fallback) against indexOf, and the element lists noted from the parser's
// attribute events (repeated attributes, upper-case names, valueless attributes) against a
// filter of every element.
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../lambdas/domain/extraction/document';
import { literalFinder } from '../../lambdas/domain/extraction/literals';

const byIndexOf = (text: string, literals: readonly string[]) =>
  new Map(literals.filter((l) => text.includes(l)).map((l) => [l, text.indexOf(l)] as const));
const sorted = (m: ReadonlyMap<string, number>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

describe('literal automaton', () => {
  it('finds literals in two-byte text where indexOf does', () => {
    const literals = ['"currency', '"priceCurrency"', 'Shopify', 'Shopify.currency', 'op', 'pif'];
    const finder = literalFinder(literals);
    for (const text of [
      '中文 "currency":"CNY" Shopify.currency ¥',
      'Shop\u00e9ify Shopify',
      '\u{1F600}"priceCurrency" "currency Shopify.currenc',
      'ShopShopify.currency',
    ])
      expect(sorted(finder.find(text)), text).toEqual(sorted(byIndexOf(text, literals)));
  });

  it('finds non-ASCII literals (regex fallback) where indexOf does', () => {
    const literals = ['Prix €', '€', 'ab'];
    const finder = literalFinder(literals);
    for (const text of ['Prix € 12', 'ab €', 'none'])
      expect(sorted(finder.find(text)), text).toEqual(sorted(byIndexOf(text, literals)));
  });
});

describe('element lists noted while parsing', () => {
  const html = [
    '<div ITEMSCOPE itemtype="https://schema.org/Product"><span itemprop="name">A</span>',
    '<p typeof="Offer" class="product-description x">long enough description text here</p>',
    '<section id="a" id="tab-description">x</section>',
    '<div itemprop="descriptionX" itemprop="brand">b</div><i class="description" class="y">c</i>',
    '<meta itemprop=""><b data-itemprop="x">no</b></div>',
  ].join('');

  it('answers [itemscope], [typeof] and [itemprop] as a filter of every element does', () => {
    const doc = parsePage(html);
    const has = (name: string) => doc.elements.filter((el) => Object.hasOwn(el.attribs, name));
    expect(doc.select('[itemscope], [typeof]')).toEqual(
      doc.elements.filter((el) => Object.hasOwn(el.attribs, 'itemscope') || Object.hasOwn(el.attribs, 'typeof')),
    );
    expect(doc.select('[itemprop]')).toEqual(has('itemprop'));
    expect(doc.select('[itemprop]')?.map((el) => el.name)).toEqual(['span', 'div', 'meta']);
  });

  it('notes every element whose kept itemprop, id or class contains "description"', () => {
    const doc = parsePage(html);
    const kept = doc.elements.filter(
      (el) =>
        el.attribs.itemprop?.includes('description') ||
        el.attribs.id?.includes('description') ||
        el.attribs.class?.includes('description'),
    );
    for (const el of kept) expect(doc.describing).toContain(el);
    expect(kept.map((el) => el.name)).toEqual(['p', 'div', 'i']);
  });
});
