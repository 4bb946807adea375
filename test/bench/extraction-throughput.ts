// Parse-only throughput on one core over the saved corpus pages (no network): the engine's full
// page reading (all readers, merge, classification) beside metascraper with its title,
// description, image and url rules, same pages, same run. Also their title accuracy where a
// title is known, and price accuracy (metascraper has no price rule: n/a).
// `npm run bench -- extraction-throughput`
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import metascraperFactory from 'metascraper';
import metascraperDescription from 'metascraper-description';
import metascraperImage from 'metascraper-image';
import metascraperTitle from 'metascraper-title';
import metascraperUrl from 'metascraper-url';
import { readProductPage } from '../../lambdas/domain/extraction/page';
import { countryOf, loadBenchmarkPages, predictWithEngine, score } from './extraction-accuracy';
import { CORPORA } from '../corpora';

interface Page {
  url: string;
  html: string;
  title?: string;
}

function titledPages(): Page[] {
  const pages: Page[] = [];
  const shopping = JSON.parse(readFileSync(path.join(CORPORA, 'metascraper-shopping', 'expected.json'), 'utf8')) as {
    cases: Array<{ file: string; url: string; read_off_page: { title?: string } }>;
  };
  for (const c of shopping.cases) {
    if (!c.read_off_page.title) continue;
    pages.push({
      url: c.url,
      title: c.read_off_page.title,
      html: gunzipSync(readFileSync(path.join(CORPORA, 'metascraper-shopping', c.file))).toString('utf8'),
    });
  }
  const ms = JSON.parse(readFileSync(path.join(CORPORA, 'metascraper', 'expected.json'), 'utf8')) as {
    cases: Array<{ file: string; input_url: string; label: string; upstream_snapshot: { title?: string } }>;
  };
  for (const c of ms.cases) {
    if (c.label !== 'product' || !c.upstream_snapshot.title) continue;
    pages.push({
      url: c.input_url,
      title: c.upstream_snapshot.title,
      html: gunzipSync(readFileSync(path.join(CORPORA, 'metascraper', c.file))).toString('utf8'),
    });
  }
  return pages;
}

const norm = (s: string | null | undefined) =>
  (s ?? '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

export default async function main(): Promise<void> {
  const bench = loadBenchmarkPages();
  const titled = titledPages();
  const pages: Page[] = [...bench.map((p) => ({ url: p.url, html: p.html })), ...titled];
  const bytes = pages.reduce((n, p) => n + p.html.length, 0);
  const metascraper = metascraperFactory([
    metascraperTitle(),
    metascraperDescription(),
    metascraperImage(),
    metascraperUrl(),
  ]);

  // Warm up both (JIT, lazy tables), then time two alternating rounds and keep the best.
  for (const p of pages.slice(0, 5)) {
    readProductPage(p.html, p.url, { countryCode: countryOf(p.url) });
    await metascraper({ html: p.html, url: p.url });
  }
  let engineMs = Infinity;
  let metaMs = Infinity;
  for (let round = 0; round < 2; round++) {
    let t = performance.now();
    for (const p of pages) readProductPage(p.html, p.url, { countryCode: countryOf(p.url) });
    engineMs = Math.min(engineMs, performance.now() - t);
    t = performance.now();
    for (const p of pages) await metascraper({ html: p.html, url: p.url });
    metaMs = Math.min(metaMs, performance.now() - t);
  }
  const engineRate = (pages.length / engineMs) * 1000;
  const metaRate = (pages.length / metaMs) * 1000;
  console.log(`${pages.length} pages, ${(bytes / 1e6).toFixed(1)} MB of HTML, one core, parse only`);
  console.log(
    `engine (all readers + merge + classify): ${engineRate.toFixed(1)} pages/s (${(engineMs / pages.length).toFixed(1)} ms/page)`,
  );
  console.log(
    `metascraper (title, description, image, url): ${metaRate.toFixed(1)} pages/s (${(metaMs / pages.length).toFixed(1)} ms/page)`,
  );
  console.log(`ratio engine/metascraper: ${(engineRate / metaRate).toFixed(2)}x`);

  let engineTitles = 0;
  let metaTitles = 0;
  for (const p of titled) {
    const { merged } = readProductPage(p.html, p.url, { countryCode: countryOf(p.url) });
    const meta = await metascraper({ html: p.html, url: p.url });
    if (norm(merged.title) === norm(p.title)) engineTitles++;
    if (norm(meta.title) === norm(p.title)) metaTitles++;
  }
  console.log(
    `title exact (normalised) on ${titled.length} pages with a known title: engine ${engineTitles}/${titled.length}, metascraper ${metaTitles}/${titled.length}`,
  );
  const s = score(bench, predictWithEngine(bench)).price;
  const p = s.tp / (s.tp + s.fp);
  const r = s.tp / (s.tp + s.fn);
  console.log(
    `price F1 on the ${bench.length} benchmark pages: engine ${((2 * p * r) / (p + r)).toFixed(3)}, metascraper n/a (no price rule in these packages)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
