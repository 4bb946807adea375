// The `pds` CLI against the local service (in this process: embedded engines, state machines,
// pollers, HTTP on loopback) and the store simulator: progress lines captured from stderr, summary
// tables on stdout, --json parsed, --no-wait then `pds wait`, `pds keys` on the running server, and
// the exit codes of a partial success, a bad key, bad arguments, a refused input, an unreachable
// service and the maximum wait. Most runs call the CLI's entry `main(argv, io)` in this process;
// what only a process shows runs `node bin/pds.mjs` (the `npx pds` entry) as a child: its exit
// codes, the terminal under `script`, Ctrl-C, and `pds keys` finding the server in another process.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveWebhook } from '../../client/webhooks';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';

// An extensionless '../../bin/pds' would resolve to bin/pds.mjs (the npx shim, which runs the CLI
// on import) before bin/pds.ts, so the module is named with its extension, through a variable.
const CLI_MODULE = '../../bin/pds.ts';
const { main }: typeof import('../../bin/pds') = await import(CLI_MODULE);

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KEY = 'cli-e2e-key-org-a-0000001';
const STEPS = ['Determining crawl method', 'Discovering collections', 'Analyzing collections', 'Extracting listings'];
/** A child that runs longer than this is killed and the test fails. */
const CHILD_LIMIT_MS = 150_000;

let service: LocalService;
let sim: StoreSimulator;
let work: string;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const envFor = (env: Record<string, string | undefined>) => ({
  ...process.env,
  PDS_BASE_URL: service.url,
  PDS_API_KEY: KEY,
  NO_COLOR: '1',
  ...env,
});

/** Runs `pds ...args` in this process (its output captured, not a terminal) with the service's URL and key. */
async function pds(args: string[], env: Record<string, string | undefined> = {}): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: envFor(env),
  });
  return { code, stdout, stderr };
}

