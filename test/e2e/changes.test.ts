// The change feed end to end through the local runtime and the store simulator: an organization
// crawls and extracts a store, subscribes a webhook, the store drops a price, sells out a
// variant and removes a listing; the re-extraction and the re-crawl record each change once, in
// GET /v2/changes and at the receiver, also when the service stops while the receiver holds the
// first delivery unanswered and starts again on the same data; another organization sees none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { startStoreSimulator, type StoreSimulator } from '../stores';
import { createPdsClient } from '../../client';
import { changesCommand } from '../../bin/changes-command';
import { holdingReceiver, waitFor } from './helpers/holding-receiver';
import { validateSchema } from './helpers/openapi-validator';

const KEY_A = 'changes-e2e-key-org-a-0001';
const KEY_B = 'changes-e2e-key-org-b-0001';
const KEY_C = 'changes-e2e-key-org-c-0001';
const HOOKS_HOST = 'hooks.test';
const HOST = 'shopify-collections.test';

let sim: StoreSimulator;
let receiverPort: number;
const hooks = holdingReceiver();
const { received } = hooks;
const dataDir = mkdtempSync(join(tmpdir(), 'pds-changes-e2e-'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const boot = () =>
  startLocalService({
    port: 0,
    dataDir,
    env: {
      PDS_RESOLVE: `${sim.resolveEnv},${HOOKS_HOST}=127.0.0.1:${receiverPort}`,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_FAULT_RATE: '0',
      PDS_DUPLICATE_RATE: '0',
      PDS_WEBHOOK_RETRY_DELAYS: '1,1,1',
      PDS_LOG_LEVEL: 'error',
    },
    bootstrapKeys: `${KEY_A}:org-a,${KEY_B}:org-b,${KEY_C}:org-c`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });

let service: LocalService | undefined;

async function api(method: string, path: string, body?: unknown, key = KEY_A): Promise<{ status: number; body: any }> {
  const reply = await fetch(`${service!.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
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

/** Every change of org A's feed, read page by page from the start. */
async function feed(query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor = '';
  for (let page = 0; page < 50; page++) {
    const reply = await api('GET', `/v2/changes?page_size=5${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    events.push(...reply.body.data);
    cursor = reply.body.pagination.next_cursor;
    if (!reply.body.pagination.has_next) break;
  }
  return events;
}

beforeAll(async () => {
  receiverPort = await hooks.listen();
  sim = await startStoreSimulator({ storeSizes: { [HOST]: 12 } });
  service = await boot();
  hooks.secret = (await api('GET', '/v2/webhooks/secret')).body.secret;
}, 60_000);

afterAll(async () => {
  await service?.stop(1000);
  await sim?.close();
  await hooks.close();
});

describe('change feed', () => {
  it('records a price drop, a variant selling out and a removed listing once, in the feed and at the webhook, across a restart', async () => {
    const store = sim.catalog(HOST);
    const [dropped, soldOut, removed] = store.listingIndexes(0, 3);
    const urls = [dropped, soldOut].map((i) => store.store.productUrl(i));
    await crawl();
    await extract(urls);
    // Nothing changed yet: first sightings are no changes. A time to come reads an empty page too.
    expect(await feed()).toEqual([]);
    expect(await feed('&since=2099-01-01T00:00:00Z')).toEqual([]);

    const subscribed = await api('POST', '/v2/webhooks/subscriptions', {
      url: `http://${HOOKS_HOST}/changes`,
      events: ['product.changed'],
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200);
    expect(subscribed.body.id).toMatch(/^whs_/);
    expect((await api('GET', '/v2/webhooks/subscriptions')).body.data.map((s: any) => s.id)).toEqual([
      subscribed.body.id,
    ]);

    // Organization C extracts one product through the legacy synchronous operation only.
    expect((await api('GET', `/v2/changes?vendor=${HOST}`, undefined, KEY_C)).status).toBe(404);
    const legacy = await api('POST', '/api/products', { urls: [urls[0]] }, KEY_C);
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(200);

    const before = store.store.product(dropped).price;
    store.change(dropped, { price: Math.round(before * 50) / 100 });
    store.change(soldOut, { soldOut: [0] });
    store.remove([removed]);
    await extract(urls);
    await crawl();

    // The receiver holds the first delivery; the service stops meanwhile and starts again.
    await waitFor('the first delivery', () => hooks.held !== null);
    await service!.stop(1000);
    service = undefined;
    hooks.held!.destroy();
    service = await boot();

    const events = await waitFor('every change at the receiver', () => {
      const byId = new Map<string, any>();
      for (const r of received) for (const change of r.json.data.changes) byId.set(change.id, change);
      const all = [...byId.values()];
      const done =
        all.some((c) => c.type === 'listing_removed') &&
        all.some((c) => c.type === 'availability' && c.source === 'extraction') &&
        all.some((c) => c.type === 'price' && c.source === 'extraction' && c.variant === null);
      return done ? all : undefined;
    });
    // Give a stray duplicate the time to show.
    await sleep(2_500);

    const productPrice = (list: any[]) =>
      list.filter((c) => c.type === 'price' && c.source === 'extraction' && c.variant === null);
    const variantSoldOut = (list: any[]) =>
      list.filter(
        (c) => c.type === 'availability' && c.source === 'extraction' && c.variant?.id && c.new_value === false,
      );
    const listingGone = (list: any[]) => list.filter((c) => c.type === 'listing_removed');

    const inFeed = await feed();
    for (const list of [events, inFeed]) {
      expect(productPrice(list)).toHaveLength(1);
      expect(productPrice(list)[0].url).toBe(urls[0]);
      expect(productPrice(list)[0].new_value).toBeLessThan(productPrice(list)[0].old_value);
      expect(variantSoldOut(list)).toHaveLength(1);
      expect(variantSoldOut(list)[0].url).toBe(urls[1]);
      expect(variantSoldOut(list)[0].old_value).toBe(true);
      expect(listingGone(list)).toHaveLength(1);
      expect(listingGone(list)[0].url).toBe(store.store.productUrl(removed));
    }
    // Each change once in the feed, and in exactly one delivery (a redelivery repeats its body).
    expect(new Set(inFeed.map((c) => c.id)).size).toBe(inFeed.length);
    expect(new Set(events.map((c) => c.id))).toEqual(new Set(inFeed.map((c) => c.id)));
    const bodies = new Map<string, string>();
    for (const r of received) {
      expect(r.signatureValid).toBe(true);
      expect(r.json.event).toBe('product.changed');
      if (bodies.has(r.deliveryId)) expect(r.body).toBe(bodies.get(r.deliveryId));
      bodies.set(r.deliveryId, r.body);
    }
    // Every body is what the served document's `webhooks.productChanged` says a receiver gets.
    const doc = (await (await fetch(`${service!.url}/openapi.json`)).json()) as Record<string, any>;
    const schema = doc.webhooks.productChanged.post.requestBody.content['application/json'].schema;
    expect(schema.$ref).toBe('#/components/schemas/ProductChangedEvent');
    for (const r of received) expect(validateSchema(schema, r.json, doc)).toEqual([]);
    expect(validateSchema(schema, { ...received[0].json, data: { changes: [{}] } }, doc)).not.toEqual([]);
    const perDelivery = [...bodies.values()].flatMap((body) => JSON.parse(body).data.changes.map((c: any) => c.id));
    expect(perDelivery.length).toBe(new Set(perDelivery).size);
    // The held delivery was sent again after the restart, with the same id.
    expect(received.length).toBeGreaterThan(bodies.size);

    // In the order seen, per product.
    const seen = inFeed.map((c) => c.seen_at);
    expect([...seen].sort()).toEqual(seen);
    // Filters.
    expect((await feed('&types=listing_removed')).map((c) => c.type)).toEqual(['listing_removed']);
    expect((await api('GET', '/v2/changes?types=nope')).status).toBe(400);

    const log = await api('GET', `/v2/webhooks/subscriptions/${subscribed.body.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.data.every((d: any) => d.state === 'delivered')).toBe(true);

    // `pds changes` prints each change once, and the cursor it ends at reads nothing more.
    const lines: string[] = [];
    const notes: string[] = [];
    const io = { json: false, out: (text: string) => lines.push(text), err: (text: string) => notes.push(text) };
    const client = createPdsClient({ baseUrl: service!.url, apiKey: KEY_A });
    expect(await changesCommand(client, io, { vendor: HOST })).toBe(0);
    expect(lines).toHaveLength(inFeed.length);
    expect(lines.filter((line) => line.includes(' listing_removed '))).toEqual([
      `${listingGone(inFeed)[0].seen_at} listing_removed ${store.store.productUrl(removed)} (crawl)`,
    ]);
    const cursor = /--cursor (\S+)/.exec(notes[0])![1];
    const after: string[] = [];
    await changesCommand(client, { ...io, out: (text) => after.push(text) }, { vendor: HOST, cursor });
    expect(after).toEqual([]);

    // The legacy extraction let organization C see the vendor's changes from then on.
    const legacyFeed = await api('GET', `/v2/changes?vendor=${HOST}&page_size=100`, undefined, KEY_C);
    expect(legacyFeed.status).toBe(200);
    expect(legacyFeed.body.data.map((c: any) => c.id)).toEqual(inFeed.map((c) => c.id));

    // Another organization sees none of it.
    const other = await api('GET', '/v2/changes', undefined, KEY_B);
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual([]);
    expect((await api('GET', `/v2/changes?vendor=${HOST}`, undefined, KEY_B)).status).toBe(404);
    expect(
      (await api('GET', `/v2/webhooks/subscriptions/${subscribed.body.id}/deliveries`, undefined, KEY_B)).status,
    ).toBe(404);
    expect((await api('DELETE', `/v2/webhooks/subscriptions/${subscribed.body.id}`, undefined, KEY_B)).status).toBe(
      404,
    );
    expect((await api('DELETE', `/v2/webhooks/subscriptions/${subscribed.body.id}`)).status).toBe(200);
    expect((await api('GET', '/v2/webhooks/subscriptions')).body.data).toEqual([]);
  }, 120_000);
});
