// The change logs (adapters/dynamodb/changes.ts) on the embedded DynamoDB, under the product
// store that writes them: a re-extraction that changed something records it once; the same
// observation written again after a stop between its log entry and its record (the record still
// holds the old head) records nothing more; two writers racing on one product record each change
// once; the vendor's feed pages in the order seen across its shards and only from a grant's time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoChangeFeed } from '../../lambdas/adapters/dynamodb/changes';
import { dynamoProductStore } from '../../lambdas/adapters/dynamodb/products';
import { eventsOf, watchStateOfProduct } from '../../lambdas/domain/changes/model';
import type { StoredProduct } from '../../lambdas/ports/products';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';

let engines: Engines;
let clients: AwsClients;
let clock = Date.parse('2026-03-01T00:00:00Z');
const now = () => clock;

beforeAll(async () => {
  engines = await startEngines();
  clients = createClients({ ...loadConfig({}), endpoints: { dynamodb: engines.dynamodbEndpoint } });
});
afterAll(async () => {
  clients?.dynamodb.destroy();
  await engines?.stop();
});

const product = (url: string, price: number, available: boolean[]): ProductRecord =>
  ({
    id: url,
    url,
    is_available: available.some(Boolean),
    price: { currency: 'USD', current_value: price, compare_at_value: null },
    variants: available.map((is_available, i) => ({
      id: `v${i}`,
      sku: `SKU${i}`,
      title: `Size ${i}`,
      is_available,
      price: { currency: 'USD', current_value: price, compare_at_value: null },
    })),
  }) as unknown as ProductRecord;

const record = (vendor: string, url: string, price: number, available: boolean[]): StoredProduct => ({
  url,
  country: 'us',
  vendor,
  product: product(url, price, available),
  flags: { enrichment: false, reviews: false, image_tags: false, similar_products: false },
  updated_at: new Date(clock).toISOString(),
});

async function everything(vendor: string, since = '2026-01-01T00:00:00.000Z') {
  const feed = dynamoChangeFeed(clients.documents, engines.tableName, () => clock + 60_000);
  const events = [];
  let cursors: Record<string, string> = {};
  for (let page = 0; page < 50; page++) {
    const read = await feed.read({ partitions: [{ vendor, start: since, cursors }], limit: 2 });
    events.push(...read.entries.flatMap(eventsOf));
    cursors = { ...cursors, ...read.cursors };
    if (!read.more) break;
  }
  return events;
}

