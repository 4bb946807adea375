// Vendor store failures become the legacy vendor error codes, and a merchant file replaces the
// built-in affiliate list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { loadConfig } from '../../lambdas/config';
import { createContainer } from '../../lambdas/composition/container';
import { merchantsOf } from '../../lambdas/composition/merchants';
import { listVendorSummaries, recordProductSeen, recordProductsSeen } from '../../lambdas/domain/vendors/service';
import { errorBody } from '../../lambdas/http/render';
import { AppError } from '../../lambdas/domain/errors';

let engines: Engines;
let blackHole: Server;
let blackHolePort: number;

beforeAll(async () => {
  engines = await startEngines();
  // Accepts connections and never answers: a stuck database.
  blackHole = createServer(() => undefined);
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  blackHolePort = (blackHole.address() as { port: number }).port;
});
afterAll(async () => {
  blackHole?.close();
  await engines?.stop();
});

const depsFor = (env: Record<string, string>) =>
  createContainer(
    loadConfig({ PDS_TABLE_NAME: engines.tableName, PDS_DYNAMODB_ENDPOINT: engines.dynamodbEndpoint, ...env }),
  );

describe('vendor store', () => {
  it('maps a missing table to DB_ERROR and a silent database to DB_TIMEOUT', async () => {
    const missing = depsFor({ PDS_TABLE_NAME: 'no-such-table' });
    const error = await listVendorSummaries(missing.vendors, merchantsOf(missing)).catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(errorBody('legacy', error, 'r')).toEqual({
      error: 'The database request failed',
      details: expect.any(String),
      code: 'DB_ERROR',
    });

    const stuck = depsFor({ PDS_DYNAMODB_ENDPOINT: `http://127.0.0.1:${blackHolePort}` });
    const timeout = await listVendorSummaries(stuck.vendors, merchantsOf(stuck)).catch((e) => e);
    expect(timeout).toMatchObject({ code: 'DB_TIMEOUT', status: 504 });
    stuck.clients.dynamodb.destroy();
  }, 30_000);

  it('uses the merchant file from Config.affiliateMerchantsFile', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pds-merchants-')), 'merchants.json');
    writeFileSync(file, JSON.stringify(['merchant-shop.example']));
    const deps = depsFor({ PDS_AFFILIATE_MERCHANTS: file });
    await recordProductSeen(deps.vendors, {
      vendor: 'merchant-shop.example',
      newProduct: true,
      updatedAt: '2026-01-01T00:00:00Z',
    });
    await recordProductSeen(deps.vendors, {
      vendor: 'www.allbirds.com',
      newProduct: true,
      updatedAt: '2026-01-01T00:00:00Z',
    });
    const summaries = await listVendorSummaries(deps.vendors, merchantsOf(deps));
    expect(Object.fromEntries(summaries.map((s) => [s.vendor, s.in_affiliate_network]))).toEqual({
      'allbirds.com': false,
      'merchant-shop.example': true,
    });
    await expect(
      recordProductSeen(deps.vendors, { vendor: 'not a host', newProduct: true, updatedAt: '2026-01-01T00:00:00Z' }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
  });

  it('counts a batch of products in one write: exact under concurrent batches, latest update never moves back', async () => {
    const deps = depsFor({});
    const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
    // Concurrent batches out of order, some with no new product (only the instant moves).
    const batches = [
      { newProducts: 5, updatedAt: at(3) },
      { newProducts: 0, updatedAt: at(9) },
      { newProducts: 7, updatedAt: at(1) },
      { newProducts: 2, updatedAt: at(5) },
      { newProducts: 11, updatedAt: at(2) },
    ];
    await Promise.all(
      batches.map((batch) => recordProductsSeen(deps.vendors, { vendor: 'www.batch-shop.example', ...batch })),
    );
    expect(await deps.vendors.get('batch-shop.example')).toMatchObject({
      productCount: 25,
      latestProductUpdate: at(9),
      displayName: 'batch-shop.example',
    });

    // An older batch arriving late still counts, without moving the latest update back.
    await recordProductsSeen(deps.vendors, {
      vendor: 'batch-shop.example',
      displayName: 'Batch Shop',
      newProducts: 3,
      updatedAt: new Date(at(0)),
    });
    expect(await deps.vendors.get('batch-shop.example')).toMatchObject({
      productCount: 28,
      latestProductUpdate: at(9),
      displayName: 'Batch Shop',
    });
    // The single-product call adds to the same count.
    await recordProductSeen(deps.vendors, { vendor: 'batch-shop.example', newProduct: true, updatedAt: at(10) });
    expect(await deps.vendors.get('batch-shop.example')).toMatchObject({
      productCount: 29,
      latestProductUpdate: at(10),
    });
    // The cached list sees the writes at once.
    expect((await deps.vendors.listAll()).find((v) => v.vendor === 'batch-shop.example')?.productCount).toBe(29);

    for (const newProducts of [-1, 1.5, Number.NaN]) {
      await expect(
        recordProductsSeen(deps.vendors, { vendor: 'batch-shop.example', newProducts, updatedAt: at(11) }),
      ).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    }
    await expect(
      recordProductsSeen(deps.vendors, { vendor: 'not a host', newProducts: 1, updatedAt: at(11) }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    await expect(
      recordProductsSeen(deps.vendors, { vendor: 'batch-shop.example', newProducts: 1, updatedAt: 'yesterday' }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    expect((await deps.vendors.get('batch-shop.example'))?.productCount).toBe(29);
  });
});