/** Runs `pds ...args` as a child process (node bin/pds.mjs) with the service's URL and key in its environment. */
function pdsProcess(args: string[], env: Record<string, string | undefined> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'pds.mjs'), ...args], {
      cwd: ROOT,
      env: envFor(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pds ${args.join(' ')} still running after ${CHILD_LIMIT_MS} ms\n${stderr}`));
    }, CHILD_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const FAST = ['--poll-interval', '0.2'];

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** `pds ...args` under a pseudo-terminal (util-linux or BSD `script`), so stdout is a TTY. */
function pdsInTerminal(args: string[]): Promise<Ran> {
  const command = [process.execPath, join(ROOT, 'bin', 'pds.mjs'), ...args].map(quote).join(' ');
  const scriptArgs =
    process.platform === 'linux' ? ['-qec', command, '/dev/null'] : ['-q', '/dev/null', 'sh', '-c', command];
  return new Promise((resolve, reject) => {
    const child = spawn('script', scriptArgs, {
      cwd: ROOT,
      env: { ...process.env, PDS_BASE_URL: service.url, PDS_API_KEY: KEY, COLUMNS: '160' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`script ${command} still running after ${CHILD_LIMIT_MS} ms`));
    }, CHILD_LIMIT_MS);
    child.on('error', (error) =>
      reject(new Error(`the terminal test needs \`script\` (util-linux, or BSD script): ${error.message}`)),
    );
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pds-cli-e2e-'));
  sim = await startStoreSimulator({ productsPerStore: 40, storeSizes: { 'woo-categories.test': 60 } });
  service = await startLocalService({
    port: 0,
    dataDir: join(work, 'data'),
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
      PDS_LOG_LEVEL: 'error',
      // The webhook receiver of the --webhook test listens on loopback.
      PDS_WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    bootstrapKeys: `${KEY}:org-a`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Cells of a cli-table3 row that starts with `first` (borders stripped). */
function row(table: string, first: string): string[] | undefined {
  for (const line of table.split('\n')) {
    const cells = line
      .split('│')
      .map((c) => c.trim())
      .filter(Boolean);
    if (cells[0] === first) return cells;
  }
  return undefined;
}

describe('pds extract', () => {
  let titles: string[] = [];

  it('extracts a file of URLs: progress lines on stderr, an outcome table, exit 1 when some URLs failed', async () => {
    const good = [sim.store('jsonld-shop.test').productUrl(2), sim.store('shopify-apparel.test').productUrl(3)];
    const blocked = sim.store('robots-blocked.test').productUrl(4);
    const notProduct = sim.store('jsonld-shop.test').nonProductUrls.blog;
    const file = join(work, 'urls.txt');
    writeFileSync(file, `# a comment\n${good[0]}\n\n${blocked}\n${good[1]}\n${notProduct}\n`);

    const ran = await pds(['extract', file, ...FAST]);
    expect(ran.code, ran.stderr).toBe(1);
    const id = /pds: started (extract-urls-[0-9a-f-]{36})/.exec(ran.stderr)?.[1];
    expect(id).toBeDefined();
    const progress = ran.stderr.split('\n').filter((line) => line.startsWith(`pds: ${id} `));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress)
      expect(line).toMatch(
        /^pds: \S+ (pending|running|completed), \d+\/(4|\?) URLs( \(\d+%\))?, [\d.]+ URLs\/s, ETA \S+$/,
      );
    expect(progress.at(-1)).toMatch(/completed, 4\/4 URLs \(100%\), [\d.]+ URLs\/s, ETA 0s$/);

    expect(row(ran.stdout, 'outcome')).toEqual(['outcome', 'URLs']);
    expect(row(ran.stdout, 'success')).toEqual(['success', '2']);
    expect(row(ran.stdout, 'automated_access_not_permitted')).toEqual(['automated_access_not_permitted', '1']);
    expect(row(ran.stdout, 'non_product_url')).toEqual(['non_product_url', '1']);
    expect(row(ran.stdout, 'total')).toEqual(['total', '4']);
    // The failures, by input position.
    expect(row(ran.stdout, '1')?.slice(1, 4)).toEqual([blocked, 'automated_access_not_permitted', 'yes']);
    expect(row(ran.stdout, '3')?.slice(1, 4)).toEqual([notProduct, 'non_product_url', 'no']);
    expect(ran.stdout).toMatch(new RegExp(`${id} completed in [\\d.]+ s: 2/4 URLs succeeded, \\d+ credits`));
  });

  it('--json prints one JSON document only; a JSON-array file; exit 0 when every URL succeeded', async () => {
    const urls = [sim.store('woo-home.test').productUrl(5), sim.store('microdata-shop.test').productUrl(6)];
    const file = join(work, 'urls.json');
    writeFileSync(file, JSON.stringify(urls));
    const ran = await pds(['extract', file, '--json', ...FAST]);
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout);
    expect(ran.stdout.trim().split('\n')).toHaveLength(1);
    expect(out).toMatchObject({
      status: 'completed',
      error: null,
      exit_code: 0,
      result: { products_requested: 2, products_successful: 2 },
    });
    expect(out.results.map((r: any) => [r.url, r.outcome])).toEqual(urls.map((u) => [u, 'success']));
    titles = out.results.map((r: any) => r.product.title);
    // Progress still goes to stderr (not a terminal), never to stdout.
    expect(ran.stderr).toMatch(/completed, 2\/2 URLs/);
  });

  it('--no-wait returns the execution id at once; `pds wait <id>` follows it to the summary', async () => {
    const url = sim.store('opengraph-shop.test').productUrl(7);
    const startedRun = await pds(['extract', url, '--no-wait', '--json']);
    expect(startedRun.code, startedRun.stderr).toBe(0);
    const started = JSON.parse(startedRun.stdout);
    expect(started).toMatchObject({ status: 'pending', meta: { url_count: 1 } });
    const waited = await pds(['wait', started.execution_id, '--json', ...FAST]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ execution_id: started.execution_id, status: 'completed' });
  });

  it('in a terminal: a live progress bar (processed/total, rate, ETA) and the summary table', async () => {
    const urls = [sim.store('jsonld-shop.test').productUrl(8), sim.store('dom-shop.test').productUrl(9)];
    const ran = await pdsInTerminal(['extract', ...urls, ...FAST]);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    // The bar redraws in place (carriage returns / cursor moves), no plain progress lines.
    const plain = ran.stdout.replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, '');
    expect(plain).toMatch(/extract [\u2588\u2591]+ 2\/2 URLs \| [\d.]+\/s \| ETA 0s \| completed/);
    expect(plain).not.toMatch(/^pds: extract-urls-\S+ running,/m);
    expect(plain).toMatch(/success\s*│\s*2/);
    expect(plain).toMatch(/2\/2 URLs succeeded/);
  });

  it('an input longer than one extraction runs as several, followed and summarised together (input order kept)', async () => {
    const urls = [
      sim.store('jsonld-shop.test').productUrl(20),
      sim.store('shopify-apparel.test').productUrl(21),
      sim.store('robots-blocked.test').productUrl(22),
      sim.store('woo-home.test').productUrl(23),
      sim.store('microdata-shop.test').productUrl(24),
    ];
    const file = join(work, 'five.txt');
    writeFileSync(file, urls.join('\n'));
    const ran = await pds(['extract', file, '--batch-size', '2', ...FAST]);
    expect(ran.code, ran.stderr).toBe(1);
    const ids = /pds: started ((?:extract-urls-\S+ ?){3})$/m.exec(ran.stderr)?.[1]?.trim().split(' ');
    expect(ids).toHaveLength(3);
    const progress = ran.stderr.split('\n').filter((line) => line.startsWith('pds: 3 extractions '));
    expect(progress.at(-1)).toMatch(/^pds: 3 extractions completed, 5\/5 URLs \(100%\), [\d.]+ URLs\/s, ETA 0s$/);
    expect(row(ran.stdout, 'success')).toEqual(['success', '4']);
    expect(row(ran.stdout, 'total')).toEqual(['total', '5']);
    expect(row(ran.stdout, '2')?.slice(1, 3)).toEqual([urls[2], 'automated_access_not_permitted']);
    expect(ran.stdout).toContain(`3 extractions (${ids!.join(', ')}) completed`);

    // The same run with a key twice starts nothing new; `pds wait` follows several ids together.
    const key = `cli-batches-${Date.now()}`;
    const first = JSON.parse(
      (await pds(['extract', file, '--batch-size', '2', '--no-wait', '--json', '--idempotency-key', key])).stdout,
    );
    const again = JSON.parse(
      (await pds(['extract', file, '--batch-size', '2', '--no-wait', '--json', '--idempotency-key', key])).stdout,
    );
    const started = first.executions.map((e: any) => e.execution_id);
    expect(started).toHaveLength(3);
    expect(again.executions.map((e: any) => e.execution_id)).toEqual(started);
    const waited = await pds(['wait', ...started, '--json', ...FAST]);
    expect(waited.code, waited.stderr).toBe(1);
    const out = JSON.parse(waited.stdout);
    expect(out.execution_ids).toEqual(started);
    expect(out.result).toMatchObject({
      products_requested: 5,
      products_successful: 4,
      products_failed: 1,
      products_pending: 0,
    });
    expect(out.results.map((r: any) => r.url)).toEqual(urls);
  });

  it('--idempotency-key: the same command run twice answers the first execution', async () => {
    const url = sim.store('jsonld-shop.test').productUrl(11);
    const args = ['extract', url, '--no-wait', '--json', '--idempotency-key', `cli-test-${Date.now()}`];
    const first = await pds(args);
    const second = await pds(args);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).execution_id).toBe(JSON.parse(first.stdout).execution_id);
    const other = await pds(['extract', url, '--no-wait', '--json']);
    expect(JSON.parse(other.stdout).execution_id).not.toBe(JSON.parse(first.stdout).execution_id);
  });

  it('--webhook: the execution is delivered to the receiver (completed event, signed)', async () => {
    const received: Array<{ headers: Record<string, string | string[] | undefined>; body: any; raw: string }> = [];
    const receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(text), raw: text });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const url = sim.store('shopify-apparel.test').productUrl(12);
      const ran = await pds(['extract', url, '--json', '--webhook', hook, '--webhook-events', 'completed', ...FAST]);
      expect(ran.code, ran.stderr).toBe(0);
      const id = JSON.parse(ran.stdout).execution_id;
      for (let i = 0; i < 300 && !received.length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(received.map((d) => [d.headers['x-pds-event'], d.body.data.execution_id])).toEqual([['completed', id]]);
      expect(received[0]!.headers['x-pds-signature']).toMatch(/^v1=[0-9a-f]{64}$/);

      // `pds webhooks secret` gives the key that signed it; `pds webhooks deliveries` shows it delivered.
      const secret = await pds(['webhooks', 'secret', '--json']);
      expect(secret.code, secret.stderr).toBe(0);
      const { headers, raw } = received[0]!;
      const expected = createHmac('sha256', JSON.parse(secret.stdout).secret)
        .update(`${headers['x-pds-timestamp']}.${raw}`)
        .digest('hex');
      expect(headers['x-pds-signature']).toBe(`v1=${expected}`);
      // The client's receiver helper accepts it and reads the typed event.
      const delivered = receiveWebhook(JSON.parse(secret.stdout).secret, headers, raw);
      expect(delivered.event).toMatchObject({ event: 'completed', data: { execution_id: id, status: 'completed' } });
      expect(delivered.deliveryId).toBe(headers['x-pds-delivery-id']);
      const log = await pds(['webhooks', 'deliveries', id]);
      expect(log.code, log.stderr).toBe(0);
      expect(row(log.stdout, 'completed')?.slice(0, 4)).toEqual(['completed', 'delivered', '1', '204']);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
    expect((await pds(['crawl', 'a.test', '--webhook-events', 'finished'])).code).toBe(2);
  });

  it('exit 2 with the refused URLs when the service rejects the input; nothing is started', async () => {
    const ran = await pds(['extract', 'https://jsonld-shop.test/p/1', 'mailto:someone@example.com', '--json']);
    expect(ran.code).toBe(2);
    const out = JSON.parse(ran.stdout);
    expect(out.exit_code).toBe(2);
    expect(out.error.error.code).toBe('INVALID_PARAMETER');
    expect(out.error.invalid_urls.map((u: any) => u.index)).toEqual([1]);
    const human = await pds(['extract', 'https://jsonld-shop.test/p/1', 'mailto:someone@example.com']);
    expect(human.code).toBe(2);
    expect(human.stderr).toContain('the service refused 1 URL(s); nothing was started');
    const refused = row(human.stderr, '1');
    expect(refused?.[1]).toBe('mailto:someone@example.com');
    expect(refused?.[2]).toBe(out.error.invalid_urls[0].problem);
  });

  it('Ctrl-C while waiting: exit 130, the execution goes on and `pds wait` can pick it up', async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'pds.mjs'), 'extract', sim.store('slow.test').productUrl(2), ...FAST],
      {
        cwd: ROOT,
        env: { ...process.env, PDS_BASE_URL: service.url, PDS_API_KEY: KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (/ (pending|running), /.test(stderr) && !child.killed) child.kill('SIGINT');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS);
    const code = await closed;
    clearTimeout(timer);
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('stopped waiting; the execution goes on');
    const id = /pds: started (extract-urls-\S+)/.exec(stderr)![1]!;
    const waited = await pds(['wait', id, '--json', ...FAST]);
    expect(JSON.parse(waited.stdout)).toMatchObject({ execution_id: id, status: 'completed' });
  });

  it('exit 5 at the maximum wait, naming the command that resumes', async () => {
    const ran = await pds(['extract', sim.store('slow.test').productUrl(1), '--timeout', '0.5', ...FAST]);
    expect(ran.code).toBe(5);
    expect(ran.stderr).toMatch(/did not finish within .*pds wait extract-urls-/);
  });

  describe('pds search', () => {
    it('finds what was extracted: agentic search (--json) and the mini search (table)', async () => {
      expect(titles).toHaveLength(2);
      const agentic = await pds(['search', titles[0]!, '--json', ...FAST]);
      expect(agentic.code, agentic.stderr).toBe(0);
      const out = JSON.parse(agentic.stdout);
      expect(out.status).toBe('completed');
      expect(out.data.map((d: any) => d.product.title)).toContain(titles[0]);

      const mini = await pds(['search', titles[1]!, '--mini', '--limit', '3']);
      expect(mini.code, mini.stderr).toBe(0);
      expect(row(mini.stdout, '#')).toEqual(['#', 'title', 'price', 'vendor', 'URL']);
      expect(mini.stdout).toContain(titles[1]!.slice(0, 60));
    });
  });
});

