// The crawl's planner and page readers as pure functions: waves of listing pages (known counts,
// unknown ends probed in doubling waves, HTML next links, ?page=N templates, max_listings), the
// batching of a wave, paging templates, sitemap classification and card parsing.
import { describe, expect, it } from 'vitest';
import { batchesOf, pagingTemplate, planWave } from '../../lambdas/domain/crawl/steps';
import { classifySitemaps, readHtmlListingPage, shopifyListings, wooListings } from '../../lambdas/domain/crawl/parse';
import type { CrawlPlan, PageOutcome, Sequence } from '../../lambdas/domain/crawl/model';

const seq = (over: Partial<Sequence>): Sequence => ({
  id: 'p',
  kind: 'shopify-products',
  collection: null,
  primary: true,
  url: 'https://s.test/products.json?limit=250',
  pageSize: 250,
  knownPages: null,
  planned: 0,
  from: 1,
  open: true,
  next: null,
  order: 0,
  ...over,
});
const plan = (sequences: Sequence[], maxListings: number | null = null) => ({ sequences, maxListings }) as CrawlPlan;
const outcome = (
  s: string,
  n: number,
  count: number,
  full: boolean,
  next: string | null = null,
): [string, PageOutcome] => [`${s}#${n}`, { seq: s, n, count, full, next, failed: false }];

describe('planWave', () => {
  it('plans a known page count at once and closes after it', () => {
    const p = plan([seq({ knownPages: 3 })]);
    expect(planWave(p, new Map(), 0).map((t) => t.url)).toEqual(
      [1, 2, 3].map((n) => `https://s.test/products.json?limit=250&page=${n}`),
    );
    expect(
      planWave(p, new Map([outcome('p', 1, 250, true), outcome('p', 2, 250, true), outcome('p', 3, 10, false)]), 510),
    ).toEqual([]);
    expect(p.sequences[0].open).toBe(false);
  });

  it('probes an unknown end from the hint, then in doubling waves, and stops at the first short page', () => {
    const p = plan([seq({ hintPages: 10 })]);
    expect(planWave(p, new Map(), 0).length).toBe(10);
    const full = new Map(Array.from({ length: 10 }, (_, k) => outcome('p', k + 1, 250, true)));
    const second = planWave(p, full, 2500);
    expect(second.map((t) => t.n)).toEqual(Array.from({ length: 10 }, (_, k) => 11 + k));
    const ended = new Map([
      ...full,
      ...Array.from({ length: 10 }, (_, k) => outcome('p', 11 + k, k < 3 ? 250 : 0, k < 3)),
    ]);
    expect(planWave(p, ended, 3250)).toEqual([]);
  });

  it('follows HTML next links one page at a time, and plans ahead once page 1 shows ?page=N', () => {
    const links = plan([seq({ id: 'c0', kind: 'html', url: 'https://s.test/c/a', pageSize: 0 })]);
    expect(planWave(links, new Map(), 0).map((t) => t.url)).toEqual(['https://s.test/c/a']);
    const byLink = planWave(links, new Map([outcome('c0', 1, 24, false, 'https://s.test/c/a/next-one')]), 24);
    expect(byLink.map((t) => t.url)).toEqual(['https://s.test/c/a/next-one']);

    const numbered = plan([seq({ id: 'c1', kind: 'html', url: 'https://s.test/collections/b', pageSize: 0 })]);
    planWave(numbered, new Map(), 0);
    const ahead = planWave(numbered, new Map([outcome('c1', 1, 24, false, 'https://s.test/collections/b?page=2')]), 24);
    expect(ahead.length).toBeGreaterThan(1);
    expect(ahead[0].url).toBe('https://s.test/collections/b?page=2');
    expect(ahead[0].pageSize).toBe(24);
  });

  it('a page 1 with an extra featured card does not end numbered paging at the shorter page 2', () => {
    const c = 'https://s.test/collections/b';
    const p = plan([seq({ id: 'c1', kind: 'html', url: c, pageSize: 0 })]);
    planWave(p, new Map(), 0);
    const ahead = planWave(p, new Map([outcome('c1', 1, 25, false, `${c}?page=2`)]), 25);
    const pages = ahead.map((t) => t.n);
    // Pages 2.. show 24 cards and link their next page: the sequence goes on past them.
    const shorter = new Map(pages.map((n) => outcome('c1', n, 24, false, `${c}?page=${n + 1}`)));
    const more = planWave(p, shorter, 25 + 24 * pages.length);
    expect(more[0]?.n).toBe(pages[pages.length - 1] + 1);
    // The last page links no next page: it ends there.
    const last = new Map(more.map((t, k) => outcome('c1', t.n, k === 0 ? 10 : 0, false)));
    expect(planWave(p, last, 0)).toEqual([]);
    expect(p.sequences[0].open).toBe(false);
  });

  it('never plans more primary pages than max_listings can use, and stops once it is reached', () => {
    const p = plan([seq({})], 300);
    expect(planWave(p, new Map(), 0).length).toBe(2);
    expect(planWave(p, new Map([outcome('p', 1, 250, true), outcome('p', 2, 250, true)]), 500)).toEqual([]);
  });

  it('reads the product pages of what each sitemap added, in discovery order, no more than max_listings keeps', () => {
    const sitemap = (id: string, order: number) =>
      seq({ id, kind: 'sitemap', url: `https://s.test/${id}.xml`, pageSize: 0, knownPages: 1, order });
    const p = plan([sitemap('s0', 3), sitemap('s1', 4), sitemap('s2', 5)], 40);
    expect(planWave(p, new Map(), 0).map((t) => t.seq)).toEqual(['s0', 's1', 's2']);
    // s0 added 25 listings no category lists, s1 30, s2 none.
    const read = new Map([outcome('s0', 1, 25, false), outcome('s1', 1, 30, false), outcome('s2', 1, 0, false)]);
    const tasks = planWave(p, read, 55);
    expect(tasks.map((t) => [t.seq, t.n, t.kind])).toEqual([
      ['s0p', 1, 'product'],
      ['s0p', 2, 'product'],
      ['s0p', 3, 'product'],
      // 25 read in s0's, 15 left of the 40 max_listings keeps: two tasks of ten.
      ['s1p', 1, 'product'],
      ['s1p', 2, 'product'],
    ]);
    // A product page's listing keeps the order its sitemap gave it.
    expect(tasks[1].order - tasks[0].order).toBe(10);
    expect(tasks[3].order).toBe(planWave(plan([sitemap('s1', 4)]), new Map(), 0)[0].order);
    expect(p.sequences.map((s) => s.id)).toEqual(['s0', 's1', 's2', 's0p', 's1p']);
    const done = new Map(tasks.map((t) => outcome(t.seq, t.n, 10, false)));
    expect(planWave(p, done, 55)).toEqual([]);
    expect(p.sequences.every((s) => !s.open)).toBe(true);
  });

  it('batches a wave with stable ids', () => {
    const tasks = planWave(plan([seq({ knownPages: 9 })]), new Map(), 0);
    expect(batchesOf(3, tasks).map((b) => [b.id, b.pages.length])).toEqual([
      ['w3-0', 4],
      ['w3-1', 4],
      ['w3-2', 1],
    ]);
  });
});

