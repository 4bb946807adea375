// Usage counts written behind the responses (`npm start`, PDS_USAGE_WRITE_BEHIND_MS) are exact:
// a usage read counts every call made before it, and a clean stop stores the counts still waiting,
// so a restart on the same data directory reads them all. The write-behind period is set to a
// minute so only the flushes (never the timer) can have written the counts.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';

const KEY = 'usage-write-behind-key-000001';
const dataDir = mkdtempSync(join(tmpdir(), 'pds-usage-wb-'));
let service: LocalService | undefined;

const start = () =>
  startLocalService({
    port: 0,
    dataDir,
    env: { PDS_USAGE_WRITE_BEHIND_MS: '60000' },
    bootstrapKeys: `${KEY}:wb-org`,
    log: () => undefined,
  });

async function get(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service!.url}${path}`, { headers: { 'x-api-key': KEY } });
  return { status: response.status, body: await response.json() };
}

async function vendorCalls(): Promise<number> {
  const usage = await get('/v2/usage?period=24h');
  expect(usage.status).toBe(200);
  return usage.body.data.find((row: { path: string }) => row.path === '/v2/vendors')?.total_calls ?? 0;
}

afterAll(async () => {
  await service?.stop(1000);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('usage write-behind', () => {
  it('counts every call in a usage read, and stores the waiting counts when the service stops', async () => {
    service = await start();
    expect(service.config.usageWriteBehindMs).toBe(60_000);
    for (let i = 0; i < 7; i++) expect((await get('/v2/vendors')).status).toBe(200);
    // Read-your-writes: the usage read flushes what this process recorded (the usage call too).
    expect(await vendorCalls()).toBe(7);

    // Recorded, not yet written (a minute of write-behind), then a clean stop.
    await Promise.all(Array.from({ length: 5 }, () => get('/v2/vendors')));
    const store = service.config;
    await service.stop(1000);
    service = undefined;

    service = await start();
    expect(service.config.tableName).toBe(store.tableName);
    expect(await vendorCalls()).toBe(12);
  }, 120_000);
});
