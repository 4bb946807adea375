// What a crawl takes from a store's own markup, and only from it: names and prices of category
// cards, JSON-LD ItemList products and microdata, null where the store states nothing (never a
// name made from the URL); the next page of a category in each pagination form; which sitemap
// entries are product pages (not the home page or shop archive a product sitemap starts with);
// and the sitemap method reading category pages before the sitemaps.
import { describe, expect, it } from 'vitest';
import { planSequences, planWave } from '../../lambdas/domain/crawl/steps';
import {
  isProductPage,
  readHtmlListingPage,
  readProductMarkup,
  readSitemap,
  shopifyListings,
} from '../../lambdas/domain/crawl/parse';
import type { CrawlPlan, PageOutcome } from '../../lambdas/domain/crawl/model';

const page = (head: string, body: string) => `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;

describe('names and prices from the store, null when it states none', () => {
  it('a sitemap entry is named by its image title only; no name is made from its URL', () => {
    const body = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>https://s.test/products/a5-dot-grid-notebook-navy</loc><image:image><image:loc>https://s.test/i/1.jpg</image:loc></image:image></url>
<url><loc>https://s.test/products/tote</loc><image:image><image:loc>https://s.test/i/2.jpg</image:loc><image:title>Canvas Tote, Sand</image:title></image:image></url>
</urlset>`;
    const read = readSitemap(body, 'https://s.test/sitemap.xml');
    expect(read.listings.map((l) => [l.url, l.name, l.price.current_value])).toEqual([
      ['https://s.test/products/a5-dot-grid-notebook-navy', null, null],
      ['https://s.test/products/tote', 'Canvas Tote, Sand', null],
    ]);
  });

  it('platform JSON without a title gives a null name, not the handle', () => {
    const body = JSON.stringify({ products: [{ handle: 'a5-dot-grid-notebook-navy', variants: [{ price: '9.50' }] }] });
    expect(shopifyListings(body, 'https://s.test', 'USD')?.[0]).toMatchObject({
      name: null,
      price: { current_value: 9.5 },
    });
  });

  it('a category card without a title is null-named; one with a title keeps it', () => {
    const html = page(
      '',
      `<ul><li class="product-card"><a href="/products/a5-dot-grid-notebook-navy"><img src="/i/1.jpg"></a><span class="price">$12.00</span></li>
<li class="product-card"><a href="/products/tote"><span class="title">Canvas Tote, Sand</span></a></li></ul>`,
    );
    const read = readHtmlListingPage(html, 'https://s.test/collections/paper', 'USD');
    expect(read.listings.map((l) => [l.name, l.price.current_value])).toEqual([
      [null, 12],
      ['Canvas Tote, Sand', null],
    ]);
  });

  it('JSON-LD ItemList products give name, price, currency and image', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'ItemList',
      itemListElement: [
        {
          '@type': 'ListItem',
          position: 1,
          item: {
            '@type': 'Product',
            url: 'https://s.test/products/a5-dot-grid-notebook-navy',
            name: 'A5 Dot Grid Notebook, Navy',
            image: 'https://s.test/i/1.jpg',
            offers: { '@type': 'Offer', price: '14.90', priceCurrency: 'EUR' },
          },
        },
        { '@type': 'ListItem', position: 2, url: 'https://s.test/products/plain-entry' },
      ],
    };
    const html = page(`<script type="application/ld+json">${JSON.stringify(ld)}</script>`, '<h1>Paper</h1>');
    const read = readHtmlListingPage(html, 'https://s.test/collections/paper', null);
    expect(read.listings).toEqual([
      {
        url: 'https://s.test/products/a5-dot-grid-notebook-navy',
        name: 'A5 Dot Grid Notebook, Navy',
        images: [{ id: expect.any(String), url: 'https://s.test/i/1.jpg', width: null, height: null, position: 1 }],
        price: { currency: 'EUR', current_value: 14.9, compare_at_value: null },
      },
      {
        url: 'https://s.test/products/plain-entry',
        name: null,
        images: [],
        price: { currency: null, current_value: null, compare_at_value: null },
      },
    ]);
  });

  it('microdata Product items give name and price', () => {
    const html = page(
      '',
      `<div itemscope itemtype="https://schema.org/Product"><a itemprop="url" href="/item/a5-dot-grid-notebook-navy"><span itemprop="name">A5 Dot Grid Notebook, Navy</span></a>
<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="GBP"><span itemprop="price" content="7.25">£7.25</span></div></div>`,
    );
    const read = readHtmlListingPage(html, 'https://s.test/category/paper', null);
    expect(read.listings.map((l) => [l.url, l.name, l.price.current_value, l.price.currency])).toEqual([
      ['https://s.test/item/a5-dot-grid-notebook-navy', 'A5 Dot Grid Notebook, Navy', 7.25, 'GBP'],
    ]);
  });
});

