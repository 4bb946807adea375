// non_product_url classification: precision/recall on the corpora's labelled pages
// (page-type-labels) and on the store simulator's home, category, blog, search and cart pages
// beside its product pages. `npm run bench -- page-types`
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { startStoreSimulator } from '../stores';
import { QUALITY_STORE_SPECS, qualityPageIsProduct } from '../stores/quality-pages';
import { CORPORA } from '../corpora';

interface Tally {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  misses: string[];
}

/** Non-product is the positive class: the engine would answer non_product_url. */
function judge(html: string, url: string): boolean {
  const { classification, merged } = readProductPage(html, url, { countryCode: 'us' });
  return !classification.isProduct || !merged.title;
}

function add(t: Tally, predictedNonProduct: boolean, isNonProduct: boolean, label: string) {
  if (predictedNonProduct && isNonProduct) t.tp++;
  else if (predictedNonProduct) {
    t.fp++;
    t.misses.push(`product called non-product: ${label}`);
  } else if (isNonProduct) {
    t.fn++;
    t.misses.push(`non-product called product: ${label}`);
  } else t.tn++;
}

function report(name: string, t: Tally) {
  const p = t.tp + t.fp ? t.tp / (t.tp + t.fp) : 1;
  const r = t.tp + t.fn ? t.tp / (t.tp + t.fn) : 1;
  console.log(
    `${name}: non_product precision ${p.toFixed(3)} recall ${r.toFixed(3)} (tp ${t.tp} fp ${t.fp} fn ${t.fn} tn ${t.tn})`,
  );
  for (const m of t.misses) console.log(`  ${m}`);
}

function get(origin: string, host: string, pathAndQuery: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}${pathAndQuery}`, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

export default async function main(): Promise<void> {
  const labels = JSON.parse(readFileSync(path.join(CORPORA, 'page-type-labels', 'labels.json'), 'utf8')) as {
    pages: Array<{ file: string; url: string; label: string }>;
  };
  const corpus: Tally = { tp: 0, fp: 0, fn: 0, tn: 0, misses: [] };
  for (const page of labels.pages) {
    if (page.label === 'ambiguous') continue;
    const raw = readFileSync(path.join(CORPORA, page.file));
    const html = page.file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
    add(corpus, judge(html, page.url), page.label === 'non_product', `${page.file} (${page.url})`);
  }
  report(`corpora/page-type-labels (${labels.pages.filter((p) => p.label !== 'ambiguous').length} pages)`, corpus);

  const sim = await startStoreSimulator({ productsPerStore: 10 });
  const simTally: Tally = { tp: 0, fp: 0, fn: 0, tn: 0, misses: [] };
  const qualityTally: Tally = { tp: 0, fp: 0, fn: 0, tn: 0, misses: [] };
  try {
    for (const store of sim.stores.filter((s) => !s.behaviour || s.behaviour === 'stale-jsonld')) {
      for (const [kind, url] of Object.entries(store.nonProductUrls)) {
        const u = new URL(url);
        const page = await get(sim.origin, store.host, `${u.pathname}${u.search}`);
        add(simTally, page.status >= 400 || judge(page.body, url), true, `${store.host} ${kind}`);
      }
      for (const i of [0, 1, 2]) {
        const page = await get(sim.origin, store.host, store.productPath(i));
        add(simTally, judge(page.body, store.productUrl(i)), false, `${store.host} product ${i}`);
      }
    }
    // The extraction-quality hosts (logo-first h1, title only in <title>, plain-text local prices...).
    for (const spec of QUALITY_STORE_SPECS) {
      const store = sim.store(spec.host);
      for (const [kind, url] of Object.entries(store.nonProductUrls)) {
        const u = new URL(url);
        const page = await get(sim.origin, store.host, `${u.pathname}${u.search}`);
        add(qualityTally, page.status >= 400 || judge(page.body, url), true, `${store.host} ${kind}`);
      }
      for (let i = 0; i < 10; i++) {
        const page = await get(sim.origin, store.host, store.productPath(i));
        const isProduct = qualityPageIsProduct(store.host, store.product(i));
        add(qualityTally, judge(page.body, store.productUrl(i)), !isProduct, `${store.host} product ${i}`);
      }
    }
  } finally {
    await sim.close();
  }
  report('store simulator (home, category, blog, search, cart vs product pages)', simTally);
  report('store simulator quality hosts (issue 11 page classes, 10 products each)', qualityTally);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
