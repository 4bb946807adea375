import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSitemap, decodeEntities } from '../../lambdas/domain/extraction/sitemap';
import { CORPORA } from '../corpora';

const corpus = path.join(CORPORA, 'sitemaps');
interface SitemapCase {
  id: string;
  file: string;
  expected_type: 'urlset' | 'sitemapindex' | null;
  expected_entries: Array<Record<string, string | string[]>>;
}
const { cases } = JSON.parse(readFileSync(path.join(corpus, 'cases.json'), 'utf8')) as { cases: SitemapCase[] };

describe('sitemap corpus (Scrapy cases)', () => {
  it('has the 9 cases', () => expect(cases).toHaveLength(9));

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const result = parseSitemap(readFileSync(path.join(corpus, c.file)));
    if (c.expected_type) expect(result.type).toBe(c.expected_type);
    else expect(['urlset', 'sitemapindex']).toContain(result.type);
    const actual = result.entries.map((entry, i) => {
      const wanted = c.expected_entries[i] ?? {};
      const shaped: Record<string, unknown> = {};
      for (const key of Object.keys(wanted)) {
        if (key === 'alternate') shaped.alternate = entry.alternates;
        else if (key === 'priority') shaped.priority = entry.priority === null ? '' : String(entry.priority);
        else shaped[key] = (entry as unknown as Record<string, unknown>)[key] ?? '';
      }
      return shaped;
    });
    expect(actual).toEqual(c.expected_entries);
  });

  it('never expands the XXE entity and says the DOCTYPE was refused', () => {
    const xml = readFileSync(path.join(corpus, 'xml/scrapy_test_xml_entity_expansion.xml'), 'utf8');
    const result = parseSitemap(xml);
    expect(result.doctypeRefused).toBe(true);
    expect(JSON.stringify(result)).not.toContain('root:');
    expect(result.entries.map((e) => e.loc)).toEqual(['http://127.0.0.1:8000/']);
  });
});

describe('sitemap details', () => {
  const productSitemap = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc><![CDATA[https://shop.example/products/red-shirt?a=1&b=2]]></loc>
    <lastmod>2024-05-01T10:00:00Z</lastmod>
    <changefreq>daily</changefreq>
    <image:image>
      <image:loc>https://cdn.example/red.jpg</image:loc>
      <image:title>Red &amp; Co shirt</image:title>
    </image:image>
  </url>
  <url><loc>https://shop.example/products/x?a=1&amp;b=&#50;</loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
  <url><loc>/products/relative</loc></url>
</urlset>`;

  it('reads CDATA, images, entities and skips entries without a usable loc', () => {
    const result = parseSitemap(productSitemap);
    expect(result.type).toBe('urlset');
    expect(result.problem).toBeNull();
    expect(result.entries.map((e) => e.loc)).toEqual([
      'https://shop.example/products/red-shirt?a=1&b=2',
      'https://shop.example/products/x?a=1&b=2',
    ]);
    expect(result.entries[0].images).toEqual([
      { loc: 'https://cdn.example/red.jpg', title: 'Red & Co shirt', caption: null },
    ]);
    expect(result.entries[0].lastmod).toBe('2024-05-01T10:00:00Z');
  });

  it('resolves relative locs against a base URL', () => {
    const result = parseSitemap(productSitemap, { baseUrl: 'https://shop.example/sitemap.xml' });
    expect(result.entries.map((e) => e.loc)).toContain('https://shop.example/products/relative');
  });

  it('reads gzip bodies and caps their uncompressed size', () => {
    const gz = gzipSync(Buffer.from(productSitemap));
    expect(parseSitemap(gz).entries).toHaveLength(2);
    const bomb = gzipSync(Buffer.alloc(5_000_000, 0x20));
    expect(parseSitemap(bomb, { maxBytes: 1_000_000 }).problem).toMatch(/exceeds/);
    expect(parseSitemap(Uint8Array.from([0x1f, 0x8b, 1, 2, 3])).problem).toBe('invalid gzip data');
  });

  it('caps the number of entries', () => {
    const many = `<urlset>${Array.from({ length: 20 }, (_, i) => `<url><loc>https://a.example/${i}</loc></url>`).join('')}</urlset>`;
    const result = parseSitemap(many, { maxEntries: 5 });
    expect(result.entries).toHaveLength(5);
    expect(result.truncated).toBe(true);
  });

  it('reads plain-text sitemaps and refuses non-sitemaps with a reason', () => {
    expect(parseSitemap('https://a.example/1\n\nhttps://a.example/2\nnot a url\n').entries.map((e) => e.loc)).toEqual([
      'https://a.example/1',
      'https://a.example/2',
    ]);
    expect(parseSitemap('<html><body>hi</body></html>').problem).toMatch(/root element <html>/);
    expect(parseSitemap('').problem).toBe('empty body');
    expect(parseSitemap('<urlset><url><loc>https://a.example/</loc></url>').type).not.toBe('sitemapindex');
  });

  it('does not let an entity bomb expand', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><urlset><url><loc>https://a.example/&lol2;</loc></url></urlset>`;
    const result = parseSitemap(bomb);
    expect(result.doctypeRefused).toBe(true);
    expect(result.entries.map((e) => e.loc)).toEqual(['https://a.example/']);
  });

  it('decodes only predefined and numeric entities', () => {
    expect(decodeEntities('a&amp;b&lt;&#x41;&#66;&nbsp;&xxe;')).toBe('a&b<AB');
  });
});
