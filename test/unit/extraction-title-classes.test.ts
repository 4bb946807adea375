// Classes of title error on shops nobody tuned on (issue 27), each fixed as a class: a synthetic
// page that isolates it, and the real corpus page where it was found.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { analysePage } from '../../lambdas/domain/extraction/analyse';
import { titleCandidates, withoutGluedPrices } from '../../lambdas/domain/extraction/features';
import { bareTitle, readProductPage, ruleReading } from '../../lambdas/domain/extraction/page';
import { readShopifyProduct } from '../../lambdas/domain/extraction/readers/platform-json';
import { cleanText, decodeEntities } from '../../lambdas/domain/extraction/values';
import { CORPORA } from '../corpora';

const gunzip = (file: string) => gunzipSync(readFileSync(file)).toString('utf8');

const benchPage = (prefix: string) => {
  const dir = path.join(CORPORA, 'product-extraction-benchmark');
  const truth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { url: string }
  >;
  const id = Object.keys(truth).find((k) => k.startsWith(prefix))!;
  return { url: truth[id].url, html: gunzip(path.join(dir, 'html', `${id}.html.gz`)) };
};

const read = (html: string, url: string, countryCode = 'us') => readProductPage(html, url, { countryCode });

describe('names come out decoded', () => {
  it('decodes character references with their semicolon, and leaves other ampersands as written', () => {
    expect(decodeEntities('Cama Elo&iacute;sa')).toBe('Cama Eloísa');
    expect(decodeEntities('1970&#39;s &#x2F; &quot;RARE&quot;')).toBe('1970\'s / "RARE"');
    expect(decodeEntities('AT&T, B&Q, &copy 2024, &notaname;')).toBe('AT&T, B&Q, &copy 2024, &notaname;');
    expect(cleanText('  Fish &amp; Chips\u00a0 ')).toBe('Fish & Chips');
  });

  it('a name escaped in JSON-LD, OpenGraph, microdata and the platform JSON comes out decoded', () => {
    const jsonLd = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Cama Elo&iacute;sa Single &#39;Plus&#39;',
      brand: { '@type': 'Brand', name: 'Muebles &amp; Co' },
      offers: { '@type': 'Offer', price: '199.00', priceCurrency: 'USD' },
    };
    const page = `<!doctype html><html><head><title>Cama | Shop</title>
<meta property="og:title" content="Cama Elo&amp;iacute;sa Single &amp;#39;Plus&amp;#39;">
<script type="application/ld+json">${JSON.stringify(jsonLd)}</script></head><body>
<div itemscope itemtype="https://schema.org/Product"><meta itemprop="name" content="Cama Elo&amp;iacute;sa Single &amp;#39;Plus&amp;#39;"></div>
<main><h1>Cama Eloísa Single 'Plus'</h1><span class="price">$199.00</span><button>Add to cart</button></main>
</body></html>`;
    const r = read(page, 'https://muebles.example/cama-eloisa-123.html');
    expect(r.analysis.jsonLd.product?.title).toBe("Cama Eloísa Single 'Plus'");
    expect(r.analysis.microdata.product?.title).toBe("Cama Eloísa Single 'Plus'");
    expect(r.analysis.openGraph?.title).toBe("Cama Eloísa Single 'Plus'");
    expect(r.merged.title).toBe("Cama Eloísa Single 'Plus'");
    expect(r.merged.brand).toBe('Muebles & Co');
    const shopify = readShopifyProduct(
      { title: 'Caf&eacute; Mug', vendor: 'Tom &amp; Co', variants: [{ id: 1, price: '12.00', title: 'Default' }] },
      'https://mugs.example/products/cafe-mug',
      'USD',
    );
    expect(shopify?.title).toBe('Café Mug');
    expect(shopify?.brand).toBe('Tom & Co');
  });

  it('real page: a JSON-LD name written with "&iacute;" (paris.cl, benchmark)', () => {
    const p = benchPage('8cb33a3e85d7');
    const r = read(p.html, p.url, 'cl');
    expect(r.analysis.jsonLd.product?.title).toBe('Cama Eloísa Single 1.5 Plazas + Set 2 Cajones Cic');
    // The chosen name may carry the brand before it ("CIC Cama Eloísa ..."); either way decoded.
    expect(r.merged.title).toMatch(/^(CIC )?Cama Eloísa Single 1\.5 Plazas \+ Set 2 Cajones Cic$/);
  });
});

const usPage = (shop: string) => {
  const dir = path.join(CORPORA, 'us-retail-pages');
  const labels = JSON.parse(readFileSync(path.join(dir, 'labels.json'), 'utf8')) as Record<string, { url: string }>;
  return { url: labels[shop].url, html: gunzip(path.join(dir, 'html', `${shop}.html.gz`)) };
};

const titleFeatures = (html: string, url: string) => {
  const rules = ruleReading(analysePage(html, url, { countryCode: 'us' }));
  return new Map(titleCandidates(rules, bareTitle(rules.analysis)).map((c) => [c.value, c.features]));
};