describe('pds crawl', () => {
  it('extract --vendor waits on the crawl it starts (shown in the progress), then extracts the listings', async () => {
    const ran = await pds(['extract', '--vendor', 'woo-categories.test', '--max-products', '3', ...FAST]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(
      /^pds: extract-woo-categories-test-\S+ pending, waiting for crawl crawl-woo-categories-test-[0-9a-f]{12}, /m,
    );
    expect(ran.stderr).toMatch(/completed, 3\/3 URLs \(100%\)/);
    expect(row(ran.stdout, 'success')).toEqual(['success', '3']);
  });

  it('crawls a store: progress lines with the steps, a steps table, the listings found, exit 0', async () => {
    const host = 'woo-categories.test';
    const ran = await pds(['crawl', host, ...FAST]);
    expect(ran.code, ran.stderr).toBe(0);
    const progress = ran.stderr.split('\n').filter((line) => /^pds: crawl-/.test(line));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress)
      expect(line).toMatch(
        /^pds: crawl-\S+ (pending|running|completed)(, step \d\/4 [A-Z][a-z ]+)?, \d+ listings found, [\d.]+ listings\/s$/,
      );
    expect(progress.some((line) => /, step \d\/4 /.test(line))).toBe(true);
    expect(progress.at(-1)).toMatch(/ completed, \d+ listings found/);
    for (const step of STEPS) expect(row(ran.stdout, step)).toEqual([step, 'completed']);
    expect(row(ran.stdout, host)?.[1]).toBe(String(sim.catalog(host).listingCount()));
  });
});