describe('the next page of a category', () => {
  const grid = '<ul><li class="product-card"><a href="/products/x-1"><span class="title">X</span></a></li></ul>';

  it('numbered /page/N/ links without rel=next or a "Next" label', () => {
    const nav =
      '<nav><span>1</span> <a href="/category/paper/page/2/">2</a> <a href="/category/paper/page/3/">3</a></nav>';
    expect(readHtmlListingPage(page('', grid + nav), 'https://s.test/category/paper', null).next).toBe(
      'https://s.test/category/paper/page/2/',
    );
    const on2 = '<nav><a href="/category/paper">1</a> <span>2</span> <a href="/category/paper/page/3/">3</a></nav>';
    expect(readHtmlListingPage(page('', grid + on2), 'https://s.test/category/paper/page/2/', null).next).toBe(
      'https://s.test/category/paper/page/3/',
    );
    const last = '<nav><a href="/category/paper/page/2/">2</a> <span>3</span></nav>';
    expect(readHtmlListingPage(page('', grid + last), 'https://s.test/category/paper/page/3/', null).next).toBeNull();
  });

  it('numbered ?page=N links and a next control named by its class', () => {
    const nav = '<nav><span>1</span> <a href="?page=2">2</a></nav>';
    expect(readHtmlListingPage(page('', grid + nav), 'https://s.test/collections/paper', null).next).toBe(
      'https://s.test/collections/paper?page=2',
    );
    const arrow = '<a class="pagination__next" href="/collections/paper?cursor=abc"><svg></svg></a>';
    expect(readHtmlListingPage(page('', grid + arrow), 'https://s.test/collections/paper', null).next).toBe(
      'https://s.test/collections/paper?cursor=abc',
    );
  });
});

describe('product pages of a sitemap', () => {
  it('the home page, a shop archive and collection pages are no product pages', () => {
    const origin = 'https://s.test';
    for (const url of [
      'https://s.test/',
      'https://www.s.test',
      'https://s.test/shop/',
      'https://s.test/products',
      'https://s.test/collections/paper',
      'https://s.test/product-category/paper/',
      'https://s.test/blogs/news/launch',
      'https://other.test/products/x',
    ])
      expect(isProductPage(url, origin), url).toBe(false);
    for (const url of [
      'https://s.test/products/a5-dot-grid-notebook-navy',
      'https://www.s.test/product/tote/',
      'https://s.test/collections/paper/products/tote',
      'https://s.test/shop/tote',
      'https://s.test/a5-notebook.html',
    ])
      expect(isProductPage(url, origin), url).toBe(true);
  });
});

