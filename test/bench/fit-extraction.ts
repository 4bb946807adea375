// Fits the extraction engine's learned models (lambdas/domain/extraction/learned.ts) and writes
// lambdas/domain/extraction/weights.json. `npm run bench -- fit-extraction`
//
// Training pages: the product-extraction-benchmark (price, sku, brand), us-retail-pages (price,
// title), and for the page type also the corpora's page-type-labels and the store simulator's
// labelled pages (home, category, search, cart and blog pages; the quality hosts' product and
// non-product classes; one-of-many.test's prices, title-classes.test's names and prices). Each
// candidate of a field is one example, labelled by whether its value is an accepted one;
// logistic regression (full-batch gradient descent, L2, fixed iterations: deterministic), then
// the threshold below which a field is left empty, chosen for F1.
// The accuracy bench calls `fitModels` with one fold of shops left out (leave-shops-out).
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { analysePage } from '../../lambdas/domain/extraction/analyse';
import {
  brandCandidates,
  type Features,
  type FieldCandidate,
  pageFeatures,
  priceCandidates,
  type Readings,
  skuCandidates,
  titleCandidates,
} from '../../lambdas/domain/extraction/features';
import type { ExtractionWeights, LearnedField, Model } from '../../lambdas/domain/extraction/learned';
import { bareTitle, ruleReading } from '../../lambdas/domain/extraction/page';
import { CORPORA } from '../corpora';
import { startStoreSimulator } from '../stores';
import { oneOfManyTruth, QUALITY_STORE_SPECS, qualityPageIsProduct, titleClassesTruth } from '../stores/quality-pages';
import {
  countryOf,
  type LabelledPage,
  loadBenchmark,
  loadUsRetail,
  samePrice,
  shopOf,
  titleCorrect,
} from './_extraction-data';

/** A page the models learn from or are scored on, read once by the rules. */
export interface ReadPage {
  id: string;
  corpus: LabelledPage['corpus'] | 'page-types' | 'simulator';
  shop: string;
  url: string;
  truth: Record<string, string[]>;
  isProduct: boolean;
  readings: Readings;
}

const norm = (s: unknown) =>
  String(s ?? '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ');

export function readPage(
  page: Omit<ReadPage, 'readings'> & { html: string },
  countryCode = countryOf(page.url),
): ReadPage {
  const { html, ...rest } = page;
  return { ...rest, readings: ruleReading(analysePage(html, page.url, { countryCode })) };
}

/** Whether a candidate's value is an accepted one for the field on this page. */
export function accepted(field: Exclude<LearnedField, 'page'>, page: ReadPage, value: unknown): boolean {
  if (field === 'price') return samePrice(page.truth.price ?? [], value as number);
  if (field === 'title') return titleCorrect(value as string, page.truth.tab_title[0], page.url);
  return (page.truth[field] ?? []).some((a) => norm(a) === norm(value));
}

/** Which pages label a field: a field is learned only where the corpus states it. */
export function labels(field: Exclude<LearnedField, 'page'>, page: ReadPage): boolean {
  if (field === 'title') return !!page.truth.tab_title;
  if (field === 'price') return page.corpus === 'benchmark' || page.corpus === 'us-retail' || !!page.truth.price;
  return page.corpus === 'benchmark';
}

export function candidatesOf(field: Exclude<LearnedField, 'page'>, page: ReadPage): Array<FieldCandidate<unknown>> {
  const r = page.readings;
  if (field === 'price') return priceCandidates(r);
  if (field === 'title') return titleCandidates(r, bareTitle(r.analysis));
  if (field === 'brand') return brandCandidates(r);
  return skuCandidates(r);
}

interface Example {
  features: Features;
  label: 0 | 1;
  page: number;
}

