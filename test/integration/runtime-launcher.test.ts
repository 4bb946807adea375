// `npm start`'s launcher (bin/start.mjs): the service from a cached esbuild bundle with plain
// Node. The bundle must run the same code as tsx does: routes, and the workers and state machines
// whose modules are chunks of the bundle (an extraction through Step Functions, SQS and the
// extract worker against the store simulator), with import.meta.url still each source file's.
import '../../lambdas/local/polyfills';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerModules, registeredModule } from '../../lambdas/local/modules';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { exitOf, killLocalProcesses, startLocalProcess } from '../e2e/helpers/local-process';

const CACHE = join(process.cwd(), 'node_modules', '.cache', 'pds-local');
const KEY = 'launcher-test-key-0123456789';
const PHASES = /^startup phases (\{.*\})$/m;
let sim: StoreSimulator;

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 5 });
});
afterAll(async () => {
  killLocalProcesses();
  await sim?.close();
});

describe('module registry', () => {
  it('answers a registered path with or without extension, and its index, and nothing else', async () => {
    const load = async () => ({ handler: () => 'x' });
    registerModules({ '/registry-test/workers/a': load, '/registry-test/workers/b/index': load });
    expect(registeredModule('/registry-test/workers/a')).toBe(load);
    expect(registeredModule('/registry-test/workers/a.ts')).toBe(load);
    expect(registeredModule('/registry-test/workers/b')).toBe(load);
    expect(registeredModule('/registry-test/workers/c')).toBeUndefined();
  });
});

describe('npm start from the cached bundle (bin/start.mjs)', () => {
  it('serves routes and runs an extraction through the bundled workers and state machine', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-launch-'));
    const started = await startLocalProcess({
      env: {
        PDS_DATA_DIR: dataDir,
        PDS_STARTUP_PHASES: '1',
        PDS_BOOTSTRAP_KEYS: `${KEY}:launcher-org`,
        PDS_RESOLVE: sim.resolveEnv,
        PDS_CRAWL_DELAY_MS: '0',
      },
      until: PHASES,
      maxMs: 120_000,
    });
    const { url } = started;
    const phases = JSON.parse(PHASES.exec(started.output())![1]!) as Record<string, number>;
    // The phases the start-up bench prints: the launcher's (node, fingerprint, build) and the service's.
    expect(Object.keys(phases)).toEqual(expect.arrayContaining(['node', 'fingerprint', 'build', 'modules', 'engines']));
    const bundles = readdirSync(CACHE).filter((name) => name.startsWith('bundle-'));
    expect(bundles.some((name) => existsSync(join(CACHE, name, 'index.mjs')))).toBe(true);

    expect((await fetch(`${url}/health`)).status).toBe(200);
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    expect((await fetch(`${url}/v2/vendors`, { headers })).status).toBe(200);
    const unknown = await fetch(`${url}/v2/no-such-route`, { headers });
    expect(unknown.status).toBe(404);

    const productUrl = sim.store('shopify-apparel.test').productUrl(1);
    const start = await fetch(`${url}/v2/extract`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ urls: [productUrl] }),
    });
    expect(start.status).toBe(202);
    const { execution_id: id } = (await start.json()) as { execution_id: string };
    let status = '';
    let body: { status?: string; meta?: { result?: Record<string, unknown> } } = {};
    for (let attempt = 0; attempt < 240 && status !== 'completed' && status !== 'failed'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      body = (await (await fetch(`${url}/v2/extract/${id}`, { headers })).json()) as typeof body;
      status = body.status ?? '';
    }
    expect(status).toBe('completed');
    expect(body.meta?.result).toMatchObject({ products_requested: 1, products_successful: 1 });

    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { pid: number };
    expect(runtime.pid).toBe(started.child.pid);
    started.child.kill('SIGTERM');
    await exitOf(started.child);
    expect(started.child.exitCode).toBe(0);
    expect(started.output()).not.toMatch(/Worker module not found|exports no handler|schedule .*:/);
  });
});