describe('page readers', () => {
  it('paging templates', () => {
    expect(pagingTemplate('https://s.test/c/a', 'https://s.test/c/a?page=2')).toBe('query');
    expect(pagingTemplate('https://s.test/product-category/a/', 'https://s.test/product-category/a/page/2/')).toBe(
      'path',
    );
    expect(pagingTemplate('https://s.test/c/a', 'https://s.test/c/a?cursor=xyz')).toBeNull();
  });

  it('sitemap kinds by name', () => {
    expect(
      classifySitemaps([
        'https://s.test/sitemap_products_1.xml',
        'https://s.test/product_cat-sitemap.xml',
        'https://s.test/sitemap_collections_1.xml',
        'https://s.test/pages.xml',
      ]),
    ).toEqual({
      products: ['https://s.test/sitemap_products_1.xml'],
      collections: ['https://s.test/product_cat-sitemap.xml', 'https://s.test/sitemap_collections_1.xml'],
      other: ['https://s.test/pages.xml'],
    });
  });

  it('Shopify JSON: lowest variant price with its compare-at (only when higher), images with sizes', () => {
    const body = JSON.stringify({
      products: [
        {
          handle: 'tee',
          title: 'Tee',
          variants: [
            { price: '20.00', compare_at_price: '25.00' },
            { price: '18.00', compare_at_price: '15.00' },
          ],
          images: [{ id: 7, src: 'https://cdn/x.png', width: 800, height: 600, position: 1 }],
        },
      ],
    });
    expect(shopifyListings(body, 'https://s.test', 'EUR')).toEqual([
      {
        url: 'https://s.test/products/tee',
        name: 'Tee',
        images: [{ id: '7', url: 'https://cdn/x.png', width: 800, height: 600, position: 1 }],
        price: { currency: 'EUR', current_value: 18, compare_at_value: null },
      },
    ]);
    expect(shopifyListings('{"errors":"Not Found"}', 'https://s.test', null)).toBeNull();
  });

  it('WooCommerce Store API: minor units by the currency block, regular price as compare-at', () => {
    const body = JSON.stringify([
      {
        permalink: 'https://w.test/product/mug/',
        name: 'Mug &amp; Co',
        prices: { price: '1250', regular_price: '1500', currency_code: 'GBP', currency_minor_unit: 2 },
        images: [],
      },
    ]);
    expect(wooListings(body)).toEqual([
      {
        url: 'https://w.test/product/mug/',
        name: 'Mug & Co',
        images: [],
        price: { currency: 'GBP', current_value: 12.5, compare_at_value: 15 },
      },
    ]);
  });

  it('HTML cards: innermost card, title, image, displayed price; rel=next', () => {
    const html = `<link rel="next" href="/c/a?page=2"><ul class="product-grid"><li class="product-card"><a href="/products/a-1"><img src="/i/a.png" width="10" height="20"><span class="title">Blue Shirt</span></a><span class="price">$12.00</span></li></ul><a href="/cart">cart</a>`;
    const read = readHtmlListingPage(html, 'https://h.test/c/a', null);
    expect(read.next).toBe('https://h.test/c/a?page=2');
    expect(read.listings).toEqual([
      {
        url: 'https://h.test/products/a-1',
        name: 'Blue Shirt',
        images: [{ id: expect.any(String), url: 'https://h.test/i/a.png', width: 10, height: 20, position: 1 }],
        price: { currency: 'USD', current_value: 12, compare_at_value: null },
      },
    ]);
  });
});
