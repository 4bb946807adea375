// Accounts on the embedded DynamoDB: bootstrap idempotence, the one-time development key,
// revocation, and the keys CLI against a data directory (its entry runKeys in this process) and,
// as a child process (`node --import tsx bin/keys.ts`: its exit code, another process's server),
// against a "running server".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoAccountStore } from '../../lambdas/adapters/dynamodb/accounts';
import { authenticateKey, bootstrapKeys, createKey, ensureDevelopmentKey } from '../../lambdas/domain/accounts/service';
import { hashKey } from '../../lambdas/domain/accounts/keys';
import { runKeys } from '../../bin/keys';

const run = promisify(execFile);
let engines: Engines;
const storeOn = (e: Engines) =>
  dynamoAccountStore(
    createClients({ ...loadConfig({}), endpoints: { dynamodb: e.dynamodbEndpoint } }).documents,
    e.tableName,
  );

beforeAll(async () => {
  engines = await startEngines();
});
afterAll(async () => engines?.stop());

describe('accounts store', () => {
  it('bootstraps keys idempotently and stores only hashes', async () => {
    const store = storeOn(engines);
    const spec = 'boot-key-0123456789:acme,boot-key-abcdefghij:beta:search+usage';
    const first = await bootstrapKeys(store, spec);
    const second = await bootstrapKeys(store, spec);
    expect(second.map((k) => k.keyId)).toEqual(first.map((k) => k.keyId));
    expect(await store.listKeys('acme')).toHaveLength(1);
    const [beta] = await store.listKeys('beta');
    expect(beta.scopes).toEqual(['search', 'usage']);
    expect(beta.keyHash).toBe(hashKey('boot-key-abcdefghij'));
    expect(JSON.stringify(await store.listKeys())).not.toContain('boot-key-abcdefghij');
    expect(await authenticateKey(store, 'boot-key-abcdefghij')).toEqual({
      org: 'beta',
      keyId: beta.keyId,
      scopes: ['search', 'usage'],
    });
    await expect(createKey(store, { org: 'other', key: 'boot-key-abcdefghij' })).rejects.toThrow(
      /another organization/,
    );
  });

  it('mints the development key once, ever', async () => {
    const store = storeOn(engines);
    const dev = await ensureDevelopmentKey(store);
    expect(dev?.key).toMatch(/^pds_/);
    expect(await ensureDevelopmentKey(store)).toBeNull();
    expect((await authenticateKey(store, dev!.key))?.scopes).toHaveLength(6);
  });

  it('revokes by key id', async () => {
    const store = storeOn(engines);
    const created = await createKey(store, { org: 'gamma' });
    expect(await authenticateKey(store, created.key)).not.toBeNull();
    const revoked = await store.revokeKey(created.keyId, '2026-01-01T00:00:00.000Z');
    expect(revoked?.revokedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(await authenticateKey(store, created.key)).toBeNull();
    expect(await store.revokeKey('key_does_not_exist', '2026-01-01T00:00:00.000Z')).toBeNull();
  });
});

describe('keys CLI', () => {
  /** One keys command in this process; its exit code must be 0. */
  const keys = async (args: string[], dataDir: string) => {
    let stdout = '';
    let stderr = '';
    const code = await runKeys(args, {
      out: (text) => (stdout += `${text}\n`),
      err: (text) => (stderr += `${text}\n`),
      env: { ...process.env, PDS_DATA_DIR: dataDir },
    });
    expect(code, stderr).toBe(0);
    return { stdout, stderr };
  };
  /** One keys command as a child process (rejects on a non-zero exit code). */
  const cli = (args: string[], dataDir: string) =>
    run(process.execPath, ['--import', 'tsx', 'bin/keys.ts', ...args], {
      env: { ...process.env, PDS_DATA_DIR: dataDir, NODE_NO_WARNINGS: '1' },
      timeout: 60_000,
    });

  it('creates, lists and revokes keys in a data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-keys-'));
    const created = await keys(['create', '--org', 'cli-org', '--scopes', 'catalog,usage'], dataDir);
    const key = /key:\s+(\S+)/.exec(created.stdout)![1];
    const keyId = /id:\s+(\S+)/.exec(created.stdout)![1];
    expect(key).toMatch(/^pds_/);
    const listed = await keys(['list', '--org', 'cli-org'], dataDir);
    expect(listed.stdout).toContain(`${keyId}\tcli-org\tcatalog+usage`);
    expect(listed.stdout).not.toContain(key);
    expect((await keys(['revoke', keyId], dataDir)).stdout).toContain(`revoked ${keyId}`);
    expect((await keys(['list'], dataDir)).stdout).toMatch(/revoked 20/);
    await expect(cli(['create', '--org', 'x', '--scopes', 'admin'], dataDir)).rejects.toMatchObject({ code: 2 });
  });

  it('uses the running server named in runtime.json', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-keys-live-'));
    // This test process plays the server: its pid is alive and its engines answer.
    writeFileSync(
      join(dataDir, 'runtime.json'),
      JSON.stringify({ pid: process.pid, dynamodbEndpoint: engines.dynamodbEndpoint, tableName: engines.tableName }),
    );
    const created = await cli(['create', '--org', 'live-org'], dataDir);
    expect(created.stderr).toContain('running server');
    const key = /key:\s+(\S+)/.exec(created.stdout)![1];
    expect(await authenticateKey(storeOn(engines), key)).toMatchObject({ org: 'live-org' });
  });
});
