// Extraction accuracy on the product-extraction-benchmark development split (94 real pages),
// scored the upstream way, printed beside Zyte, Diffbot and extruct on the same pages; then the
// metascraper-shopping trap pages. No network. `npm run bench -- extraction-accuracy`
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { parsePrice } from '../../lambdas/domain/extraction/price';
import { CORPORA } from '../corpora';

export { CORPORA };
const BENCH = path.join(CORPORA, 'product-extraction-benchmark');

export interface BenchPage {
  id: string;
  url: string;
  html: string;
  truth: Record<string, string[] | string>;
}

export function countryOf(url: string): string {
  const host = new URL(url).hostname;
  const tld = host.split('.').pop()!;
  if (host.endsWith('.co.uk') || tld === 'uk') return 'gb';
  if (tld.length === 2) return tld;
  return 'us';
}

export function loadBenchmarkPages(): BenchPage[] {
  const truth = JSON.parse(readFileSync(path.join(BENCH, 'ground-truth.json'), 'utf8')) as Record<string, Record<string, string[] | string>>;
  const files = new Set(readdirSync(path.join(BENCH, 'html')));
  return Object.entries(truth)
    .filter(([id]) => files.has(`${id}.html.gz`))
    .map(([id, t]) => ({ id, url: t.url as string, truth: t, html: gunzipSync(readFileSync(path.join(BENCH, 'html', `${id}.html.gz`))).toString('utf8') }));
}

export interface Prediction {
  price?: string | number | null;
  currency?: string | null;
  availability?: string | null;
  sku?: string | null;
  brand?: string | null;
}

type Counts = { tp: number; fp: number; fn: number };
const FIELDS = ['price', 'currency', 'availability', 'InStock', 'OutOfStock', 'sku', 'brand'] as const;

function currencyIso(token: string | null | undefined, url: string): string | null {
  if (!token) return null;
  if (/^[A-Z]{3}$/.test(token)) return token;
  return parsePrice(`${token} 1`, { countryCode: countryOf(url) }).currency ?? token;
}

const norm = (s: unknown) => String(s ?? '').trim().toLowerCase().replace(/\s+/g, ' ');

function matches(field: string, predicted: unknown, accepted: string[], url: string): boolean {
  if (field === 'price') return accepted.some((a) => Math.abs(Number(a) - Number(predicted)) < 0.005);
  if (field === 'currency') return accepted.some((a) => currencyIso(a, url) === currencyIso(String(predicted), url));
  return accepted.some((a) => norm(a) === norm(predicted));
}

export function score(pages: BenchPage[], predictions: Record<string, Prediction>): Record<string, Counts> {
  const out: Record<string, Counts> = {};
  for (const f of FIELDS) out[f] = { tp: 0, fp: 0, fn: 0 };
  for (const page of pages) {
    const p = predictions[page.id] ?? {};
    // Upstream: availability is required; an empty prediction means InStock.
    const availability = p.availability ? (/out|discontinued/i.test(p.availability) ? 'OutOfStock' : 'InStock') : 'InStock';
    const values: Record<string, unknown> = { ...p, availability, InStock: availability === 'InStock' ? 'InStock' : null, OutOfStock: availability === 'OutOfStock' ? 'OutOfStock' : null };
    for (const f of FIELDS) {
      const accepted = (page.truth[f] as string[] | undefined) ?? [];
      const predicted = values[f];
      const has = predicted != null && predicted !== '';
      if (has && accepted.length && matches(f, predicted, accepted, page.url)) out[f].tp++;
      else {
        if (has) out[f].fp++;
        if (accepted.length) out[f].fn++;
      }
    }
  }
  return out;
}

function prf(c: Counts): string {
  const p = c.tp + c.fp ? c.tp / (c.tp + c.fp) : 0;
  const r = c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0;
  const f = p + r ? (2 * p * r) / (p + r) : 0;
  return `${f.toFixed(3)} (P ${p.toFixed(2)} R ${r.toFixed(2)})`;
}