/** Logistic regression by full-batch gradient descent: fixed steps, L2, positives reweighted. */
function logistic(examples: Example[], steps = 400, rate = 0.5, l2 = 0.003): Omit<Model, 'threshold'> {
  const names = [...new Set(examples.flatMap((e) => Object.keys(e.features)))].sort();
  const index = new Map(names.map((n, i) => [n, i]));
  const rows = examples.map((e) => Object.entries(e.features).map(([k, v]) => [index.get(k)!, v] as const));
  const positives = examples.filter((e) => e.label).length;
  const negatives = examples.length - positives;
  const posWeight = positives && negatives ? Math.min(10, negatives / positives) : 1;
  const w = new Float64Array(names.length);
  let b = 0;
  for (let step = 0; step < steps; step++) {
    const grad = new Float64Array(names.length);
    let gb = 0;
    let total = 0;
    for (let i = 0; i < examples.length; i++) {
      let z = b;
      for (const [j, v] of rows[i]) z += w[j] * v;
      const p = 1 / (1 + Math.exp(-z));
      const weight = examples[i].label ? posWeight : 1;
      const err = (p - examples[i].label) * weight;
      for (const [j, v] of rows[i]) grad[j] += err * v;
      gb += err;
      total += weight;
    }
    if (!total) break;
    for (let j = 0; j < names.length; j++) w[j] -= rate * (grad[j] / total + l2 * w[j]);
    b -= rate * (gb / total);
  }
  const weights: Record<string, number> = {};
  names.forEach((n, j) => {
    if (Math.abs(w[j]) >= 1e-4) weights[n] = Number(w[j].toFixed(4));
  });
  return { bias: Number(b.toFixed(4)), weights };
}

const sigmoid = (model: Omit<Model, 'threshold'>, f: Features) => {
  let z = model.bias;
  for (const k in f) z += (model.weights[k] ?? 0) * f[k];
  return 1 / (1 + Math.exp(-z));
};

/** The threshold that gives the best F1 of the per-page pick on the training pages. */
function threshold(model: Omit<Model, 'threshold'>, byPage: Map<number, Example[]>, truthful: Set<number>): number {
  const f1s: Array<[number, number]> = [];
  for (let t = 0; t <= 0.3001; t += 0.05) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const [page, list] of byPage) {
      let top: Example | null = null;
      let p = -1;
      for (const e of list) {
        const q = sigmoid(model, e.features);
        if (q > p) [top, p] = [e, q];
      }
      const given = top && p >= t;
      if (given && top!.label) tp++;
      else {
        if (given) fp++;
        if (truthful.has(page)) fn++;
      }
    }
    f1s.push([t, tp ? (2 * tp) / (2 * tp + fp + fn) : 0]);
  }
  // The lowest threshold within 0.01 of the best: a value withheld is lost for sure, and the
  // training pages without a value are few.
  const bestF1 = Math.max(...f1s.map(([, f]) => f));
  return Number(f1s.find(([, f]) => f >= bestF1 - 0.01)![0].toFixed(2));
}

/** Fits every model on `pages` (the caller leaves a fold of shops out). */
export function fitModels(pages: ReadPage[]): ExtractionWeights {
  const out: ExtractionWeights = {};
  for (const field of ['price', 'title', 'brand', 'sku'] as const) {
    const examples: Example[] = [];
    const byPage = new Map<number, Example[]>();
    const truthful = new Set<number>();
    pages.forEach((page, i) => {
      if (!labels(field, page) || !page.isProduct) return;
      const stated = field === 'title' ? !!page.truth.tab_title : (page.truth[field] ?? []).length > 0;
      if (stated) truthful.add(i);
      for (const c of candidatesOf(field, page)) {
        const e: Example = { features: c.features, label: accepted(field, page, c.value) ? 1 : 0, page: i };
        // The ranking learns from pages that state the field: a page without a value in the truth
        // may still show one (annotators left the shop's own brand blank), so its candidates are
        // no evidence against their kind. They count for the threshold only.
        if (stated) examples.push(e);
        byPage.set(i, [...(byPage.get(i) ?? []), e]);
      }
    });
    const model = logistic(examples);
    // A title stays the rules' when no candidate convinces (learned.ts): no threshold for it.
    out[field] = { ...model, threshold: field === 'title' ? 0.5 : threshold(model, byPage, truthful) };
  }
  const pageExamples: Example[] = pages.map((p, i) => ({
    features: pageFeatures(p.readings),
    label: p.isProduct ? 1 : 0,
    page: i,
  }));
  out.page = { ...logistic(pageExamples, 600), threshold: 0.5 };
  return out;
}

/** The labelled corpus pages of both corpora, read by the rules. */
export function labelledPages(): ReadPage[] {
  return [...loadBenchmark(), ...loadUsRetail()].map((p) =>
    readPage({ ...p, isProduct: true }, p.corpus === 'us-retail' ? 'us' : countryOf(p.url)),
  );
}

