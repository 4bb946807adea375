// Vendor store failures become the legacy vendor error codes, and a merchant file replaces the
// built-in affiliate list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { loadConfig } from '../../lambdas/config';
import { createPlatformDeps, recordProductSeen } from '../../lambdas/composition/platform';
import { listVendorSummaries } from '../../lambdas/domain/vendors/service';
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
  createPlatformDeps(loadConfig({ PDS_TABLE_NAME: engines.tableName, PDS_DYNAMODB_ENDPOINT: engines.dynamodbEndpoint, ...env }));

describe('vendor store', () => {
  it('maps a missing table to DB_ERROR and a silent database to DB_TIMEOUT', async () => {
    const missing = depsFor({ PDS_TABLE_NAME: 'no-such-table' });
    const error = await listVendorSummaries(missing.vendors, missing.merchants).catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(errorBody('legacy', error, 'r')).toEqual({ error: 'The database request failed', details: expect.any(String), code: 'DB_ERROR' });

    const stuck = depsFor({ PDS_DYNAMODB_ENDPOINT: `http://127.0.0.1:${blackHolePort}` });
    const timeout = await listVendorSummaries(stuck.vendors, stuck.merchants).catch((e) => e);
    expect(timeout).toMatchObject({ code: 'DB_TIMEOUT', status: 504 });
    stuck.clients.dynamodb.destroy();
  }, 30_000);

  it('uses the merchant file from Config.affiliateMerchantsFile', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pds-merchants-')), 'merchants.json');
    writeFileSync(file, JSON.stringify(['merchant-shop.example']));
    const deps = depsFor({ PDS_AFFILIATE_MERCHANTS: file });
    await recordProductSeen({ vendor: 'merchant-shop.example', newProduct: true, updatedAt: '2026-01-01T00:00:00Z' }, deps);
    await recordProductSeen({ vendor: 'www.allbirds.com', newProduct: true, updatedAt: '2026-01-01T00:00:00Z' }, deps);
    const summaries = await listVendorSummaries(deps.vendors, deps.merchants);
    expect(Object.fromEntries(summaries.map((s) => [s.vendor, s.in_affiliate_network]))).toEqual({
      'allbirds.com': false,
      'merchant-shop.example': true,
    });
    await expect(recordProductSeen({ vendor: 'not a host', newProduct: true, updatedAt: '2026-01-01T00:00:00Z' }, deps)).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});
