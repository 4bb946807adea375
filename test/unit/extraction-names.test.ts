// Tag and attribute names looked up by a hash of their lower-cased characters (document.ts,
// NamingParser) instead of cut out of the page and lower-cased: the tree must be the one cheerio
// builds, on markup built to trip the lookup (mixed case, closing tags in another case, implied
// and void closing tags, foreign content, non-ASCII names, names sharing a slot, more distinct
// names than there are slots), and name states skipped to the character that ends the name.
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { PARSE_OPTIONS, parsePage } from '../../lambdas/domain/extraction/document';

const same = (html: string) => {
  const doc = parsePage(html);
  const reference = cheerio.load(html, PARSE_OPTIONS);
  expect(doc.$.html(), html).toBe(reference.html());
  expect(
    doc.elements.map((el) => `${el.name} ${Object.keys(el.attribs).join(',')}`),
    html,
  ).toEqual(
    reference('*')
      .toArray()
      .map((el) => `${(el as { name: string }).name} ${Object.keys((el as { attribs: object }).attribs).join(',')}`),
  );
};

describe('names looked up while parsing', () => {
  it('builds the tree cheerio builds for names in any case', () => {
    for (const html of [
      '<DIV CLASS="a" Id="b"><Span DATA-Price="1">x</SPAN></div>',
      '<p>one</P><P>two</p></P><div></DIV></div>',
      '<br></BR><BR/></br>text',
      '<SVG><Title>t</TITLE><Desc>d</desc><foreignObject><p>x</P></ForeignObject></svg><MATH><MI>x</mi></math>',
      '<ul><LI>a<li>b</Li></UL><table><TR><TD>1<Td>2</tr></TABLE>',
      '<dív clåss="x" data-ü=1>é</dív><DÍV>f</díV>',
      '<a><b><a-b><a_b A-B=1 a-B=2 A_b=3></a_b></A-B></b></A>',
      '<select><OPTION>1<option>2</OPTION></select><script>x</SCRIPT><style>y</Style>',
      // Names ended by each character that can end them, and by the end of the input.
      '<a\fb=1\rc\td\ne f/g>x</a\n><img src=x/><i/></i/><p\f>y</p\r><b\t>z</b\t>',
      '<div data-a=b=c class="x"data-z>t</div><span a/b=c>u</span><q a=>v</q>',
      '<scripts>x</scripts><styles a=1>y</styles><titles>z</titles>',
      '<div clas',
      '<div class="a"><span data',
      '<p>x</di',
      '<p>x</div',
      '<sv',
    ])
      same(html);
  });

  it('builds the tree cheerio builds with more distinct names than slots, in two cases each', () => {
    let html = '';
    for (let i = 0; i < 3000; i++) html += `<x-${i} data-n${i}="v" DATA-N${i}="w">t</X-${i}><X-${i}>u</x-${i}>`;
    same(html);
  });
});
