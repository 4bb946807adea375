// Classes of price error on shops nobody tuned on (issue 27), each fixed as a class: a synthetic
// page that isolates it, and the real us-retail page where it was found. Read with the rules
// only (no weights) and with the committed weights.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { analysePage } from '../../lambdas/domain/extraction/analyse';
import { readProductPage, ruleReading } from '../../lambdas/domain/extraction/page';
import { CORPORA } from '../corpora';

const usPage = (shop: string) => {
  const dir = path.join(CORPORA, 'us-retail-pages');
  const labels = JSON.parse(readFileSync(path.join(dir, 'labels.json'), 'utf8')) as Record<string, { url: string }>;
  return {
    url: labels[shop].url,
    html: gunzipSync(readFileSync(path.join(dir, 'html', `${shop}.html.gz`))).toString('utf8'),
  };
};

const rules = (html: string, url: string) => ruleReading(analysePage(html, url, { countryCode: 'us' }));
const learned = (html: string, url: string) => readProductPage(html, url, { countryCode: 'us' });

describe('price classes', () => {
  it('a noise-classed wrapper that holds the heading is no noise, and a carousel before the price does not hide it', () => {
    const cards = Array.from(
      { length: 60 },
      (_, i) => `<li class="tile"><span class="product-sales-price">$${20 + i}.90</span></li>`,
    ).join('');
    const page = `<!doctype html><html><head><title>Merino Cardigan</title></head><body>
<div id="wrapper" class="page header-wrapper"><ul class="recommendations">${cards}</ul>
<div class="pdp-main"><h1>Merino Crewneck Cardigan</h1>
<div class="product-price"><span class="price-standard">$39.90</span> <span class="price-sales" itemprop="price">$1.90</span></div>
</div></div></body></html>`;
    const url = 'https://shop.example/us/en/merino-cardigan-151947.html';
    expect(rules(page, url).merged.price).toBe(1.9);
    expect(learned(page, url).merged.price).toBe(1.9);
  });

  it('a price classed "bold" is not a former price; an aside that holds the heading is the product', () => {
    const page = `<!doctype html><html><head><title>Model S | Cars</title></head><body>
<header><h1 id="logo" class="logo"><a href="/">Cars</a></h1></header>
<section class="side"><aside class="details"><h1>Model S P100D</h1><p>2017, 1,135 miles</p>
<p id="car-price" class="bold">$137,200</p><p>Located in Los Angeles</p></aside></section>
</body></html>`;
    const url = 'https://cars.example/new/5YJSA1E49HF198968';
    const r = rules(page, url);
    expect(r.merged.price).toBe(137200);
    expect(r.classification.isProduct).toBe(true);
  });

  it('real pages: the sale price inside a page-wide "header-wrapper" (uniqlo), a car priced in an aside (tesla)', () => {
    const uniqlo = usPage('uniqlo');
    expect(rules(uniqlo.html, uniqlo.url).merged.price).toBe(1.9);
    expect(learned(uniqlo.html, uniqlo.url).merged.price).toBe(1.9);
    const tesla = usPage('tesla');
    const read = learned(tesla.html, tesla.url);
    expect(read.merged.price).toBe(137200);
    expect(read.classification.isProduct).toBe(true);
  });

  it("an optional extra's price in a checkbox label is not the product's (a protection plan in the buy box)", () => {
    const page = `<!doctype html><html><head><title>Camcorder</title></head><body><div id="dp">
<div id="buybox"><div class="addons"><label><input type="checkbox" name="plan.1"> Include
<a href="#">4-Year Accident Protection</a> for <span class="a-color-price offer-price">$23.76</span></label></div>
<button type="submit">Add to Cart</button></div>
<div id="center"><h1>Hausbell 302S FHD Camcorder</h1>
<table><tr><td>Deal of the Day:</td><td><span class="a-color-price offer-price">$89.00</span></td></tr></table></div>
</div></body></html>`;
    const url = 'https://shop.example/dp/B01KLOA1PI';
    expect(rules(page, url).merged.price).toBe(89);
    const amazon = usPage('amazon');
    expect(rules(amazon.html, amazon.url).merged.price).toBe(89);
    expect(learned(amazon.html, amazon.url).merged.price).toBe(89);
  });

  it('a classified ad (og:type article, price in plain text, "Contact seller") is one product for sale', () => {
    const ad = (price: string) => `<!doctype html><html lang="en"><head><title>Oak Chair | Ads</title>
<meta property="og:type" content="article"><meta property="og:title" content="Oak Chair"></head><body>
<div class="top"><a href="/">Ads</a></div><article class="posting"><h1>Oak Chair</h1><p>posted 3 days ago · pickup only</p>
${price}<p>A chair made of oak.</p><button type="button">Contact seller</button></article></body></html>`;
    const url = 'https://ads.example/products/oak-chair';
    const r = rules(ad('<p>$98.99</p>'), url);
    expect(r.merged.price).toBe(98.99);
    expect(r.classification.isProduct).toBe(true);
    // Without a price shown, the same ad stays an article.
    expect(rules(ad(''), url).classification.isProduct).toBe(false);
  });

  it("the heading's name without the prices shown inside the heading", () => {
    const page = `<!doctype html><html><head><title>Bomber Jacket | Black | Shop</title></head><body>
<div class="product"><h1>Bomber Jacket <span class="price"><span class="actual-price new">$24.99</span>
<span class="old">$39.99</span></span></h1><button type="submit">Add to bag</button></div></body></html>`;
    const r = rules(page, 'https://shop.example/en_us/productpage.0460023001.html');
    expect(r.merged.title).toBe('Bomber Jacket');
    expect(r.merged.price).toBe(24.99);
  });
});