describe('change logs', () => {
  it('records a change once, however often the observation is written again', async () => {
    const feed = dynamoChangeFeed(clients.documents, engines.tableName, now);
    const store = dynamoProductStore(clients.documents, engines.tableName, feed);
    const vendor = 'once.example';
    const url = `https://${vendor}/p/1`;
    await store.putRecords([record(vendor, url, 20, [true, true])]);
    expect(await everything(vendor)).toEqual([]);

    clock += 1000;
    await store.putRecords([record(vendor, url, 15, [true, false])]);
    clock += 1000;
    await store.putAll([record(vendor, url, 15, [true, false])]);
    await store.put(record(vendor, url, 15, [true, false]));
    const events = await everything(vendor);
    expect(events.map((e) => [e.type, e.variant?.id ?? null, e.old_value, e.new_value])).toEqual([
      ['price', null, 20, 15],
      ['price', 'v0', 20, 15],
      ['price', 'v1', 20, 15],
      ['availability', 'v1', true, false],
    ]);

    // A writer that stopped after the log entry but before the record: the record still holds
    // the old head; the same observation again records nothing, a new one records only itself.
    const stale = { seq: 0, state: watchStateOfProduct(product(url, 20, [true, true])) };
    const heads = await feed.append([
      {
        url,
        vendor,
        log: await logOf(url),
        country: 'us',
        source: 'extraction',
        hint: stale,
        observed: watchStateOfProduct(product(url, 15, [true, false])),
      },
    ]);
    expect(heads[0].seq).toBe(1);
    expect(await everything(vendor)).toHaveLength(4);
  });

  it('two writers racing on one product each record their change once, in order', async () => {
    const feed = dynamoChangeFeed(clients.documents, engines.tableName, now);
    const a = dynamoProductStore(clients.documents, engines.tableName, feed);
    const b = dynamoProductStore(clients.documents, engines.tableName, feed);
    const vendor = 'race.example';
    const url = `https://${vendor}/p/1`;
    await a.put(record(vendor, url, 10, [true]));
    clock += 1000;
    await Promise.all([a.putRecords([record(vendor, url, 9, [true])]), b.putRecords([record(vendor, url, 8, [true])])]);
    const prices = (await everything(vendor)).filter((e) => e.type === 'price' && !e.variant);
    // Both observations are in the log, each once, chained (the second compares with the first).
    expect(prices).toHaveLength(2);
    expect(prices[0].old_value).toBe(10);
    expect(prices[1].old_value).toBe(prices[0].new_value);
    expect(new Set(prices.map((e) => e.id)).size).toBe(2);
  });

  it('pages a vendor in the order seen across its shards, from a time', async () => {
    const feed = dynamoChangeFeed(clients.documents, engines.tableName, now);
    const store = dynamoProductStore(clients.documents, engines.tableName, feed);
    const vendor = 'many.example';
    const urls = Array.from({ length: 9 }, (_, i) => `https://${vendor}/p/${i}`);
    await store.putRecords(urls.map((url) => record(vendor, url, 30, [true])));
    clock += 1000;
    const middle = new Date(clock).toISOString();
    for (const url of urls) {
      clock += 10;
      await store.put(record(vendor, url, 25, [true]));
    }
    const all = (await everything(vendor)).filter((e) => !e.variant);
    expect(all.map((e) => e.url)).toEqual(urls);
    expect(all.map((e) => e.seen_at)).toEqual([...all.map((e) => e.seen_at)].sort());
    expect((await everything(vendor, new Date(clock + 1).toISOString())).length).toBe(0);
    expect((await everything(vendor, middle)).filter((e) => !e.variant)).toHaveLength(9);
  });
  it('reads nothing, and fails nothing, from a start the feed has not reached (a grant just made, a time to come)', async () => {
    // The feed reads up to a second ago: a start after that (an organization granted its vendor
    // a moment ago, or `since` in the future) is an empty page, not a query DynamoDB refuses
    // (BETWEEN with its lower bound above its upper one).
    const feed = dynamoChangeFeed(clients.documents, engines.tableName, now);
    const store = dynamoProductStore(clients.documents, engines.tableName, feed);
    const vendor = 'fresh-grant.example';
    await store.putRecords([record(vendor, `https://${vendor}/p/1`, 30, [true])]);
    clock += 10;
    await store.put(record(vendor, `https://${vendor}/p/1`, 20, [true]));
    for (const start of [new Date(clock - 100).toISOString(), new Date(clock + 86_400_000).toISOString()]) {
      const read = await feed.read({ partitions: [{ vendor, start, cursors: {} }], limit: 5 });
      expect(read).toEqual({ entries: [], cursors: {}, more: false });
    }
  });

  it('grants an organization its vendors once: the first time stays, a job returning to them reads them in one call', async () => {
    const feed = dynamoChangeFeed(clients.documents, engines.tableName, now);
    const sent: string[] = [];
    const counting = {
      send: (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        sent.push(command.constructor.name);
        return (clients.documents.send as (...args: unknown[]) => unknown)(command, ...rest);
      },
    } as unknown as typeof clients.documents;
    const counted = dynamoChangeFeed(counting, engines.tableName, now);
    await feed.grant('grant-org', ['a.test', 'b.test'], '2026-03-01T00:00:00.000Z');
    await counted.grant('grant-org', ['a.test', 'b.test', 'c.test', 'a.test'], '2026-03-02T00:00:00.000Z');
    expect(sent).toEqual(['BatchGetCommand', 'PutCommand']); // only c.test was missing
    sent.length = 0;
    await counted.grant('grant-org', ['c.test', 'b.test', 'a.test'], '2026-03-03T00:00:00.000Z');
    expect(sent).toEqual(['BatchGetCommand']);
    const grants = await feed.grants('grant-org');
    expect(Object.fromEntries(grants.map((g) => [g.vendor, g.since]))).toEqual({
      'a.test': '2026-03-01T00:00:00.000Z',
      'b.test': '2026-03-01T00:00:00.000Z',
      'c.test': '2026-03-02T00:00:00.000Z',
    });
  });
});

/** The log name the product store gives a URL's US record. */
async function logOf(url: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return `${createHash('sha256').update(url).digest('hex').slice(0, 32)}#us`;
}
