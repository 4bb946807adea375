// The parse's in-place name lookup, skipped name states, copied onclosetag and
// per-name element lists (lambdas/domain/extraction/document.ts): seeded random markup from
// pieces chosen to trip them (names in any case, characters whose lower case is ASCII such as
// the Kelvin sign, names whose lower case is longer such as İ, names sharing a length and first,
// middle and last characters, foreign content, implied and stray closing tags, names cut by the
// end of the input) against the tree, element list and per-name lists cheerio gives.
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { PARSE_OPTIONS, parsePage } from '../../lambdas/domain/extraction/document';

function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const NAMES = [
  'div',
  'DIV',
  'Div',
  'dIv',
  'p',
  'P',
  'br',
  'BR',
  'li',
  'LI',
  'ul',
  'svg',
  'SVG',
  'math',
  'mi',
  'title',
  'TITLE',
  'foreignObject',
  'FOREIGNOBJECT',
  'desc',
  'table',
  'tr',
  'td',
  'option',
  'select',
  'a',
  'A',
  'b',
  'span',
  'SPAN',
  'lin\u212a',
  'LINK',
  'link',
  'meta',
  'img',
  'İmg',
  'ımg',
  'i\u0307mg',
  'dív',
  'DÍV',
  'abcd',
  'aXcd',
  'abXd',
  'axyd',
  'a-b',
  'a_b',
  'x\u212ay',
  'xky',
  'XKY',
  'h1',
  'H1',
  'section',
  'SECTION',
  'sectioN',
];
const ATTRS = [
  'class',
  'CLASS',
  'Class',
  'id',
  'ID',
  'itemprop',
  'ITEMPROP',
  'itemscope',
  'typeof',
  'data-price',
  'DATA-PRICE',
  'data-\u212a',
  'data-k',
  'İd',
  'href',
  'rel',
  'REL',
];
const VALUES = ['"a b"', "'description x'", 'plain', '"product"', '""', '"İ"', '"K"', '=x'];
const ENDS = [' ', '\n', '\t', '\f', '\r', '/', ''];

function page(next: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  let html = '';
  const pieces = 5 + Math.floor(next() * 60);
  for (let i = 0; i < pieces; i++) {
    const r = next();
    if (r < 0.45) {
      let tag = `<${pick(NAMES)}`;
      const attrs = Math.floor(next() * 4);
      for (let a = 0; a < attrs; a++)
        tag += `${pick([' ', '\n', '\t'])}${pick(ATTRS)}${next() < 0.7 ? `=${pick(VALUES)}` : ''}`;
      html += `${tag}${pick(ENDS)}${next() < 0.1 ? '/' : ''}>`;
    } else if (r < 0.8) html += `</${pick(NAMES)}${pick(ENDS.filter((e) => e !== '/'))}>`;
    else html += pick(['text', 'é', ' ', '&amp;', '€ 5', 'K']);
  }
  // Sometimes cut inside a name at the very end.
  if (next() < 0.2) html += pick(['<di', '</DI', '<div cla', '<div CLASS="x" da']);
  return html;
}

describe('parse against cheerio on random markup', () => {
  it('same tree, element list and per-name lists over 1500 seeded pages', () => {
    const next = random(20261124);
    for (let n = 0; n < 1500; n++) {
      const html = page(next);
      const doc = parsePage(html);
      const reference = cheerio.load(html, PARSE_OPTIONS);
      const all = reference('*').toArray() as unknown as Array<{ name: string; attribs: Record<string, string> }>;
      expect(
        doc.elements.map((el) => `${el.name} ${JSON.stringify(el.attribs)}`),
        JSON.stringify(html),
      ).toEqual(all.map((el) => `${el.name} ${JSON.stringify(el.attribs)}`));
      for (const name of new Set(all.map((el) => el.name)))
        expect(doc.byName(name).length, `${name} in ${JSON.stringify(html)}`).toBe(
          all.filter((el) => el.name === name).length,
        );
      // Last: rendering renames foreign-content elements in place (dom-serializer: foreignobject -> foreignObject).
      expect(doc.$.html(), JSON.stringify(html)).toBe(reference.html());
    }
  });
});