describe('pds keys', () => {
  it('creates a key on the running server (bin/keys.ts) that the CLI can then use', async () => {
    // A child process: the server is another process for it, as for any `pds keys` next to `npm start`.
    const created = await pdsProcess([
      'keys',
      'create',
      '--org',
      'cli-org',
      '--scopes',
      'search',
      '--data-dir',
      service.dataDir,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const key = /^key: +(\S+)$/m.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    const used = await pds(['search', 'shirt', '--mini', '--json'], { PDS_API_KEY: key });
    expect(used.code, used.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(used.stdout).data)).toBe(true);
    // The key has only the search scope: an extraction is refused (403) -> exit 3.
    const refused = await pds(['extract', 'https://jsonld-shop.test/p/1', '--api-key', key!]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/HTTP 403/);
    expect((await pds(['keys', 'bogus'])).code).toBe(2);
  });
});

describe('exit codes', () => {
  it('3 for a bad key (and for none), with the JSON error under --json', async () => {
    const bad = await pds(['crawl', 'woo-categories.test', '--json'], { PDS_API_KEY: 'not-a-real-key-000000000' });
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      exit_code: 3,
      error: { status: 401, body: { error: 'Invalid API key' } },
    });
    const none = await pds(['crawl', 'woo-categories.test'], { PDS_API_KEY: '' });
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('PDS_API_KEY');
  });

  it('2 for bad arguments, before anything is sent', async () => {
    // The real entry's exit code and stderr, as a child process.
    const missing = await pdsProcess(['crawl']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'vendor'");
    expect((await pds(['extract', 'https://a.test/p', '--timeout', 'soon'])).code).toBe(2);
    expect((await pds(['extract', join(work, 'no-such-file.txt')])).code).toBe(2);
    expect((await pds(['frobnicate'])).code).toBe(2);
    expect((await pds(['wait', 'not-an-execution'])).code).toBe(2);
    expect((await pds(['extract', 'https://a.test/p', '--base-url', 'ftp://x'])).code).toBe(2);
  });

  it('6 when the service cannot be reached; 0 for --help', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ran = await pds(['crawl', 'woo-categories.test'], { PDS_BASE_URL: `http://127.0.0.1:${port}` });
    expect(ran.code).toBe(6);
    expect(ran.stderr).toMatch(/cannot reach/);
    const help = await pds(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
  });
});
