// The DOM walk over the parse's element list (readers/dom.ts): each element in the context its
// parent made, skipped subtrees (script, style, noscript, template, svg) left out, nothing below
// 120 levels. Checked against the same walk over elements listed from the tree, and on markup
// whose prices sit where the walk's rules decide whether they count.
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../lambdas/domain/extraction/document';
import { readDom } from '../../lambdas/domain/extraction/readers/dom';
import { corpusPages } from '../corpus-pages';

const URL = 'https://shop.example/p/1';
const amounts = (html: string) => {
  const doc = parsePage(html);
  return readDom(doc.$, URL, 'us', 'USD', doc.elements).priceCandidates.map((c) => c.amount);
};
const nested = (depth: number, inner: string) => '<div>'.repeat(depth) + inner + '</div>'.repeat(depth);

describe('DOM walk over the element list', () => {
  it('reads a price 120 levels down and none below that', () => {
    // <html><body> are implied around the divs: the price span sits two levels below the last div.
    const at = (divs: number) =>
      amounts(`<html><body>${nested(divs, '<span class="price">$12.34</span>')}</body></html>`);
    expect(at(118)).toContain(12.34);
    expect(at(119)).not.toContain(12.34);
  });

  it('leaves out prices inside skipped elements and keeps the ones after them', () => {
    const html = [
      '<html><body><h1>Thing</h1>',
      '<template><span class="price">$1.11</span></template>',
      '<noscript><span class="price">$2.22</span></noscript>',
      '<svg><g class="price"><text>$3.33</text></g></svg>',
      '<span class="price">$4.44</span>',
      '</body></html>',
    ].join('');
    expect(amounts(html)).toEqual([4.44]);
  });

  it('reads every corpus page the same from the parse list as from elements listed off the tree', () => {
    let pages = 0;
    for (const page of corpusPages().slice(0, 40)) {
      const doc = parsePage(page.html);
      const fromList = readDom(doc.$, page.url, 'us', null, doc.elements);
      const fromTree = readDom(doc.$, page.url, 'us', null);
      expect(fromList, page.name).toEqual(fromTree);
      pages++;
    }
    expect(pages).toBe(40);
  });
});
