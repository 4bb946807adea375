// The parse index (lambdas/domain/extraction/document.ts) answers whole-document selectors from
// the element list recorded while parsing: on every corpus page its answers must be cheerio's own
// (same elements, same order), and everything else must still reach cheerio.
import * as cheerio from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { hasWord, PARSE_OPTIONS, parsePage } from '../../lambdas/domain/extraction/document';
import { corpusPages } from '../corpus-pages';

const pages = corpusPages();

const INDEXED = [
  'html',
  'title',
  'meta',
  'script',
  'select',
  'label',
  'link[rel="canonical"]',
  '[itemscope], [typeof]',
  '[itemprop]',
  'script[type="application/json"], script[type="text/json"]',
  'form[data-product_variations]',
];

/** Each element's position in a pre-order walk of its own tree: comparable across two parses. */
function positions(root: AnyNode): Map<Element, number> {
  const at = new Map<Element, number>();
  const walk = (n: AnyNode) => {
    if ('attribs' in n) at.set(n as Element, at.size);
    if ('children' in n) for (const c of n.children as AnyNode[]) walk(c);
  };
  walk(root);
  return at;
}

describe('extraction document index', () => {
  it('has the corpus pages to check against', () => {
    expect(pages.length).toBeGreaterThan(100);
  });

  it('tokenizes edge cases as htmlparser2 does (entities, quotes, comments, scripts, unclosed input)', () => {
    const cases = [
      'a &amp; b &lt; c &#x41;&#66; &notanentity; & < > x',
      '<p title="a &quot;b&quot; &amp; c" data-x=\'it&apos;s "q"\' data-y=plain&amp;z>t</p>',
      '<div class="one two"  id = "x" hidden>text<br/>more</div>',
      '<!-- comment with < and > and -- inside --><!----><!--->x',
      '<script>if (a < b && c > d) { s = "</div>"; }</script><style>a>b{}</style>',
      '<script type="application/ld+json">{"a":"<\\/script>"}</script>',
      '<title>A &amp; B <b>not a tag</b></title><textarea>x &lt; y</textarea>',
      '<![CDATA[ cdata ]]><?php echo 1 ?><!DOCTYPE html>',
      '<DIV Class="A" DATA-X=1 data-x=2><IMG SRC=x><Svg viewBox="0 0 1 1"><Path D="M0"/></Svg></dIv>',
      '<p attr="unterminated',
      'trailing text &amp',
      "<a href='x'>&#128512; &eacute;&Eacute; \u00e9\u4e2d\u6587 </a>",
      '',
    ];
    for (const html of cases) {
      const doc = parsePage(html);
      const reference = cheerio.load(html, PARSE_OPTIONS);
      expect(doc.$.html(), html).toBe(reference.html());
      expect(doc.$.root().text(), html).toBe(reference.root().text());
    }
  });

  // 300 s: a limit for a busy shared machine (every corpus page parsed twice), not a timing assertion.
  it('builds the tree cheerio builds, lists its elements in order and answers each indexed selector as cheerio does', () => {
    let compared = 0;
    for (const page of pages) {
      const doc = parsePage(page.html);
      const reference = cheerio.load(page.html, PARSE_OPTIONS);
      // Serialised with entities re-encoded, so decoded text and attribute values compare too.
      expect(doc.$.html() === reference.html(), `${page.name}: same tree`).toBe(true);
      const mine = positions(doc.$.root()[0]);
      const theirs = positions(reference.root()[0]);
      expect(
        doc.elements.map((el) => mine.get(el)),
        page.name,
      ).toEqual([...mine.values()]);
      const labelIds = doc
        .byName('label')
        .map((el) => el.attribs.for)
        .filter((id): id is string => !!id && !/["\\]/.test(id))
        .slice(0, 5);
      for (const selector of [...INDEXED, ...labelIds.map((id) => `label[for="${id}"]`)]) {
        const found = doc.select(selector);
        expect(found, selector).not.toBeNull();
        const expected = reference(selector)
          .toArray()
          .map((el) => theirs.get(el as Element));
        expect(
          found!.map((el) => mine.get(el)),
          `${page.name} ${selector}`,
        ).toEqual(expected);
        // Through `$` too, as the readers ask.
        expect(doc.$(selector).toArray(), `${page.name} $(${selector})`).toEqual(found);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(pages.length * INDEXED.length - 1);
  }, 300_000);

  it('hands other selectors, nodes and contexts to cheerio', () => {
    const doc = parsePage(
      '<html lang="de"><body><div class="a b"><p id="x">one</p><p>two</p></div><select><option>o</option></select></body></html>',
    );
    expect(doc.select('div p')).toBeNull();
    expect(doc.$('div p').length).toBe(2);
    expect(doc.$('p', doc.byName('div')[0]).length).toBe(2);
    expect(doc.$(doc.byName('p')[0]).text()).toBe('one');
    expect(doc.$('#x').text()).toBe('one');
    expect(doc.$.root().find('option').text()).toBe('o');
    expect(doc.$('html').attr('lang')).toBe('de');
    expect(doc.$.html(doc.$('p').first())).toBe('<p id="x">one</p>');
  });

  it('matches class words as css-select does', () => {
    expect(hasWord('product-description main', 'product-description')).toBe(true);
    expect(hasWord('x\tdescription', 'description')).toBe(true);
    expect(hasWord('product-description', 'description')).toBe(false);
    expect(hasWord('descriptions description-box', 'description')).toBe(false);
    expect(hasWord(undefined, 'description')).toBe(false);
  });
});