/** page-type-labels pages outside the two corpora (the product ones of the benchmark are already in). */
export function pageTypePages(): ReadPage[] {
  const labelsFile = JSON.parse(readFileSync(path.join(CORPORA, 'page-type-labels', 'labels.json'), 'utf8')) as {
    pages: Array<{ file: string; url: string; label: string }>;
  };
  return labelsFile.pages
    .filter((p) => p.label !== 'ambiguous' && !p.file.startsWith('product-extraction-benchmark'))
    .map((p) => ({
      ...p,
      url: p.url && p.url !== 'null' ? p.url : `https://${p.file.replace(/[^a-z0-9]+/gi, '-')}.example/`,
    }))
    .map((p) => {
      const raw = readFileSync(path.join(CORPORA, p.file));
      const html = p.file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
      return readPage(
        {
          id: p.file,
          corpus: 'page-types',
          shop: shopOf(p.url),
          url: p.url,
          truth: {},
          isProduct: p.label === 'product',
          html,
        },
        'us',
      );
    });
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

/**
 * The store simulator's labelled pages: every store's home, category, search, cart and blog
 * pages (not products) and two product pages; the quality hosts' ten products each (some are not
 * product pages: announced events) and their non-product pages.
 */
export async function simulatorPages(): Promise<ReadPage[]> {
  const sim = await startStoreSimulator({ productsPerStore: 10 });
  const out: ReadPage[] = [];
  const add = async (
    host: string,
    url: string,
    isProduct: boolean,
    id: string,
    truth: Record<string, string[]> = {},
  ) => {
    const u = new URL(url);
    const page = await get(sim.origin, host, `${u.pathname}${u.search}`);
    if (page.status >= 400) return;
    out.push(readPage({ id, corpus: 'simulator', shop: host, url, truth, isProduct, html: page.body }, 'us'));
  };
  try {
    const quality = new Set(QUALITY_STORE_SPECS.map((s) => s.host));
    const stores = [
      ...sim.stores.filter((s) => !quality.has(s.host) && (!s.behaviour || s.behaviour === 'stale-jsonld')),
      ...QUALITY_STORE_SPECS.map((spec) => sim.store(spec.host)),
    ];
    for (const store of stores) {
      for (const [kind, url] of Object.entries(store.nonProductUrls))
        await add(store.host, url, false, `${store.host} ${kind}`);
      const count = quality.has(store.host) ? 10 : 2;
      for (let i = 0; i < count; i++) {
        const isProduct = quality.has(store.host) ? qualityPageIsProduct(store.host, store.product(i)) : true;
        // one-of-many.test's prices are labelled: the classes of product page the rules rejected;
        // title-classes.test's names and prices: the classes of name that is not the product's.
        const product = store.product(i);
        const titled = store.host === 'title-classes.test' ? titleClassesTruth(product) : null;
        const truth: Record<string, string[]> =
          store.host === 'one-of-many.test'
            ? { price: [String(oneOfManyTruth(product).price)] }
            : titled
              ? { price: [String(titled.price)], tab_title: [titled.title] }
              : {};
        await add(store.host, store.productUrl(i), isProduct, `${store.host} product ${i}`, truth);
      }
    }
  } finally {
    await sim.close();
  }
  return out;
}

export async function trainingPages(): Promise<ReadPage[]> {
  return [...labelledPages(), ...pageTypePages(), ...(await simulatorPages())];
}

export default async function main(): Promise<void> {
  const pages = await trainingPages();
  const weights = fitModels(pages);
  const file = path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    '../../lambdas/domain/extraction/weights.json',
  );
  const perCorpus = new Map<string, number>();
  for (const p of pages) perCorpus.set(p.corpus, (perCorpus.get(p.corpus) ?? 0) + 1);
  const counts = [...perCorpus].map(([k, v]) => `${k} ${v}`).join(', ');
  writeFileSync(
    file,
    `${JSON.stringify({ note: `Fitted by test/bench/fit-extraction.ts on ${pages.length} pages (${counts}).`, models: weights }, null, 1)}\n`,
  );
  console.log(`wrote ${path.relative(process.cwd(), file)} from ${pages.length} pages (${counts})`);
  for (const [field, model] of Object.entries(weights))
    console.log(`  ${field}: ${Object.keys(model!.weights).length} weights, threshold ${model!.threshold}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