describe('the sitemap method', () => {
  it('reads the category pages (named, priced cards) first; the sitemaps once every category ended', () => {
    const sequences = planSequences({
      method: 'sitemap',
      origin: 'https://s.test',
      productSitemaps: ['https://s.test/sitemap_products_1.xml'],
      primaryCount: null,
      collections: [{ key: 's.test/collections/paper', url: 'https://s.test/collections/paper', statedCount: null }],
    });
    const plan = { sequences, maxListings: null } as CrawlPlan;
    const first = planWave(plan, new Map(), 0);
    expect(first.map((t) => [t.kind, t.url, t.primary])).toEqual([['html', 'https://s.test/collections/paper', true]]);
    const ended = new Map<string, PageOutcome>([
      [`${first[0].seq}#1`, { seq: first[0].seq, n: 1, count: 3, full: false, next: null, failed: false }],
    ]);
    const second = planWave(plan, ended, 3);
    expect(second.map((t) => [t.kind, t.url])).toEqual([['sitemap', 'https://s.test/sitemap_products_1.xml']]);
    // The sitemap's listings sort after the categories' (max_listings keeps the named ones first).
    expect(second[0].order).toBeGreaterThan(first[0].order);
  });
});

describe("a product page's own structured data", () => {
  const url = 'https://s.test/products/tote';
  const read = (head: string, body = '') => {
    const got = readProductMarkup(page(head, body), url, 'USD');
    return [got.name, got.price?.current_value ?? null, got.price?.currency ?? null, got.images[0]?.url ?? null];
  };
  const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

  it('JSON-LD: a Product in @graph or a page mainEntity; the lowest offer; a ProductGroup priced by its variants', () => {
    const product = {
      '@type': 'Product',
      name: 'Canvas Tote &amp; Pouch',
      image: ['/i/1.jpg'],
      offers: [
        { '@type': 'Offer', price: '24.00', priceCurrency: 'EUR' },
        { '@type': 'Offer', price: '19.50', priceCurrency: 'EUR' },
      ],
    };
    expect(read(ld({ '@graph': [{ '@type': 'WebSite', name: 'S' }, product] }))).toEqual([
      'Canvas Tote & Pouch',
      19.5,
      'EUR',
      'https://s.test/i/1.jpg',
    ]);
    expect(
      read(
        ld({ '@type': 'ItemPage', mainEntity: { ...product, offers: { '@type': 'AggregateOffer', lowPrice: 12 } } }),
      ),
    ).toEqual(['Canvas Tote & Pouch', 12, 'USD', 'https://s.test/i/1.jpg']);
    const group = {
      '@type': 'ProductGroup',
      name: 'Tote',
      hasVariant: [{ offers: { price: 30 } }, { offers: { price: 28 } }],
    };
    expect(read(ld(group))).toEqual(['Tote', 28, 'USD', null]);
  });

  it("microdata: the product's own name (not its brand's), its offer's price and currency", () => {
    const body = `<div itemscope itemtype="https://schema.org/Product">
      <div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><meta itemprop="name" content="Acme"></div>
      <h1 itemprop="name">Canvas  Tote</h1><link itemprop="image" href="https://s.test/i/2.jpg">
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="1,299.00"><meta itemprop="priceCurrency" content="GBP"></div>
    </div>`;
    expect(read('', body)).toEqual(['Canvas Tote', 1299, 'GBP', 'https://s.test/i/2.jpg']);
  });

  it("og: product meta fills what the rest leaves out; a page that states nothing gives nulls, not its text or related products'", () => {
    const og = `<meta property="og:type" content="product"><meta property="og:title" content="Canvas Tote"><meta property="product:price:amount" content="18.00"><meta property="product:price:currency" content="CAD">`;
    expect(read(og)).toEqual(['Canvas Tote', 18, 'CAD', null]);
    expect(read(ld({ '@type': 'Product', name: 'From LD' }) + og)).toEqual(['From LD', 18, 'CAD', null]);
    const bare =
      '<h1 class="product-title">Canvas Tote</h1><span class="price">$18.00</span><div class="related-item"><a href="/products/x">X</a> <span class="price">$9.00</span></div>';
    expect(read('<meta property="og:title" content="Canvas Tote | S">', bare)).toEqual([null, null, null, null]);
  });
});
