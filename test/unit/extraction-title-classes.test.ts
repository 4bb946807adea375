// Classes of title error on shops nobody tuned on (issue 27), each fixed as a class: a synthetic
// page that isolates it, and the real corpus page where it was found.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readProductPage } from '../../lambdas/domain/extraction/page';
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
    expect(r.merged.title).toBe('Cama Eloísa Single 1.5 Plazas + Set 2 Cajones Cic');
  });
});
