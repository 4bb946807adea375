// The change feed across a kill -9: `npm start`'s entry runs as a separate process; a store drops a
// price, sells out a variant and removes a listing; while the webhook receiver holds the first
// product.changed delivery unanswered the process is killed with SIGKILL, and a new process on the
// same data directory resumes. Each change is once in GET /v2/changes and once at the receiver (a
// redelivery carries the same X-PDS-Delivery-Id and the same body), in the order seen per product.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { holdingReceiver, waitFor } from './helpers/holding-receiver';
import { exitOf, killLocalProcesses, startLocalProcess, type LocalProcess } from './helpers/local-process';

const KEY = 'changes-kill-e2e-key-org-a-01';
const HOOKS_HOST = 'hooks.test';
const HOST = 'shopify-collections.test';

let sim: StoreSimulator;
let receiverPort: number;
const hooks = holdingReceiver();
const { received } = hooks;
const dataDir = mkdtempSync(join(tmpdir(), 'pds-changes-kill-'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `npm start` on the data directory; resolves at its ready line (bounded). */
function spawnService(): Promise<LocalProcess> {
  return startLocalProcess({
    env: {
      PDS_DATA_DIR: dataDir,
      PDS_BOOTSTRAP_KEYS: `${KEY}:org-kill`,
      PDS_RESOLVE: `${sim.resolveEnv},${HOOKS_HOST}=127.0.0.1:${receiverPort}`,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
      PDS_WEBHOOK_RETRY_DELAYS: '1,1,1',
      PDS_RATE_LIMIT: '10000:100000',
      PDS_LOG_LEVEL: 'error',
    },
  });
}

let service: LocalProcess | undefined;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const reply = await fetch(`${service!.url}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: reply.status, body: await reply.json() };
}

async function finished(path: string): Promise<any> {
  return waitFor(path, async () => {
    const reply = await api('GET', path);
    return reply.body.status === 'completed' || reply.body.status === 'failed' ? reply.body : undefined;
  });
}

async function crawl() {
  const started = await api('POST', '/v2/crawl', { vendor: HOST });
  expect(started.status).toBe(202);
  expect((await finished(`/v2/crawl/${started.body.execution_id}`)).status).toBe('completed');
}

async function extract(urls: string[]) {
  const started = await api('POST', '/v2/extract', { urls });
  expect(started.status).toBe(202);
  expect((await finished(`/v2/extract/${started.body.execution_id}`)).status).toBe('completed');
}

async function feed(): Promise<any[]> {
  const events: any[] = [];
  let cursor = '';
  for (let page = 0; page < 50; page++) {
    const reply = await api('GET', `/v2/changes?page_size=4${cursor ? `&cursor=${cursor}` : ''}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    events.push(...reply.body.data);
    cursor = reply.body.pagination.next_cursor;
    if (!reply.body.pagination.has_next) break;
  }
  return events;
}

/** What identifies one watched value: the product or listing, its variant and the field. */
const subject = (c: any) => `${c.url}|${c.variant?.id ?? ''}|${c.source}|${c.type.replace(/^listing_.*/, 'listing')}`;

beforeAll(async () => {
  receiverPort = await hooks.listen();
  sim = await startStoreSimulator({ storeSizes: { [HOST]: 12 } });
  service = await spawnService();
  hooks.secret = (await api('GET', '/v2/webhooks/secret')).body.secret;
}, 120_000);

afterAll(async () => {
  killLocalProcesses();
  await sim?.close();
  await hooks.close();
});

describe('change feed across kill -9', () => {
  it('delivers each change once, in order per product, when the process is killed mid-delivery and restarted', async () => {
    const store = sim.catalog(HOST);
    const [dropped, soldOut, removed, dropped2] = store.listingIndexes(0, 4);
    const urls = [dropped, soldOut, dropped2].map((i) => store.store.productUrl(i));
    await crawl();
    await extract(urls);
    const subscribed = await api('POST', '/v2/webhooks/subscriptions', {
      url: `http://${HOOKS_HOST}/changes`,
      events: ['product.changed'],
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200);

    // A first round of changes; its delivery is held by the receiver.
    const price = store.store.product(dropped).price;
    store.change(dropped, { price: Math.round(price * 80) / 100 });
    store.change(soldOut, { soldOut: [0] });
    await extract(urls);
    await waitFor('the first delivery', () => hooks.held !== null);
    const firstRound = await feed();
    expect(firstRound.length).toBeGreaterThanOrEqual(2);

    // kill -9 while the receiver holds it unanswered (well within its 10 s timeout), then a new
    // process on the same data directory, which makes a second round of changes.
    const first = service!;
    first.child.kill('SIGKILL');
    await exitOf(first.child);
    hooks.held!.destroy();
    expect(received).toHaveLength(1);
    service = await spawnService();
    store.change(dropped, { price: Math.round(price * 60) / 100 });
    store.change(dropped2, { price: Math.round(store.store.product(dropped2).price * 70) / 100 });
    store.remove([removed]);
    await extract(urls);
    await crawl();
    // A read stops a second before now (an entry is stamped just before it is written).
    await sleep(1_200);
    const recordedBefore = await feed();
    expect(recordedBefore.slice(0, firstRound.length)).toEqual(firstRound);

    const expected = new Set(recordedBefore.map((c) => c.id));
    const arrived = await waitFor('every change at the receiver', () => {
      const ids = new Set(received.flatMap((r) => r.json.data.changes.map((c: any) => c.id)));
      return [...expected].every((id) => ids.has(id)) ? ids : undefined;
    });
    // Give a stray duplicate the time to show.
    await sleep(3_000);

    const inFeed = await feed();
    // Each change once in the feed.
    expect(new Set(inFeed.map((c) => c.id)).size).toBe(inFeed.length);
    expect(inFeed.map((c) => c.id)).toEqual(recordedBefore.map((c) => c.id));
    expect(arrived).toEqual(expected);
    const prices = inFeed.filter((c) => c.type === 'price' && c.source === 'extraction' && c.variant === null);
    expect(prices.filter((c) => c.url === urls[0]).map((c) => c.new_value)).toEqual([
      Math.round(price * 80) / 100,
      Math.round(price * 60) / 100,
    ]);
    expect(prices.filter((c) => c.url === urls[2])).toHaveLength(1);
    expect(inFeed.filter((c) => c.type === 'availability' && c.variant?.id && c.new_value === false)).toHaveLength(1);
    expect(inFeed.filter((c) => c.type === 'listing_removed').map((c) => c.url)).toEqual([
      store.store.productUrl(removed),
    ]);

    // A redelivery repeats its delivery's id and body; no change is in two deliveries.
    const bodies = new Map<string, string>();
    for (const r of received) {
      expect(r.signatureValid).toBe(true);
      expect(r.json.event).toBe('product.changed');
      expect(r.json.id).toBe(r.deliveryId);
      if (bodies.has(r.deliveryId)) expect(r.body).toBe(bodies.get(r.deliveryId));
      bodies.set(r.deliveryId, r.body);
    }
    expect(received.filter((r) => r.deliveryId === received[0]!.deliveryId).length).toBeGreaterThanOrEqual(2);
    expect(bodies.size).toBeGreaterThanOrEqual(2);
    const deduplicated = [...bodies.values()].flatMap((body) => JSON.parse(body).data.changes);
    expect(deduplicated.length).toBe(new Set(deduplicated.map((c: any) => c.id)).size);

    // In order per product at the receiver (first arrival of each delivery) and in the feed.
    const order = (list: any[]) => {
      const bySubject = new Map<string, string[]>();
      for (const c of list) bySubject.set(subject(c), [...(bySubject.get(subject(c)) ?? []), c.id]);
      return bySubject;
    };
    expect(order(deduplicated)).toEqual(order(inFeed));
    const seen = inFeed.map((c) => c.seen_at);
    expect([...seen].sort()).toEqual(seen);

    const log = await api('GET', `/v2/webhooks/subscriptions/${subscribed.body.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.data.map((d: any) => d.state)).toEqual([...bodies.keys()].map(() => 'delivered'));
  }, 240_000);
});
