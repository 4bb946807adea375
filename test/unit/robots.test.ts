import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRobots, patternMatches, ALLOW_ALL, DISALLOW_ALL } from '../../lambdas/domain/extraction/robots';
import { CORPORA } from '../corpora';

const corpus = path.join(CORPORA, 'robots-txt');

interface RobotsCase {
  id: string;
  suite: string;
  test: string;
  robots_txt: string;
  check: 'can_fetch' | 'crawl_delay' | 'sitemaps';
  url?: string;
  user_agent?: string;
  expected: boolean | number | null | string[];
}

const { cases } = JSON.parse(readFileSync(path.join(corpus, 'cases.json'), 'utf8')) as { cases: RobotsCase[] };

describe('robots.txt corpus (Google spec + Protego cases)', () => {
  it('has all 381 cases', () => {
    expect(cases).toHaveLength(381);
  });

  it.each(
    cases.map((c) => [`${c.id} ${c.suite}/${c.test} ${c.check} ${c.url ?? ''} ${c.user_agent ?? ''}`, c] as const),
  )('%s', (_name, c) => {
    const rules = parseRobots(c.robots_txt);
    if (c.check === 'can_fetch') expect(rules.canFetch(c.url!, c.user_agent!)).toBe(c.expected);
    else if (c.check === 'crawl_delay') expect(rules.crawlDelay(c.user_agent!)).toBe(c.expected);
    else expect([...rules.sitemaps].sort()).toEqual([...(c.expected as string[])].sort());
  });
});

describe('real robots.txt files', () => {
  const index = JSON.parse(readFileSync(path.join(corpus, 'real-index.json'), 'utf8')) as {
    files: Array<{ file: string; bytes: number; encoding: string; sitemaps_read_off: string[] }>;
  };
  const files = readdirSync(path.join(corpus, 'real')).filter((f) => f.endsWith('.robots.txt'));

  it('parses every one of the 84 files without throwing and answers queries', () => {
    expect(files).toHaveLength(84);
    for (const file of files) {
      const text = readFileSync(path.join(corpus, 'real', file), 'latin1');
      const rules = parseRobots(text);
      expect(typeof rules.canFetch('https://example.com/cart', 'ProductDataService')).toBe('boolean');
      expect(typeof rules.canFetch('/products/x?page=2', 'Googlebot')).toBe('boolean');
      const delay = rules.crawlDelay('ProductDataService');
      expect(delay === null || typeof delay === 'number').toBe(true);
    }
  });

  it('reads the same Sitemap: lines as the index (files within the 500 KiB limit)', () => {
    let compared = 0;
    for (const entry of index.files) {
      if (entry.bytes > 500 * 1024) continue;
      const rules = parseRobots(readFileSync(path.join(corpus, entry.file), 'utf8'));
      expect(rules.sitemaps, entry.file).toEqual(entry.sitemaps_read_off);
      compared++;
    }
    expect(compared).toBeGreaterThan(70);
  });

  it('blocks retail cart and checkout paths where the files say so', () => {
    const shopify = index.files.find((f) => f.file.includes('staples.ca'));
    expect(shopify).toBeDefined();
    const rules = parseRobots(readFileSync(path.join(corpus, shopify!.file), 'utf8'));
    expect(rules.canFetch('https://www.staples.ca/checkout', 'ProductDataService')).toBe(false);
    expect(rules.canFetch('https://www.staples.ca/products/some-chair', 'ProductDataService')).toBe(true);
  });
});

describe('parser details', () => {
  it('handles BOM, CRLF and comments', () => {
    const rules = parseRobots(
      '\ufeffUser-agent: *\r\nDisallow: /private # secret\r\nCrawl-delay: 2.5\r\nSitemap: https://a.example/s.xml\r\n',
    );
    expect(rules.canFetch('https://a.example/private/x', 'ProductDataService')).toBe(false);
    expect(rules.canFetch('https://a.example/public', 'ProductDataService')).toBe(true);
    expect(rules.crawlDelay('ProductDataService')).toBe(2.5);
    expect(rules.sitemaps).toEqual(['https://a.example/s.xml']);
  });

  it('always allows /robots.txt itself', () => {
    expect(parseRobots('User-agent: *\nDisallow: /').canFetch('/robots.txt', 'x')).toBe(true);
    expect(DISALLOW_ALL.canFetch('https://a.example/robots.txt', 'x')).toBe(true);
    expect(DISALLOW_ALL.canFetch('https://a.example/', 'x')).toBe(false);
    expect(ALLOW_ALL.canFetch('https://a.example/', 'x')).toBe(true);
  });

  it('resolves relative and upper-case sitemap URLs against a base URL', () => {
    const sitemapCorpus = path.join(CORPORA, 'sitemaps');
    const spec = JSON.parse(readFileSync(path.join(sitemapCorpus, 'cases.json'), 'utf8')).robots_to_sitemaps;
    const text = readFileSync(path.join(sitemapCorpus, spec.file), 'utf8');
    expect(parseRobots(text, { baseUrl: spec.base_url }).sitemaps).toEqual(spec.expected);
  });

  it('matches wildcards without catastrophic backtracking', () => {
    expect(patternMatches('/a*b*c$', '/a-x-b-y-c')).toBe(true);
    expect(patternMatches('/a*b*c$', '/a-x-b-y-c-d')).toBe(false);
    expect(patternMatches('/*.pdf', '/docs/file.pdf?x=1')).toBe(true);
    const evil = `/${'*a'.repeat(30)}b`;
    expect(patternMatches(evil, `/${'a'.repeat(2000)}`)).toBe(false);
  });
});
