// `npm run bench -- render`: pages a browser renders against pages read as HTML, through the
// extraction path itself (escalatingExtractor: HTML first, the browser only for a client-rendered
// page without a product), over the store simulator on loopback. Prints pages/s and p50/p95 per
// page for each path, one page at a time and four at once, and how many HTML-readable pages went
// to the browser (must be 0). The browser's launch is measured apart (first page).
import { createBrowserRenderer } from '../../lambdas/adapters/browser';
import { createHttpFetcher } from '../../lambdas/adapters/http-fetch';
import { escalatingExtractor } from '../../lambdas/composition/rendering';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { extractOptionsFrom } from '../../lambdas/domain/extraction/options';
import type { PageRenderer } from '../../lambdas/ports/renderer';
import { startStoreSimulator } from '../stores';

const PER_STORE = 12;
const HTML_HOSTS = ['jsonld-shop.test', 'microdata-shop.test', 'dom-shop.test'];
const RENDERED_HOSTS = ['spa-inline.test', 'spa-fetch.test', 'spa-hydrate.test'];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

export default async function main(): Promise<void> {
  const sim = await startStoreSimulator({ productsPerStore: PER_STORE * 2 });
  const fetcher = createHttpFetcher({ resolve: sim.resolve, crawlDelayMs: 0 });
  const browser = createBrowserRenderer({ fetcher, pageBudgetMs: 20_000 });
  let renders = 0;
  const renderer: PageRenderer = {
    render: (request) => {
      renders++;
      return browser.render(request);
    },
  };
  const extract = escalatingExtractor({ fetcher, enricher: createOfflineEnricher(), renderer });
  const options = extractOptionsFrom({});
  const rows: string[][] = [];
  try {
    const launchStart = performance.now();
    await extract(sim.store('spa-inline.test').productUrl(PER_STORE * 2 - 1), options);
    const launchMs = performance.now() - launchStart;

    const run = async (label: string, hosts: string[], concurrency: number, offset: number) => {
      const urls = hosts.flatMap((host) =>
        Array.from({ length: PER_STORE / 2 }, (_, i) => sim.store(host).productUrl(offset + i)),
      );
      const before = renders;
      const times: number[] = [];
      let ok = 0;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < urls.length) {
            const url = urls[next++];
            const t = performance.now();
            const result = await extract(url, options);
            times.push(performance.now() - t);
            if (result.success) ok++;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      times.sort((a, b) => a - b);
      rows.push([
        label,
        String(concurrency),
        `${ok}/${urls.length}`,
        String(renders - before),
        (urls.length / seconds).toFixed(2),
        percentile(times, 0.5).toFixed(0),
        percentile(times, 0.95).toFixed(0),
      ]);
    };
    await run('html', HTML_HOSTS, 1, 0);
    await run('rendered', RENDERED_HOSTS, 1, 0);
    await run('html', HTML_HOSTS, 4, PER_STORE / 2);
    await run('rendered', RENDERED_HOSTS, 4, PER_STORE / 2);

    console.log(`browser launch + first rendered page: ${launchMs.toFixed(0)} ms`);
    console.log(['path', 'at once', 'success', 'rendered', 'pages/s', 'p50 ms', 'p95 ms'].join('\t'));
    for (const row of rows) console.log(row.join('\t'));
    const htmlRendered = rows.filter((r) => r[0] === 'html').reduce((n, r) => n + Number(r[3]), 0);
    console.log(`HTML-readable pages rendered: ${htmlRendered} (must be 0)`);
    if (htmlRendered !== 0) process.exitCode = 1;
  } finally {
    await browser.close();
    await sim.close();
  }
}
