// `npm run bench -- crawl-stores`: one crawl of every crawl store of the simulator through the
// local service, each checked against the store's ground truth: listings found, extra,
// duplicates, collections with the exact products_total, requests by kind, 429s, and requests
// that robots.txt forbids. A table of how each listing method and failure mode fares.
// Env: CRAWL_STORES_SIZE (products per store, default each store's own; the 100,000-product store is left out).
import { CRAWL_STORE_SPECS, startStoreSimulator, type RequestCounts } from '../stores';
import { crawlThroughService, readAllCollections, readAllListings, seconds, startBenchService } from './_crawl-kit';

const SIZE = process.env.CRAWL_STORES_SIZE ? Number(process.env.CRAWL_STORES_SIZE) : null;
const HOSTS = CRAWL_STORE_SPECS.map((s) => s.host).filter((h) => h !== 'shopify-huge.test');

const key = (url: string) => {
  const u = new URL(url);
  return `${u.hostname.replace(/^www\./, '')}${u.pathname.replace(/\/$/, '')}`;
};
const kinds = (c: RequestCounts) =>
  (['api', 'sitemap', 'listing', 'product', 'robots', 'other'] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${k} ${c[k]}`)
    .join(', ');

export default async function main(): Promise<void> {
  const sim = await startStoreSimulator({
    storeSizes: SIZE ? Object.fromEntries(HOSTS.map((h) => [h, SIZE])) : {},
    retryAfterSeconds: 1,
  });
  const svc = await startBenchService({ resolveEnv: sim.resolveEnv, workerConcurrency: 4 });
  let exact = 0;
  try {
    console.log(
      `crawl-stores: one crawl of each crawl store through the local service (PDS_CRAWL_DELAY_MS=0), checked against the simulator's ground truth`,
    );
    for (const host of HOSTS) {
      const catalog = sim.catalog(host);
      sim.resetRequestCounts(host);
      const run = await crawlThroughService(svc, host, { timeoutMs: 5 * 60 * 1000 });
      const counts = sim.requestCounts(host);
      const robots = sim.robotsViolations(host);
      const label = `  ${host} (${catalog.kind}${catalog.twist === 'none' ? '' : `, ${catalog.twist}`}, ${catalog.listingCount()} listings)`;
      if (run.status !== 'completed') {
        console.log(
          `${label}: ${run.status} after ${seconds(run.ms)}: ${run.error ?? ''}; ${counts.total} requests (${kinds(counts)})`,
        );
        continue;
      }
      const truth = new Set(catalog.listingUrls().map(key));
      const listed = await readAllListings(svc, host);
      const seen = new Set(listed.urls.map(key));
      let found = 0;
      for (const k of seen) if (truth.has(k)) found++;
      const collections = await readAllCollections(svc, host);
      const sizes = new Map(catalog.collections.map((c) => [key(c.url), c.size()]));
      const exactCollections = collections.filter((c) => sizes.get(key(c.url)) === c.products_total).length;
      const ok =
        found === truth.size &&
        seen.size === found &&
        listed.urls.length === seen.size &&
        run.listingsTotal === truth.size &&
        exactCollections === sizes.size &&
        collections.length === sizes.size &&
        robots.count === 0;
      if (ok) exact++;
      console.log(
        `${label}: ${seconds(run.ms)}, ${found}/${truth.size} listings, ${seen.size - found} extra, ${listed.urls.length - seen.size} duplicates, listings_total ${run.listingsTotal}; ${exactCollections}/${sizes.size} collections exact (${collections.length} reported); ${counts.total} requests (${kinds(counts)}; ${counts.throttled} answered 429); robots.txt violations ${robots.count}${robots.count ? ` (${robots.paths.slice(0, 3).join(', ')})` : ''}: ${ok ? 'EXACT' : 'NOT EXACT'}`,
      );
    }
    console.log(`  stores crawled exactly: ${exact}/${HOSTS.length}`);
  } finally {
    await svc.stop();
    await sim.close();
  }
}
