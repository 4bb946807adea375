// `npm run bench -- listings-paging`: the 100,000-product store crawled through the local service,
// then GET /v2/listings of that vendor at page 1, 500 and 1,000 (page_size 100), requests
// interleaved, p50/p90 of each. Goal: page 1,000 within 2x of page 1 (page N costs O(page size)).
// Env: LISTINGS_BENCH_SIZE (default 100000), LISTINGS_BENCH_SAMPLES (default 50).
import { startStoreSimulator } from '../stores';
import { crawlThroughService, measureListingsPages, memorySampler, seconds, startBenchService } from './_crawl-kit';

const HOST = 'shopify-huge.test';
const SIZE = Number(process.env.LISTINGS_BENCH_SIZE ?? 100_000);
const SAMPLES = Number(process.env.LISTINGS_BENCH_SAMPLES ?? 50);

export default async function main(): Promise<void> {
  const sim = await startStoreSimulator({ storeSizes: { [HOST]: SIZE } });
  const svc = await startBenchService({ resolveEnv: sim.resolveEnv, workerConcurrency: 4 });
  try {
    const memory = memorySampler();
    const run = await crawlThroughService(svc, HOST);
    const rss = memory.stop();
    if (run.status !== 'completed') {
      console.log(`listings-paging: the crawl of ${HOST} did not complete (${run.status}: ${run.error ?? ''})`);
      return;
    }
    const lastPage = Math.ceil(run.listingsTotal / 100);
    const pages = [...new Set([1, Math.min(500, lastPage), Math.min(1000, lastPage)])];
    const figures = await measureListingsPages(svc, HOST, pages, SAMPLES);
    console.log(
      `listings-paging: ${HOST}, ${run.listingsTotal.toLocaleString('en-US')} listings (crawled in ${seconds(run.ms)}, peak RSS ${rss.toFixed(0)} MB); GET /v2/listings page_size 100, ${SAMPLES} samples per page, interleaved`,
    );
    for (const f of figures)
      console.log(
        `  page ${f.page.toLocaleString('en-US')}: p50 ${f.p50.toFixed(1)} ms, p90 ${f.p90.toFixed(1)} ms, ${f.items} items`,
      );
    const first = figures[0];
    const last = figures.at(-1)!;
    const ratio = last.p50 / first.p50;
    console.log(
      `  page ${last.page.toLocaleString('en-US')} / page 1 (p50): ${ratio.toFixed(2)}x (goal within 2x: ${ratio <= 2 ? 'MET' : 'NOT MET'})`,
    );
  } finally {
    await svc.stop();
    await sim.close();
  }
}
