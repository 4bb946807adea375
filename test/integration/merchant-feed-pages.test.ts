// A vendor's product records by cursor on the embedded DynamoDB (adapters/dynamodb/product-pages):
// a catalog of 1,200 records read in pages of 100 gives each exactly once, only its country's,
// another vendor's records never; a record updated mid-paging is read again with its new values;
// a cursor of another vendor or a forged one is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { loadConfig } from '../../lambdas/config';
import { createContainer, type Container } from '../../lambdas/composition/container';
import { dynamoProductPages } from '../../lambdas/adapters/dynamodb/product-pages';
import { dynamoProductStore } from '../../lambdas/adapters/dynamodb/products';
import type { StoredProduct } from '../../lambdas/ports/products';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';

const CATALOG = 1_200;
let engines: Engines;
let deps: Container;

beforeAll(async () => {
  engines = await startEngines();
  const config = loadConfig({
    PDS_TABLE_NAME: engines.tableName,
    PDS_DYNAMODB_ENDPOINT: engines.dynamodbEndpoint,
    PDS_SQS_ENDPOINT: engines.sqsEndpoint,
    AWS_REGION: 'us-east-1',
  });
  deps = createContainer(config);
}, 60_000);

afterAll(async () => {
  deps?.dispose();
  await engines?.stop();
});

const stored = (vendor: string, i: number, country = 'us', at = Date.UTC(2026, 0, 1) + i * 1000): StoredProduct => ({
  url: `https://${vendor}/products/p-${i}`,
  country,
  vendor,
  product: { id: `p-${i}`, title: `Product ${i}`, url: `https://${vendor}/products/p-${i}` } as ProductRecord,
  flags: { enrichment: false, reviews: false, image_tags: false, similar_products: false },
  updated_at: new Date(at).toISOString(),
});

describe('dynamoProductPages', () => {
  it('pages a large catalog by cursor: every record of the vendor and country once, in bounded pages', async () => {
    const store = dynamoProductStore(deps.clients.documents, deps.config.tableName);
    const pages = dynamoProductPages(deps.clients.documents, deps.config.tableName);
    await store.putRecords([
      ...Array.from({ length: CATALOG }, (_, i) => stored('big.example', i)),
      ...Array.from({ length: 30 }, (_, i) => stored('big.example', i, 'gb')),
      ...Array.from({ length: 30 }, (_, i) => stored('other.example', i)),
    ]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let reads = 0;
    let updated = false;
    do {
      const page = await pages.page({ vendor: 'big.example', country: 'us', cursor, limit: 100 });
      expect(page.records.length).toBeLessThanOrEqual(100);
      for (const record of page.records) {
        expect(record.vendor).toBe('big.example');
        expect(record.country).toBe('us');
        seen.push(record.product.title!);
      }
      if (!updated) {
        // Product 5, read on the first page, changes while the reader pages: it comes again at the end.
        await store.putRecords([
          {
            ...stored('big.example', 5, 'us', Date.UTC(2027, 0, 1)),
            product: { ...stored('big.example', 5).product, title: 'Product 5 v2' },
          },
        ]);
        updated = true;
      }
      cursor = page.cursor;
    } while (cursor && ++reads < 50);
    expect(cursor).toBeNull();
    expect(seen).toHaveLength(CATALOG + 1);
    expect(new Set(seen).size).toBe(CATALOG + 1);
    expect(seen.at(-1)).toBe('Product 5 v2');
    expect(seen.slice(0, 3)).toEqual(['Product 0', 'Product 1', 'Product 2']);
  }, 60_000);

  it('refuses a cursor given for another vendor and one that is not a cursor', async () => {
    const pages = dynamoProductPages(deps.clients.documents, deps.config.tableName);
    const first = await pages.page({ vendor: 'other.example', country: 'us', cursor: null, limit: 10 });
    expect(first.cursor).not.toBeNull();
    await expect(
      pages.page({ vendor: 'big.example', country: 'us', cursor: first.cursor, limit: 10 }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
    });
    await expect(
      pages.page({ vendor: 'big.example', country: 'us', cursor: 'bm90LWpzb24', limit: 10 }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
    });
  });
});
