// `npm run bench -- search-http [products]`: search through HTTP. Starts `npm start`'s entry
// (bin/local.ts) on a temporary data directory, stores `products` (default 20,000) generated
// products through the product catalog (the extraction jobs' own write path: records, change
// feed, vendor counts), waits until search has caught up with the feed, then sends 500 queries
// (half with filters) one at a time to POST /api/search and POST /api/regular-search: p50/p99
// per operation over loopback (auth, rate limit, metering, validation, the index, hydration of
// the page from the table, legacy shaping), with the machine's load average.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../lambdas/config';
import { productCatalogOf } from '../../lambdas/composition/catalog';
import { createContainer } from '../../lambdas/composition/container';
import type { ExtractOptions } from '../../lambdas/domain/extraction/types';
import { rng } from '../stores';
import { catalogStores, simToRecord } from './_search-catalog';
import { freePort, stopProcessGroup } from './_service-process';

const TOTAL = Number(process.argv[3] ?? 20_000);
const QUERIES = 500;
const KEY = 'bench-search-key-0123456789';
const READY_TIMEOUT_MS = 120_000;
const CATCH_UP_TIMEOUT_MS = 300_000;

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function call(url: string, method: 'GET' | 'POST', body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      url,
      {
        agent,
        method,
        timeout: 30_000,
        headers: {
          'x-api-key': KEY,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`bin/local.ts exited with ${child.exitCode}`);
    try {
      if ((await call(`${url}/health`, 'GET')).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('not ready in time');
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

export default async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-search-http-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('npx', ['tsx', 'bin/local.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      PDS_DATA_DIR: dataDir,
      PDS_BOOTSTRAP_KEYS: `${KEY}:bench-org`,
      PDS_RATE_LIMIT: '1000000:100000000',
      NODE_NO_WARNINGS: '1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  try {
    await waitReady(url, child);
    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
      dynamodbEndpoint: string;
      tableName: string;
    };
    const deps = createContainer(
      loadConfig({ PDS_DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint, PDS_TABLE_NAME: runtime.tableName }),
    );
    const options = {
      countryCode: 'us',
      enableEnrichment: false,
      enableReviews: false,
      enableImageTags: false,
      enableSimilarProducts: false,
    } as ExtractOptions;
    const stores = catalogStores(Math.ceil(TOTAL / 12));
    let stored = 0;
    const t0 = performance.now();
    // Batches of 500 as an extraction worker would write them, stores interleaved.
    let batch: Array<{ url: string; product: ReturnType<typeof simToRecord> }> = [];
    for (let i = 0; stored + batch.length < TOTAL; i++) {
      for (const store of stores) {
        if (stored + batch.length >= TOTAL) break;
        const p = store.product(i);
        batch.push({ url: p.url, product: simToRecord(store, p) });
        if (batch.length === 500) {
          await productCatalogOf(deps).rememberAll(batch, options);
          stored += batch.length;
          batch = [];
        }
      }
    }
    if (batch.length) await productCatalogOf(deps).rememberAll(batch, options);
    stored += batch.length;
    const storeMs = performance.now() - t0;
    deps.dispose();

    // Search catches up from the change feed as searches arrive (at most once a second).
    const t1 = performance.now();
    let indexed = 0;
    while (performance.now() - t1 < CATCH_UP_TIMEOUT_MS) {
      const feed = await call(`${url}/api/feed?limit=1`, 'GET');
      indexed = feed.json?.meta?.totalItems ?? 0;
      if (indexed >= TOTAL) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const catchUpMs = performance.now() - t1;

    const random = rng('search-http');
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
    const words = ['classic', 'vintage', 'premium', 'cotton', 'wool', 'canvas', 'ceramic', 'walnut'];
    const nouns = ['tee', 'hoodie', 'sneakers', 'mug', 'headphones', 'desk lamp', 'trainers'];
    const bodies = Array.from({ length: QUERIES }, (_, i) => {
      const query = random() < 0.5 ? pick(nouns) : `${pick(words)} ${pick(nouns)}`;
      if (i % 2 === 0) return { query };
      const min = Math.floor(random() * 80);
      return {
        query,
        filters: {
          min_price: min,
          max_price: min + 20 + Math.floor(random() * 120),
          ...(random() < 0.6 ? { is_available: true } : {}),
        },
      };
    });

    const rows: string[] = [];
    for (const path of ['/api/search', '/api/regular-search']) {
      for (const body of bodies.slice(0, 20)) await call(`${url}${path}`, 'POST', body);
      const plain: number[] = [];
      const filtered: number[] = [];
      const statuses: Record<number, number> = {};
      for (const body of bodies) {
        const t = performance.now();
        const { status } = await call(`${url}${path}`, 'POST', body);
        ('filters' in body ? filtered : plain).push(performance.now() - t);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      rows.push(
        `| POST ${path}, no filters | ${percentile(plain, 50).toFixed(1)} | ${percentile(plain, 99).toFixed(1)} | ${JSON.stringify(statuses)} |`,
      );
      rows.push(
        `| POST ${path}, with filters | ${percentile(filtered, 50).toFixed(1)} | ${percentile(filtered, 99).toFixed(1)} | |`,
      );
    }
    console.log(
      `search-http: ${TOTAL.toLocaleString('en-US')} products stored through the catalog in ${(storeMs / 1000).toFixed(1)} s; search caught up with the feed in ${(catchUpMs / 1000).toFixed(1)} s (${indexed.toLocaleString('en-US')} in the feed)`,
    );
    console.log(
      `${QUERIES} queries per operation, one at a time over loopback, 20 products per page; machine load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')}`,
    );
    console.log('\n| operation (HTTP) | p50 ms | p99 ms | statuses |\n|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    agent.destroy();
    await stopProcessGroup(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
