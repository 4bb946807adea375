// Variant extraction exactness: Google's ProductGroup samples (nested, separate with JS
// comments, multi-page) and a real Shopify `/products/<handle>.js` object; then the engine
// through the real fetcher against the simulator's quality hosts (Shopify `.json` without
// `available`, WooCommerce variable products), loopback only.
// `npm run bench -- variants`
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { readShopifyProduct } from '../../lambdas/domain/extraction/readers/platform-json';
import type { VariantCandidate } from '../../lambdas/domain/extraction/candidate';
import { CORPORA } from '../corpora';
import { createHttpFetcher } from '../../lambdas/adapters/http-fetch';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { createExtractor } from '../../lambdas/domain/extraction/engine';
import { startStoreSimulator } from '../stores';

interface ExpectedVariant {
  sku: string | null;
  options: Record<string, string>;
  price: number;
  currency?: string;
  availability?: string;
  url: string;
}

const lower = (s: string) => s.toLowerCase();

function sameOptions(got: Array<[string, string]>, want: Record<string, string>): boolean {
  const g = Object.fromEntries(got.map(([n, v]) => [lower(n), lower(v)]));
  return Object.entries(want).every(([n, v]) => g[lower(n)] === lower(v)) && got.length === Object.keys(want).length;
}

function googleVariants(): { exact: number; total: number; variantsRight: number; variantsTotal: number } {
  const dir = path.join(CORPORA, 'google-product-variants');
  const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as {
    cases: Array<{
      file: string;
      page_url: string;
      expected: {
        title: string;
        brand: string;
        options?: Array<{ name: string; values: string[] }>;
        variants: ExpectedVariant[];
        variant_links_only?: string[];
      };
    }>;
  };
  let exact = 0;
  let variantsRight = 0;
  let variantsTotal = 0;
  console.log('google-product-variants (ProductGroup / isVariantOf)');
  for (const c of expected.cases) {
    const html = readFileSync(path.join(dir, c.file), 'utf8');
    const { merged } = readProductPage(html, c.page_url, { countryCode: 'us' });
    const want = c.expected;
    const problems: string[] = [];
    if (merged.title !== want.title) problems.push(`title ${merged.title}`);
    if (merged.brand !== want.brand) problems.push(`brand ${merged.brand}`);
    if (merged.variants.length !== want.variants.length)
      problems.push(`${merged.variants.length} variants, want ${want.variants.length}`);
    for (const w of want.variants) {
      variantsTotal++;
      const got: VariantCandidate | undefined =
        merged.variants.find((v) => v.url === w.url) ?? merged.variants.find((v) => w.sku && v.sku === w.sku);
      const ok =
        !!got &&
        (got.sku ?? null) === w.sku &&
        sameOptions(got.options, w.options) &&
        got.price === w.price &&
        (!w.currency || got.currency === w.currency) &&
        (!w.availability || got.availability === w.availability);
      if (ok) variantsRight++;
      else
        problems.push(
          `variant ${w.url}: got ${got ? JSON.stringify({ sku: got.sku, options: got.options, price: got.price, availability: got.availability }) : 'none'}`,
        );
    }
    if (want.options) {
      for (const o of want.options) {
        const g = merged.options.find((x) => lower(x.name) === lower(o.name));
        if (!g || [...g.values].sort().join('|') !== [...o.values].sort().join('|'))
          problems.push(`option ${o.name}: ${g?.values.join('|') ?? 'missing'}`);
      }
    }
    // Stub variants (links to other pages) must not appear as variants.
    for (const link of want.variant_links_only ?? [])
      if (merged.variants.some((v) => v.url === link)) problems.push(`stub ${link} emitted`);
    if (!problems.length) exact++;
    console.log(
      `  ${problems.length ? 'DIFF' : 'ok  '} ${c.file.padEnd(44)} ${merged.variants.length} variants ${problems.join('; ')}`,
    );
  }
  return { exact, total: expected.cases.length, variantsRight, variantsTotal };
}

