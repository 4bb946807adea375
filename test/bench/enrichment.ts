// `npm run bench -- enrichment`: per-product latency of the offline enricher (first call, which
// loads and indexes the taxonomy, and warm calls) and how often each field gets a value, on real
// product-page titles of the extraction benchmark and on WANDS shopping queries.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import type { Enrichment, EnrichmentInput } from '../../lambdas/ports/enricher';
import { CORPORA } from '../corpora';

const corpora = CORPORA;

function decode(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Each saved page's og:title (else <title>) and meta description. */
function benchmarkProducts(): EnrichmentInput[] {
  const dir = path.join(corpora, 'product-extraction-benchmark/html');
  const out: EnrichmentInput[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.html.gz'))) {
    const html = gunzipSync(readFileSync(path.join(dir, file))).toString('utf8');
    const og = /<meta[^>]+property=["']og:title["'][^>]+content=["']([^"']+)/i.exec(html)?.[1];
    const title = og ?? /<title[^>]*>([^<]*)/i.exec(html)?.[1] ?? '';
    const description = /<meta[^>]+name=["']description["'][^>]+content=["']([^"']+)/i.exec(html)?.[1] ?? null;
    out.push(blank({ title: decode(title), description: description ? decode(description) : null }));
  }
  return out;
}

function wandsQueries(): EnrichmentInput[] {
  return readFileSync(path.join(corpora, 'search-queries/wands/query.csv'), 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((row) => blank({ title: row.split('\t')[1] ?? '' }));
}

function blank(partial: Partial<EnrichmentInput>): EnrichmentInput {
  return {
    title: null,
    description: null,
    brand: null,
    tags: [],
    storeProductType: null,
    options: {},
    breadcrumbs: [],
    ...partial,
  };
}

const FIELDS: [string, (e: Enrichment) => boolean][] = [
  ['taxonomy', (e) => e.taxonomy_product_category_id !== null],
  ['product_type', (e) => e.product_type !== null],
  ['color', (e) => Boolean(e.attributes.color?.merchant_label)],
  ['color family', (e) => Boolean(e.attributes.color?.iscc_family)],
  ['material', (e) => Boolean(e.attributes.material?.primary)],
  ['gender', (e) => Boolean(e.attributes.gender)],
  ['age_group', (e) => Boolean(e.attributes.age_group)],
  ['season', (e) => Boolean(e.attributes.season?.length)],
  ['pattern', (e) => Boolean(e.attributes.pattern)],
  ['summary', (e) => Boolean(e.attributes.summary)],
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export default async function bench(): Promise<void> {
  const enricher = createOfflineEnricher();
  const sets: [string, EnrichmentInput[]][] = [
    ['benchmark pages (og:title + meta description)', benchmarkProducts()],
    ['WANDS queries as titles', wandsQueries()],
  ];

  const t0 = performance.now();
  await enricher.enrich(blank({ title: 'Cotton T-Shirt' }));
  console.log(`first call (loads + indexes 10,595 categories): ${(performance.now() - t0).toFixed(0)} ms`);

  for (const [name, inputs] of sets) {
    // Three passes: the first warms the JIT; the figures are those of the last.
    let times: number[] = [];
    let results: Enrichment[] = [];
    for (let pass = 0; pass < 3; pass++) {
      times = [];
      results = [];
      for (const input of inputs) {
        const start = performance.now();
        results.push(await enricher.enrich(input));
        times.push(performance.now() - start);
      }
    }
    times.sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(`\n${name}: ${inputs.length} products`);
    console.log(
      `  warm latency per product: mean ${mean.toFixed(2)} ms, p50 ${percentile(times, 50).toFixed(2)} ms, ` +
        `p95 ${percentile(times, 95).toFixed(2)} ms, max ${times[times.length - 1].toFixed(2)} ms`,
    );
    for (const [field, has] of FIELDS) {
      const n = results.filter(has).length;
      console.log(
        `  ${field.padEnd(14)} ${String(n).padStart(4)}/${results.length} (${((100 * n) / results.length).toFixed(0)}%)`,
      );
    }
    if (process.argv.includes('--show')) {
      inputs.forEach((input, i) =>
        console.log(
          `  ${(input.title ?? '').slice(0, 60).padEnd(60)} => ${results[i].taxonomy_product_category_path ?? 'null'}`,
        ),
      );
    }
  }
}
