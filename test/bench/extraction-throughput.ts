// Parse-only throughput on one core over the saved corpus pages (no network): the engine's full
// page reading (all readers, merge, classification) beside metascraper with its title,
// description, image and url rules, same pages, same run, in interleaved rounds (ratios per
// round, CPU and wall time: a busy machine slows both sides of a round alike). With
// EXTRACTION_BASELINE=<git ref> the engine of that commit runs in the same rounds too. Also their title accuracy where a
// title is known, and price accuracy (metascraper has no price rule: n/a).
// `npm run bench -- extraction-throughput`
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { gunzipSync } from 'node:zlib';
import * as cheerio from 'cheerio';
import metascraperFactory from 'metascraper';
import metascraperDescription from 'metascraper-description';
import metascraperImage from 'metascraper-image';
import metascraperTitle from 'metascraper-title';
import metascraperUrl from 'metascraper-url';
import { PARSE_OPTIONS, parsePage } from '../../lambdas/domain/extraction/document';
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

type Reader = typeof readProductPage;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Heap held by the parsed documents of `pages` (after a full GC), in MB. */
function heldMb(parse: (html: string) => unknown, pages: Page[]): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const held = pages.map((p) => parse(p.html));
  gc();
  const after = process.memoryUsage().heapUsed;
  if (!held.length) return 0;
  return (after - before) / 1e6;
}

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
  // EXTRACTION_BASELINE=<git ref>: the engine as it was at that commit (rule files as in this
  // tree, see extraction-identity.ts) timed in the same rounds, for a before/after in one run.
  const baselineRef = process.env.EXTRACTION_BASELINE;
  let baseline: Reader | null = null;
  if (baselineRef) {
    const { buildBaseline } = await import('./extraction-identity');
    const dir = buildBaseline(baselineRef, 'throughput');
    baseline = (
      (await import(pathToFileURL(path.join(dir, 'lambdas/domain/extraction/page.ts')).href)) as {
        readProductPage: Reader;
      }
    ).readProductPage;
  }
  const contenders: Array<{ name: string; run: () => Promise<void> }> = [
    {
      name: 'engine',
      run: async () => {
        for (const p of pages) readProductPage(p.html, p.url, { countryCode: countryOf(p.url) });
      },
    },
    {
      name: 'metascraper',
      run: async () => {
        for (const p of pages) await metascraper({ html: p.html, url: p.url });
      },
    },
  ];
  if (baseline) {
    const before = baseline;
    contenders.push({
      name: `engine at ${baselineRef}`,
      run: async () => {
        for (const p of pages) before(p.html, p.url, { countryCode: countryOf(p.url) });
      },
    });
  }

  // Warm up every contender (JIT, lazy tables), then interleaved rounds, the order turning each
  // round; each round's ratio compares runs made moments apart (a noisy machine moves both).
  for (const p of pages.slice(0, 5)) {
    readProductPage(p.html, p.url, { countryCode: countryOf(p.url) });
    baseline?.(p.html, p.url, { countryCode: countryOf(p.url) });
    await metascraper({ html: p.html, url: p.url });
  }
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
  const wall = new Map(contenders.map((c) => [c.name, [] as number[]]));
  const cpu = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...contenders].reverse() : contenders;
    for (const c of order) {
      const t = performance.now();
      const u = cpuMs();
      await c.run();
      cpu.get(c.name)!.push(cpuMs() - u);
      wall.get(c.name)!.push(performance.now() - t);
    }
  }
  const [load1] = os.loadavg();
  console.log(
    `${pages.length} pages, ${(bytes / 1e6).toFixed(1)} MB of HTML, one core, parse only; ${ROUNDS} interleaved rounds; load average ${load1.toFixed(1)} on ${os.cpus().length} cores`,
  );
  for (const c of contenders) {
    const best = Math.min(...wall.get(c.name)!);
    console.log(
      `${c.name.padEnd(22)} ${((pages.length / best) * 1000).toFixed(1).padStart(6)} pages/s (${(best / pages.length).toFixed(1)} ms/page wall, best round; ${(Math.min(...cpu.get(c.name)!) / pages.length).toFixed(1)} ms/page CPU)`,
    );
  }
  const ratios = (name: string, of: Map<string, number[]>) =>
    of.get('metascraper')!.map((m, i) => m / of.get(name)!.at(i)!);
  const describe = (xs: number[]) =>
    `min ${Math.min(...xs).toFixed(2)}x, median ${median(xs).toFixed(2)}x, max ${Math.max(...xs).toFixed(2)}x`;
  console.log(`ratio engine/metascraper per round, CPU time: ${describe(ratios('engine', cpu))}`);
  console.log(`ratio engine/metascraper per round, wall time: ${describe(ratios('engine', wall))}`);
  if (baselineRef) {
    const name = `engine at ${baselineRef}`;
    console.log(`ratio ${name}/metascraper per round, CPU time: ${describe(ratios(name, cpu))}`);
    const speedup = cpu.get(name)!.map((b, i) => b / cpu.get('engine')!.at(i)!);
    console.log(`engine speed-up over ${name}, CPU time: ${describe(speedup)}`);
  }
  console.log(
    'before issue 12 item 4 (one parse index, skipping tokenizer, one raw-text scan): 4.3-5.2x (wall, best of 2 rounds)',
  );
  console.log(
    'before the perf(extraction) round after 3ab010f (literal automaton, class tests once per page, one attribute pass, parse-time lists, indexOf skips): 5.26x CPU median, 5.56x wall (load 1.6)',
  );
  console.log(
    'before the perf(extraction) round after 4fed376 (four-lane skip scan for the page literals, names read in place, DOM walk over the element list, class tests behind one alternation): 6.27-6.81x CPU median in the same runs as 7.27-8.09x after (6 runs, load 5.6-9.3; engine speed-up median 1.16x); EXTRACTION_BASELINE=4fed376 prints it again',
  );
  const largest = [...pages].sort((a, b) => b.html.length - a.html.length).slice(0, 10);
  console.log(
    `heap held by the parsed documents of the 10 largest pages (${(largest.reduce((n, p) => n + p.html.length, 0) / 1e6).toFixed(1)} MB of HTML): engine ${heldMb((h) => parsePage(h), largest).toFixed(1)} MB, cheerio.load (htmlparser2) ${heldMb((h) => cheerio.load(h, PARSE_OPTIONS), largest).toFixed(1)} MB`,
  );

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
