// `npm start` as a user runs it: a child process on a temp data dir, serving HTTP; one process
// per data dir; kill -9 keeps the data (dynalite's LevelDB) and the next start takes over the
// stale runtime.json; SIGTERM stops cleanly. Plus the in-process startLocalService.
import '../../lambdas/local/polyfills';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../../lambdas/local/service';
import { killLocalProcesses, startLocalProcess } from '../e2e/helpers/local-process';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ListStateMachinesCommand, SFNClient } from '@aws-sdk/client-sfn';

afterAll(killLocalProcesses);

/** bin/start.mjs (what npm start runs) on `dataDir`, without bootstrap keys: it mints its own. */
const spawnLocal = (dataDir: string) =>
  startLocalProcess({ env: { PDS_DATA_DIR: dataDir, PDS_BOOTSTRAP_KEYS: undefined }, maxMs: 60_000 });

function exited(child: ChildProcess, maxMs = 20_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('child did not exit')), maxMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const usage = (url: string, key: string) => fetch(`${url}/v2/usage`, { headers: { 'x-api-key': key } });

describe('npm start (bin/local.ts)', () => {
  it('keeps its data through kill -9, serves one process per data dir, stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-local-'));
    const first = await spawnLocal(dataDir);
    const key = /Development API key \(shown once, all scopes\): (\S+)/.exec(first.output())?.[1];
    expect(key).toBeTruthy();
    expect((await usage(first.url, key!)).status).toBe(200);
    expect((await usage(first.url, key!)).status).toBe(200);
    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
    expect(runtime).toMatchObject({ pid: first.child.pid, url: first.url, tableName: 'pds' });
    expect(runtime.dynamodbEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // The local AWS endpoints are printed, and answer the SDK's clients as the AWS CLI calls them
    // (--endpoint-url, any credentials, the printed region).
    const printed = (service: string) =>
      new RegExp(`^\\s+${service}\\s+(http://127\\.0\\.0\\.1:\\d+)`, 'm').exec(first.output())?.[1];
    const region = /region ([\w-]+)/.exec(first.output())?.[1];
    expect(region).toBe('us-east-1');
    const as = { region, credentials: { accessKeyId: 'operator', secretAccessKey: 'operator' } };
    expect(printed('dynamodb')).toBe(runtime.dynamodbEndpoint);
    expect(printed('sqs')).toBe(runtime.sqsEndpoint);
    expect(printed('stepfunctions')).toBe(runtime.stepFunctionsEndpoint);
    const table = await new DynamoDBClient({ ...as, endpoint: printed('dynamodb') }).send(
      new DescribeTableCommand({ TableName: 'pds' }),
    );
    expect(table.Table?.TableStatus).toBe('ACTIVE');
    const queues = await new SQSClient({ ...as, endpoint: printed('sqs') }).send(new ListQueuesCommand({}));
    expect(queues.QueueUrls?.some((url) => url.endsWith('/crawl-work'))).toBe(true);
    const machines = await new SFNClient({ ...as, endpoint: printed('stepfunctions') }).send(
      new ListStateMachinesCommand({}),
    );
    expect(machines.stateMachines?.map((m) => m.name).sort()).toEqual(['agentic', 'crawl', 'extract']);

    // A second process on the same data dir refuses to start.
    const refused = await spawnLocal(dataDir).then(
      () => null,
      (error: Error & { code?: number; output?: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.output).toMatch(/in use by process/);

    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(true); // stale, names a dead pid

    const second = await spawnLocal(dataDir);
    expect(second.output()).not.toMatch(/Development API key/); // minted once, remembered
    const response = await usage(second.url, key!);
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('/v2/usage'); // calls made before kill -9

    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
  });
});

describe('startLocalService (in process)', () => {
  it('boots on port 0 with bootstrap keys, refuses a second start on its data dir, and restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-service-'));
    const key = 'test-key-0123456789abcdef';
    const options = { port: 0, dataDir, bootstrapKeys: `${key}:acme`, log: () => undefined };
    let service = await startLocalService(options);
    expect(service.developmentKey).toBeUndefined();
    expect(service.bootstrappedKeyIds).toHaveLength(1);
    expect((await usage(service.url, key)).status).toBe(200);
    expect((await usage(service.url, 'wrong-key-0123456789')).status).toBe(401);
    expect(JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'))).toMatchObject({
      pid: process.pid,
      url: service.url,
    });

    await expect(startLocalService(options)).rejects.toThrow(/already served by this process/);

    await service.stop();
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);

    service = await startLocalService({ ...options, bootstrapKeys: undefined });
    expect(service.developmentKey).toBeTruthy(); // first start without bootstrap keys
    expect((await usage(service.url, key)).status).toBe(200); // the bootstrap key persisted
    await service.stop();
  });

  it('refuses to start with an unreadable affiliate merchant file, and leaves its data dir free', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pds-service-'));
    const merchants = join(dataDir, 'merchants.json');
    writeFileSync(merchants, '[{"domain": "co.uk"}]');
    const options = { port: 0, dataDir, log: () => undefined, env: { PDS_AFFILIATE_MERCHANTS: merchants } };
    await expect(startLocalService(options)).rejects.toThrow(/"co.uk" is not a registrable domain/);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
  });
});
