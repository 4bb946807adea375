// The DOM walk's class-and-id tests run only when one alternation of all of them matches
// (readers/dom.ts classFlags): the flags must be those of running every test, on texts made to
// match each test alone (and none), in any case, and on the class/id texts of corpus pages.
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../lambdas/domain/extraction/document';
import { classFlags, eachClassFlag } from '../../lambdas/domain/extraction/readers/dom';
import { corpusPages } from '../corpus-pages';

const same = (cls: string, id: string) => {
  const classId = `${cls} ${id}`;
  expect(classFlags(classId, cls, id), classId).toBe(eachClassFlag(classId, cls, id));
};

describe('class flags behind one alternation', () => {
  it('gives every test its flag, alone and in any case', () => {
    const alone = [
      'x-rr-y',
      'site-footer',
      'youmayalsolike',
      'also',
      'swatch-list',
      'breadcrumbs',
      'facet',
      'price',
      'productcode',
      'product-ref',
      'brand',
      'stock-level',
      'product-card',
      'betrag',
      'plain',
      '',
      'menu-item price--large',
      'OPTION-VALUE',
      'ItemNumber',
    ];
    let flagged = 0;
    for (const word of alone) {
      for (const text of [word, word.toUpperCase(), `a ${word} b`, `a-${word}_b`]) {
        same(text, '');
        same('', text);
        same('wrapper', text);
        if (eachClassFlag(`${text} `, text, '') !== 0) flagged++;
      }
    }
    expect(flagged).toBeGreaterThan(40);
  });

  it('gives the class/id texts of corpus pages the flags of every test', () => {
    let texts = 0;
    let flagged = 0;
    for (const page of corpusPages().slice(0, 30)) {
      const seen = new Set<string>();
      for (const el of parsePage(page.html).elements) {
        const cls = el.attribs.class ?? '';
        const id = el.attribs.id ?? '';
        const classId = `${cls} ${id}`;
        if ((!cls && !id) || seen.has(classId)) continue;
        seen.add(classId);
        const expected = eachClassFlag(classId, cls, id);
        expect(classFlags(classId, cls, id), classId).toBe(expected);
        texts++;
        if (expected) flagged++;
      }
    }
    expect(texts).toBeGreaterThan(1000);
    expect(flagged).toBeGreaterThan(100);
  });
});
