// POST /api/product as it runs on AWS, where the route's function ships no browser: the local
// runtime configured like that function (PDS_RENDER_FUNCTION), its Lambda client pointed at a
// loopback stand-in for the Lambda service (AWS_ENDPOINT_URL_LAMBDA) that records each Invoke and
// runs the render function's real direct entry (lambdas/workers/render-direct.ts) in this
// process. Only the AWS service is stood in for: the HTML pass, the escalation, the Invoke, the
// browser and the store simulator's rendered-only stores are the real ones.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { handler as direct } from '../../lambdas/workers/render-direct';
import { type SimProduct, startStoreSimulator, type StoreSimulator } from '../stores';
import { validatedClient } from './helpers/validated-client';

const KEY = 'render-direct-key-0000001';
const FUNCTION = 'pds-render-direct';
const BUDGET_MS = 6000;
const RENDERED = ['spa-inline.test', 'spa-fetch.test', 'spa-hydrate.test'];
const ENV_KEYS = ['AWS_ENDPOINT_URL_LAMBDA', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;

let service: LocalService;
let sim: StoreSimulator;
let lambda: Server;
let doc: Record<string, any>;
const saved: Record<string, string | undefined> = {};
const invokes: Array<{ path: string; invocationType: unknown; payload: any }> = [];
/** The next invokes answer a function error instead of running the entry. */
let failing = 0;
const { call } = validatedClient(() => ({ baseUrl: service.url, doc }), KEY);
const truth = (host: string, index = 0): SimProduct => sim.store(host).product(index);
const urlOf = (host: string, index = 0) => sim.store(host).productUrl(index);

/** The Lambda service: POST /2015-03-31/functions/<name>/invocations runs the direct entry with the payload. */
function startLambdaService(): Promise<Server> {
  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      invokes.push({ path: req.url!, invocationType: req.headers['x-amz-invocation-type'], payload });
      if (failing > 0) {
        failing--;
        res.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
        return res.end(JSON.stringify({ errorType: 'Runtime.ExitError', errorMessage: 'Runtime exited' }));
      }
      const answer = await direct(payload);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 4 });
  lambda = await startLambdaService();
  for (const key of ENV_KEYS) saved[key] = process.env[key];
  // The SDK's own settings: the service endpoint, and credentials so the chain never asks instance metadata.
  process.env.AWS_ENDPOINT_URL_LAMBDA = `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`;
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-render-direct-')),
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RENDER_BUDGET_MS: String(BUDGET_MS),
      PDS_RENDER_FUNCTION: FUNCTION,
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
    },
    bootstrapKeys: `${KEY}:org-render-direct`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, any>;
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  lambda?.closeAllConnections();
  await new Promise((resolve) => (lambda ? lambda.close(resolve) : resolve(undefined)));
  await sim?.close();
  for (const key of ENV_KEYS) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

beforeEach(() => {
  invokes.length = 0;
  failing = 0;
});

const product = (url: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/api/product', { url, enable_enrichment: false, ...extra });

describe('POST /api/product where the function has no browser', () => {
  it.each(RENDERED)(
    'returns the product of %s, rendered by the render function through one RequestResponse Invoke',
    async (host) => {
      const truthy = truth(host, 1);
      const reply = await product(urlOf(host, 1));
      expect(reply.status).toBe(200);
      expect(reply.body.meta.found, reply.body.meta.message).toBe(true);
      expect(reply.body.product.title).toBe(truthy.title);
      expect(reply.body.product.price_amount).toBeCloseTo(truthy.price, 2);
      expect(reply.body.product.price_currency).toBe(truthy.currency);
      expect(reply.body.product.is_available).toBe(truthy.available);
      expect(reply.body.product.images.map((i: any) => i.url)).toEqual(truthy.images.map((i) => i.url));
      expect(invokes).toEqual([
        {
          path: `/2015-03-31/functions/${FUNCTION}/invocations`,
          invocationType: 'RequestResponse',
          payload: expect.objectContaining({ url: urlOf(host, 1) }),
        },
      ]);
    },
    30_000,
  );

  it('never asks the render function for a page its HTML reads', async () => {
    const reply = await product(urlOf('dom-shop.test', 1));
    expect(reply.body.meta.found, reply.body.meta.message).toBe(true);
    expect(invokes).toEqual([]);
  }, 30_000);

  it('render: always asks for a page its HTML reads too', async () => {
    const reply = await product(urlOf('jsonld-shop.test', 2), { render: 'always' });
    expect(reply.body.meta.found, reply.body.meta.message).toBe(true);
    expect(reply.body.product.title).toBe(truth('jsonld-shop.test', 2).title);
    expect(invokes).toHaveLength(1);
  }, 30_000);

  it('a render function that fails ends the page as a failed render does (other), never a 500; the next page renders', async () => {
    failing = 1;
    const failed = await product(urlOf('spa-inline.test', 2));
    expect(failed.status).toBe(200);
    expect(failed.body.meta.found).toBe(false);
    expect(failed.body.meta.outcome).toBe('other');
    const next = await product(urlOf('spa-fetch.test', 2));
    expect(next.body.meta.found, next.body.meta.message).toBe(true);
    expect(invokes).toHaveLength(2);
  }, 30_000);

  it('a page that loops forever ends as other within its budget there, and the next page renders', async () => {
    const started = Date.now();
    const looping = await product(urlOf('spa-loop.test', 3));
    expect(looping.body.meta.found).toBe(false);
    expect(looping.body.meta.outcome).toBe('other');
    expect(Date.now() - started).toBeLessThan(BUDGET_MS + 5000);
    const next = await product(urlOf('spa-hydrate.test', 3));
    expect(next.body.meta.found, next.body.meta.message).toBe(true);
    expect(next.body.product.title).toBe(truth('spa-hydrate.test', 3).title);
  }, 40_000);
});