export function engineAvailability(a: string | null): string | null {
  if (!a) return null;
  return a === 'OutOfStock' || a === 'Discontinued' ? 'OutOfStock' : 'InStock';
}

export function predictWithEngine(pages: BenchPage[]): Record<string, Prediction> {
  const predictions: Record<string, Prediction> = {};
  for (const page of pages) {
    const { merged } = readProductPage(page.html, page.url, { countryCode: countryOf(page.url) });
    predictions[page.id] = { price: merged.price, currency: merged.currency, availability: engineAvailability(merged.availability), sku: merged.sku, brand: merged.brand };
  }
  return predictions;
}

function peer(name: string): Record<string, Prediction> {
  return JSON.parse(readFileSync(path.join(BENCH, 'output', `${name}.json`), 'utf8'));
}

function metascraperShopping(): void {
  const dir = path.join(CORPORA, 'metascraper-shopping');
  const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { cases: Array<{ file: string; url: string; asserted_by_test: { price: number | null } | null; read_off_page: Record<string, unknown> }> };
  let right = 0;
  let total = 0;
  console.log('\nmetascraper-shopping (price; expected = upstream test assertion, else the page\'s agreed price)');
  for (const c of expected.cases) {
    const html = gunzipSync(readFileSync(path.join(dir, c.file))).toString('utf8');
    const { merged, classification } = readProductPage(html, c.url, { countryCode: 'us' });
    const want = c.asserted_by_test ? c.asserted_by_test.price : ((c.read_off_page.price as number | undefined) ?? null);
    const ok = want == null ? merged.price == null : merged.price != null && Math.abs(merged.price - want) < 0.005;
    total++;
    if (ok) right++;
    console.log(`  ${ok ? 'ok  ' : 'MISS'} ${path.basename(c.file).padEnd(28)} expected ${String(want).padEnd(8)} got ${String(merged.price).padEnd(8)} ${merged.currency ?? ''} compare_at ${merged.compareAt ?? '-'} avail ${merged.availability ?? '-'} product=${classification.isProduct} (${merged.provenance.price ?? 'none'})`);
  }
  console.log(`  ${right}/${total} prices right`);
}

export default async function main(): Promise<void> {
  const pages = loadBenchmarkPages();
  const started = performance.now();
  const engine = predictWithEngine(pages);
  const ms = performance.now() - started;
  const systems: Array<[string, Record<string, Prediction>]> = [['engine', engine], ['Zyte', peer('Zyte')], ['Diffbot', peer('Diffbot')], ['extruct', peer('extruct')]];
  const scored = systems.map(([name, preds]) => [name, score(pages, preds)] as const);
  console.log(`product-extraction-benchmark: ${pages.length} pages (development split), engine ${ms.toFixed(0)} ms total`);
  console.log(`F1 (precision, recall)`.padEnd(14) + systems.map(([n]) => n.padEnd(26)).join(''));
  for (const f of FIELDS) {
    const support = pages.filter((p) => ((p.truth[f] as string[] | undefined) ?? []).length).length;
    console.log(`${f.padEnd(14)}` + scored.map(([, s]) => prf(s[f]).padEnd(26)).join('') + `support ${support}`);
  }
  if (process.env.BENCH_VERBOSE) {
    for (const page of pages) {
      const e = engine[page.id];
      const z = peer('Zyte')[page.id] ?? {};
      const t = page.truth;
      const okP = ((t.price as string[]) ?? []).some((a) => Math.abs(Number(a) - Number(e.price)) < 0.005);
      if (!okP || process.env.BENCH_VERBOSE === 'all')
        console.log(`${page.id.slice(0, 8)} ${okP ? 'ok' : 'XX'} price ${e.price} truth ${JSON.stringify(t.price)} zyte ${z.price} | avail ${e.availability} truth ${JSON.stringify(t.availability)} | sku ${e.sku} truth ${JSON.stringify(t.sku)} | ${page.url.slice(0, 70)}`);
    }
  }
  metascraperShopping();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