function shopifyJs(): boolean {
  const dir = path.join(CORPORA, 'platform-json', 'shopify');
  const payload = JSON.parse(readFileSync(path.join(dir, 'product-js_ratio-eight.json'), 'utf8'));
  const { expected } = JSON.parse(readFileSync(path.join(dir, 'product-js_ratio-eight.expected.json'), 'utf8'));
  const got = readShopifyProduct(payload, 'https://tk-narrative.example/products/ratio-eight', 'USD')!;
  const problems: string[] = [];
  if (got.title !== expected.title) problems.push('title');
  if (got.vendor !== expected.brand_or_vendor) problems.push('vendor');
  if (got.handle !== expected.handle) problems.push('handle');
  if (got.price !== Number(expected.price)) problems.push(`price ${got.price}`);
  if (got.priceRange?.max !== Number(expected.price_max)) problems.push(`price_max ${got.priceRange?.max}`);
  if (got.compareAt !== Number(expected.compare_at_price)) problems.push(`compare_at ${got.compareAt}`);
  if ((got.availability === 'InStock') !== expected.available) problems.push('available');
  if (JSON.stringify(got.options) !== JSON.stringify(expected.options))
    problems.push(`options ${JSON.stringify(got.options)}`);
  if ((got.images ?? []).length !== expected.image_count) problems.push(`images ${(got.images ?? []).length}`);
  let right = 0;
  for (const w of expected.variants as Array<{
    sku: string;
    options: string[];
    price: string;
    compare_at_price: string;
    available: boolean;
  }>) {
    const v = got.variants!.find((x) => x.sku === w.sku);
    // compare_at equal to the price is no compare-at price (it must be greater).
    const wantCompare = Number(w.compare_at_price) > Number(w.price) ? Number(w.compare_at_price) : null;
    if (
      v &&
      JSON.stringify(v.options.map(([, x]) => x)) === JSON.stringify(w.options) &&
      v.price === Number(w.price) &&
      (v.compareAt ?? null) === wantCompare &&
      (v.availability === 'InStock') === w.available
    )
      right++;
    else problems.push(`variant ${w.sku}`);
  }
  console.log(
    `\nplatform-json shopify .js (cents): ${right}/${expected.variants.length} variants exact; ${problems.length ? 'DIFF ' + problems.join('; ') : 'record exact'}`,
  );
  return problems.length === 0;
}

export default async function main(): Promise<void> {
  const g = googleVariants();
  console.log(`  pages exact ${g.exact}/${g.total}; variants exact ${g.variantsRight}/${g.variantsTotal}`);
  shopifyJs();
  await qualityHosts();
}

/** Per variant: SKU, price, currency and availability (a boolean equal to the truth) all right. */
async function qualityHosts(): Promise<void> {
  const sim = await startStoreSimulator({ productsPerStore: 20 });
  try {
    const fetcher = createHttpFetcher({
      resolve: sim.resolve,
      crawlDelayMs: 0,
      totalTimeoutMs: 5000,
      readTimeoutMs: 4000,
      retries: 1,
      retryBaseDelayMs: 20,
    });
    const extract = createExtractor({ fetcher, enricher: createOfflineEnricher() });
    console.log('\nsimulator quality hosts, engine through the real fetcher (20 products each)');
    for (const [host, country] of [
      ['shopify-json-only.test', 'us'],
      ['woo-variable.test', 'gb'],
    ] as const) {
      const store = sim.store(host);
      let right = 0;
      let total = 0;
      let products = 0;
      for (let i = 0; i < 20; i++) {
        const truth = store.product(i);
        const result = await extract(store.productUrl(i), {
          enableEnrichment: false,
          enableReviews: false,
          enableImageTags: false,
          enableSimilarProducts: false,
          countryCode: country,
        });
        const record = result.product;
        if (record?.is_available === truth.available) products++;
        for (const v of truth.variants) {
          total++;
          const got = record?.variants.find((x) => x.sku === v.sku);
          if (
            got &&
            got.price.current_value === v.price &&
            got.price.currency === truth.currency &&
            got.is_available === v.available
          )
            right++;
        }
      }
      console.log(`  ${host.padEnd(24)} variants exact ${right}/${total}; product availability right ${products}/20`);
    }
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
