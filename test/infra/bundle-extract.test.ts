// A sync-extraction Lambda's asset extracts real pages in a fresh Node process exactly as the
// unbundled code does: the probe entry (fixtures/extract-probe.ts, the composition root built
// from the environment) is bundled by lib/bundle.ts with the legacy /api/product route's
// capability list, then run with plain `node` against corpus pages served over loopback. So the
// capability stubs, the brotli-compressed enrichment data, the extraction engine's cheerio
// without parse5, the stubbed postcss and the fetcher over node:http (request.ts) work inside the
// asset, not only under tsx.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunction } from '../../lib/bundle';
import { FUNCTION_CAPABILITIES } from '../../lambdas/topology/capabilities';
import type { UrlResult } from '../../lambdas/domain/extraction/types';
import { CORPORA } from '../corpora';
import { handler as unbundled } from './fixtures/extract-probe';
import { handler as unbundledDomains } from './fixtures/suffix-probe';

const run = promisify(execFile);
const PROBE = path.join(__dirname, 'fixtures', 'extract-probe.ts');
const SUFFIX_PROBE = path.join(__dirname, 'fixtures', 'suffix-probe.ts');
// ICANN and private suffixes, wildcards (*.ck) and their exceptions (www.ck), IDNs, IPs, bare suffixes.
const HOSTS = [
  'shop.example.com',
  'www.amazon.co.uk',
  'store.myshopify.com',
  'a.b.github.io',
  'foo.blogspot.com',
  'www.ck',
  'shop.foo.ck',
  'bar.kawasaki.jp',
  'city.kawasaki.jp',
  'xn--mgberp4a5d4a87g',
  'shop.xn--p1ai',
  'example.السعودية',
  'co.uk',
  'com',
  '192.168.1.1',
  'localhost',
  'a.b.c.d.e.f.example.org',
  'foo.s3.amazonaws.com',
  'x.cloudfront.net',
  'deep.sub.herokuapp.com',
  'zalando.de',
  'shop.example.unknowntld',
];
const HOST = 'corpus-shop.test';
const CORPUS = path.join(CORPORA, 'product-extraction-benchmark', 'html');
// Every page of the product extraction benchmark (real shops: prices, variants, categories,
// descriptions through sanitize-html).
const PAGES = readdirSync(CORPUS)
  .filter((name) => name.endsWith('.html.gz'))
  .sort()
  .map((name) => name.slice(0, -'.html.gz'.length));
const page = (id: string) => gunzipSync(readFileSync(path.join(CORPUS, `${id}.html.gz`)));

const work = mkdtempSync(path.join(tmpdir(), 'pds-bundle-extract-'));
let server: Server;
let resolve = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const id = (req.url ?? '').replace(/^\/p\//, '');
    if (!PAGES.includes(id)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(id));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  resolve = `${HOST}=127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.PDS_RESOLVE = resolve;
  process.env.PDS_CRAWL_DELAY_MS = '0';
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
  rmSync(work, { recursive: true, force: true });
});

/** The result as JSON, its clock readings (`*_at`, set when extracted) replaced. */
const timeless = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, field) =>
    key.endsWith('_at') && typeof field === 'string' ? '<time>' : field,
  );

// Runs a bundled probe's handler(argument) in a fresh process: the environment a Lambda would have (no AWS calls are made).
async function runBundled(file: string, argument: unknown): Promise<unknown> {
  const script = `const m = await import(${JSON.stringify(file)}); console.log(JSON.stringify(await m.handler(JSON.parse(process.argv[1]))));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(argument)], {
    timeout: 180_000,
    env: { PATH: process.env.PATH ?? '', PDS_RESOLVE: resolve, PDS_CRAWL_DELAY_MS: '0', AWS_REGION: 'us-east-1' },
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

describe('a sync-extraction asset in a fresh Node process', () => {
  it('extracts corpus pages exactly as the unbundled engine does, enrichment and all', async () => {
    const outdir = path.join(work, 'probe');
    const { metafile } = bundleFunction(PROBE, outdir, { capabilities: FUNCTION_CAPABILITIES['http/legacy/product'] });
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    // The trimming this test exists for is in the asset: no parse5 or postcss, and no got (the fetcher is node:http).
    // entities 4.5 (dom-serializer's) is its escape.js alone: no decoder, no decoding trie.
    for (const gone of [
      'node_modules/parse5/',
      'node_modules/postcss/',
      'node_modules/got/',
      'node_modules/entities/lib/esm/decode.js',
    ])
      expect(
        inputs.some((input) => input.includes(gone)),
        gone,
      ).toBe(false);
    const urls = PAGES.map((id) => `http://${HOST}/p/${id}`);
    const inBundle = (await runBundled(path.join(outdir, 'index.mjs'), urls)) as UrlResult[];
    const inTsx = (await unbundled(urls)) as UrlResult[];
    expect(timeless(inBundle)).toEqual(timeless(inTsx));
    expect(inBundle.filter((result) => result.success).length).toBeGreaterThan(PAGES.length / 2);
    const categorised = inBundle.filter((result) => result.product?.taxonomy_product_category_id).length;
    // The taxonomy (brotli-compressed in the asset) answered at least once.
    expect(categorised).toBeGreaterThan(0);
  }, 240_000);

  it('answers registrable domains from the packed Public Suffix List as tldts does unbundled', async () => {
    const outdir = path.join(work, 'suffix');
    const { metafile } = bundleFunction(SUFFIX_PROBE, outdir, { capabilities: [] });
    const trie = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs).filter(([input]) => input.endsWith('tldts/dist/es6/src/data/trie.js')),
    );
    // Packed: the list is in the asset at well under the original's 140 KB.
    expect(trie).toHaveLength(1);
    expect(trie[0]![1].bytesInOutput).toBeLessThan(80 * 1024);
    const expected = await unbundledDomains(HOSTS);
    expect(expected.filter((domain) => domain !== null).length).toBeGreaterThan(10);
    expect(await runBundled(path.join(outdir, 'index.mjs'), HOSTS)).toEqual(expected);
  }, 120_000);
});
