// `npm run bench -- sitemaps`: the 9 Scrapy corpus cases, then parse speed on a generated
// 50,000-URL product sitemap (plain and gzip) with image extensions. Prints figures only.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseSitemap } from '../../lambdas/domain/extraction/sitemap';
import { CORPORA } from '../corpora';

const corpus = path.join(CORPORA, 'sitemaps');

export default async function run(): Promise<void> {
  const { cases } = JSON.parse(readFileSync(path.join(corpus, 'cases.json'), 'utf8')) as {
    cases: Array<{
      id: string;
      file: string;
      expected_type: string | null;
      expected_entries: Array<Record<string, unknown>>;
    }>;
  };
  let pass = 0;
  for (const c of cases) {
    const result = parseSitemap(readFileSync(path.join(corpus, c.file)));
    const locsMatch =
      JSON.stringify(result.entries.map((e) => e.loc)) === JSON.stringify(c.expected_entries.map((e) => e.loc));
    const typeMatch = !c.expected_type || result.type === c.expected_type;
    if (locsMatch && typeMatch) pass++;
    else console.log(`  FAIL ${c.id}`);
  }
  console.log(`sitemap corpus cases: ${pass}/${cases.length} (loc lists and root type)`);

  const urls = 50_000;
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n${Array.from(
    { length: urls },
    (_, i) =>
      `<url><loc>https://shop.example/products/item-${i}</loc><lastmod>2024-05-01</lastmod><changefreq>daily</changefreq><image:image><image:loc>https://cdn.example/${i}.jpg</image:loc><image:title>Item ${i}</image:title></image:image></url>`,
  ).join('\n')}\n</urlset>`;
  const gz = gzipSync(Buffer.from(xml));
  for (const [label, body] of [
    ['plain', xml],
    ['gzip', gz],
  ] as const) {
    const heapBefore = process.memoryUsage().heapUsed;
    const start = process.hrtime.bigint();
    const result = parseSitemap(body);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    console.log(
      `${label.padEnd(5)} ${(Buffer.byteLength(typeof body === 'string' ? body : body) / 1024 / 1024).toFixed(2)} MB, ${result.entries.length} entries in ${ms.toFixed(0)} ms (${Math.round(result.entries.length / (ms / 1000))} entries/s), heap +${heapMb.toFixed(0)} MB`,
    );
  }
}
