// `npm run bench -- robots`: correctness on the 381 corpus cases and parse/match speed on the
// 84 real robots.txt files (64 from retailers). Prints figures; asserts nothing.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseRobots } from '../../lambdas/domain/extraction/robots';
import { CORPORA } from '../corpora';

const corpus = path.join(CORPORA, 'robots-txt');

export default async function run(): Promise<void> {
  const { cases } = JSON.parse(readFileSync(path.join(corpus, 'cases.json'), 'utf8')) as {
    cases: Array<{
      suite: string;
      check: string;
      robots_txt: string;
      url?: string;
      user_agent?: string;
      expected: unknown;
    }>;
  };
  const tally = new Map<string, { pass: number; total: number }>();
  for (const c of cases) {
    const rules = parseRobots(c.robots_txt);
    let actual: unknown;
    if (c.check === 'can_fetch') actual = rules.canFetch(c.url!, c.user_agent!);
    else if (c.check === 'crawl_delay') actual = rules.crawlDelay(c.user_agent!);
    else actual = [...rules.sitemaps].sort();
    const expected = c.check === 'sitemaps' ? [...(c.expected as string[])].sort() : c.expected;
    const key = `${c.suite}/${c.check}`;
    const t = tally.get(key) ?? { pass: 0, total: 0 };
    t.total++;
    if (JSON.stringify(actual) === JSON.stringify(expected)) t.pass++;
    tally.set(key, t);
  }
  let pass = 0;
  console.log('robots.txt corpus cases');
  for (const [key, t] of tally) {
    pass += t.pass;
    console.log(`  ${key.padEnd(28)} ${t.pass}/${t.total}`);
  }
  console.log(`  ${'total'.padEnd(28)} ${pass}/${cases.length}`);

  const dir = path.join(corpus, 'real');
  const texts = readdirSync(dir)
    .filter((f) => f.endsWith('.robots.txt'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'));
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const rounds = 5;
  const parseStart = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const t of texts) parseRobots(t);
  const parseMs = Number(process.hrtime.bigint() - parseStart) / 1e6;

  const parsed = texts.map((t) => parseRobots(t));
  const paths = [
    '/',
    '/cart',
    '/checkout/step1',
    '/products/blue-shirt?variant=1',
    '/search?q=shoes',
    '/catalogsearch/result/?q=x',
    '/s/abc/facet',
  ];
  let queries = 0;
  let allowed = 0;
  const matchStart = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) {
    for (const rules of parsed) {
      for (const p of paths) {
        queries++;
        if (rules.canFetch(p, 'ProductDataService')) allowed++;
      }
    }
  }
  const matchMs = Number(process.hrtime.bigint() - matchStart) / 1e6;
  console.log(`real files: ${texts.length} files, ${(bytes / 1024 / 1024).toFixed(2)} MB`);
  console.log(
    `  parse: ${(parseMs / rounds).toFixed(1)} ms per pass over all files, ${((bytes * rounds) / 1024 / 1024 / (parseMs / 1000)).toFixed(1)} MB/s`,
  );
  console.log(
    `  canFetch: ${queries} queries in ${matchMs.toFixed(1)} ms (${((matchMs * 1000) / queries).toFixed(2)} µs each), ${allowed} allowed`,
  );
}