describe('names beside the product name that are not it', () => {
  it('cuts the prices glued to a name, and leaves a name without a price alone', () => {
    expect(withoutGluedPrices('H&M Bomber Jacket $24.99')).toBe('H&M Bomber Jacket');
    expect(withoutGluedPrices('Bomber Jacket $24.99 $39.99')).toBe('Bomber Jacket');
    expect(withoutGluedPrices('$60 · Vintage Surf Board')).toBe('Vintage Surf Board');
    expect(withoutGluedPrices('Log In needed $60 · Vintage Surf Board')).toBe('Vintage Surf Board');
    expect(withoutGluedPrices('Sapatos 26,00 €')).toBe('Sapatos');
    expect(withoutGluedPrices('Levi 501 Jeans')).toBeNull();
    expect(withoutGluedPrices('$24.99')).toBeNull();
  });

  it('marks words before a name (the brand or others) and after it, on both names of the pair', () => {
    const jsonLd = { '@context': 'https://schema.org', '@type': 'Product', name: 'Wool Scarf Model:', brand: 'Acme' };
    const page = `<!doctype html><html><head><title>Wool Scarf | Shop</title>
<meta property="og:title" content="Acme Wool Scarf $24.99">
<script type="application/ld+json">${JSON.stringify(jsonLd)}</script></head><body>
<div itemscope itemtype="https://schema.org/Product"><meta itemprop="name" content="Details about Wool Scarf"></div>
<main><h1>Wool Scarf</h1><span class="price">$24.99</span><button>Add to cart</button></main></body></html>`;
    const f = titleFeatures(page, 'https://shop.example/products/wool-scarf');
    expect(f.get('Acme Wool Scarf $24.99')).toMatchObject({ price_in: 1 });
    expect(f.get('Acme Wool Scarf')).toMatchObject({ price_cut: 1, brand_lead: 1, price_in: 0 });
    expect(f.get('Details about Wool Scarf')).toMatchObject({ extra_lead: 1 });
    expect(f.get('Wool Scarf Model:')).toMatchObject({ extra_tail: 1, trailing_label: 1 });
    expect(f.get('Wool Scarf')).toMatchObject({ lacks_brand: 1, lacks_lead: 1, lacks_tail: 1 });
  });

  it('a name with "Details about" before it is not the name (ebay.ie, benchmark)', () => {
    const car = benchPage('5cea6e89b169');
    expect(read(car.html, car.url, 'ie').merged.title).toBe('BMW X1 SDRIVE 2.0 AUTOMATIC');
    const hoodie = benchPage('9edbb12683ce');
    expect(read(hoodie.html, hoodie.url, 'ie').merged.title).toBe('BILLIE EILISH Graffiti Print Hoodie');
  });

  it('a price and a login prompt before the name are cut (usedvictoria.com, benchmark)', () => {
    const ad = benchPage('5579758b93a3');
    expect(read(ad.html, ad.url).merged.title).toBe(
      "1970's Vintage Surfer Magazine Promotional Fiberglass Skate Board RARE",
    );
  });

  it('a label glued after the name is not the name (getit.co.il, benchmark)', () => {
    const p = benchPage('c9f80eb2d0f9');
    expect(read(p.html, p.url, 'il').merged.title).toBe('בושם לגבר Legend 200ml edt');
  });

  it('real us-retail pages: no price glued (handm), the brand and name over the kind of item alone (tiffany)', () => {
    const handm = usPage('handm');
    expect(read(handm.html, handm.url).merged.title).toBe('Bomber Jacket');
    const tiffany = usPage('tiffany');
    expect(read(tiffany.html, tiffany.url).merged.title).toBe('Tiffany Novo® Diamond Ring');
  });
});

describe("a shop's slogan as og:title", () => {
  it('marks a name that shares no word with the other sources', () => {
    const page = `<!doctype html><html><head><title>Tully Sconce | Shop</title>
<meta property="og:title" content="Bedding, Furniture, Electronics &amp; more"></head><body>
<main><h1>Tully Wall Sconce</h1><span class="price">$89.00</span><button>Add to cart</button></main></body></html>`;
    const f = titleFeatures(page, 'https://shop.example/products/tully-sconce');
    expect(f.get('Bedding, Furniture, Electronics & more')).toMatchObject({ alone: 1 });
    expect(f.get('Tully Wall Sconce')).toMatchObject({ alone: 1 });
    expect(read(page, 'https://shop.example/products/tully-sconce').merged.title).toBe('Tully Wall Sconce');
  });

  it('real page: the JSON-LD name over the slogan (overstock, metascraper-shopping)', () => {
    const dir = path.join(CORPORA, 'metascraper-shopping');
    const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as {
      cases: Array<{ file: string; url: string }>;
    };
    const c = expected.cases.find((x) => x.file.endsWith('overstock.html.gz'))!;
    const r = read(gunzip(path.join(dir, c.file)), c.url);
    expect(r.merged.title).toBe('Certified International Elegance Canape Plates, Set of 6');
  });
});
