// `npm run bench -- crawl-faults`: crawls through the local state machine while 20% of worker
// invocations crash partway and 5% of messages are delivered twice (PDS_FAULT_RATE,
// PDS_DUPLICATE_RATE, as in extract-faults). Prints, per store, listings found against the
// store's ground truth, duplicates, listings_total and total_items, collections whose
// products_total is exact, and whether the progress counts ever went backwards or past the truth.
// Env: CRAWL_FAULTS_SIZE (products per store, default 3000), CRAWL_FAULTS_HOSTS (comma-separated
// crawl stores), CRAWL_FAULTS_ROUNDS (default 1; later rounds are re-crawls of the same vendors).
import { startStoreSimulator, type StoreSimulator } from '../stores';
import {
  crawlThroughService,
  readAllCollections,
  readAllListings,
  seconds,
  startBenchService,
  type BenchService,
} from './_crawl-kit';

const SIZE = Number(process.env.CRAWL_FAULTS_SIZE ?? 3000);
const ROUNDS = Math.max(1, Number(process.env.CRAWL_FAULTS_ROUNDS ?? 1));
const HOSTS = (
  process.env.CRAWL_FAULTS_HOSTS ?? 'shopify-collections.test,woo-categories.test,sitemap-only.test'
).split(',');

const key = (url: string) => {
  const u = new URL(url);
  return `${u.hostname.replace(/^www\./, '')}${u.pathname.replace(/\/$/, '')}`;
};

async function crawlOne(sim: StoreSimulator, svc: BenchService, host: string): Promise<boolean> {
  const catalog = sim.catalog(host);
  const truth = new Set(catalog.listingUrls().map(key));
  let backwards = 0;
  let overTruth = 0;
  let last = 0;
  const run = await crawlThroughService(svc, host, {
    pollMs: 200,
    onPoll(body) {
      const found = body.meta?.progress?.listings_found;
      if (typeof found !== 'number') return;
      if (found < last) backwards++;
      if (found > truth.size) overTruth++;
      last = found;
    },
  });
  if (run.status !== 'completed') {
    console.log(`  ${host}: ${run.status} after ${seconds(run.ms)} (${run.error ?? ''})`);
    return false;
  }
  const listed = await readAllListings(svc, host);
  const seen = new Set(listed.urls.map(key));
  let found = 0;
  for (const k of seen) if (truth.has(k)) found++;
  const duplicates = listed.urls.length - seen.size;
  const extra = seen.size - found;
  const collections = await readAllCollections(svc, host);
  const sizes = new Map(catalog.collections.map((c) => [key(c.url), c.size()]));
  const exactCollections = collections.filter((c) => sizes.get(key(c.url)) === c.products_total).length;
  const exact =
    found === truth.size &&
    extra === 0 &&
    duplicates === 0 &&
    run.listingsTotal === truth.size &&
    listed.totalItems === truth.size &&
    exactCollections === sizes.size &&
    collections.length === sizes.size;
  console.log(
    `  ${host}: ${seconds(run.ms)}, ${found}/${truth.size} listings found, ${extra} extra, ${duplicates} duplicates; listings_total ${run.listingsTotal}, total_items ${listed.totalItems}; ${exactCollections}/${sizes.size} collections exact (${collections.length} reported); progress went backwards ${backwards}x, past the truth ${overTruth}x: ${exact && backwards === 0 && overTruth === 0 ? 'EXACT' : 'NOT EXACT'}`,
  );
  for (const c of collections) {
    const size = sizes.get(key(c.url));
    if (size !== c.products_total)
      console.log(`    ${c.url}: products_total ${c.products_total}, the store has ${size ?? 'no such collection'}`);
  }
  return exact;
}

export default async function main(): Promise<void> {
  const sim = await startStoreSimulator({ storeSizes: Object.fromEntries(HOSTS.map((h) => [h, SIZE])) });
  const svc = await startBenchService({
    resolveEnv: sim.resolveEnv,
    env: { PDS_FAULT_RATE: '0.2', PDS_DUPLICATE_RATE: '0.05' },
    workerConcurrency: 4,
    queueRetrySeconds: 1,
  });
  try {
    console.log(
      `crawl-faults: ${SIZE.toLocaleString('en-US')}-product stores crawled while 20% of worker invocations crash and 5% of messages are delivered twice`,
    );
    let exact = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`  round ${round}${round > 1 ? ' (re-crawls)' : ''}`);
      for (const host of HOSTS) if (await crawlOne(sim, svc, host)) exact++;
    }
    const crawls = HOSTS.length * ROUNDS;
    console.log(
      `  crawls with exactly the store's listings and counts: ${exact}/${crawls}${exact === crawls ? '' : ' (NOT ALL)'}`,
    );
  } finally {
    await svc.stop();
    await sim.close();
  }
}
