// `npm run keys -- <command>`: manage organizations and API keys.
//   create --org ORG [--scopes search,catalog,...] [--key KEY]   prints the key once
//   list [--org ORG]
//   revoke <keyId>
//   rate-limit --org ORG --rps N --burst N | --clear             per-organization override
// Local data by default: the running server's DynamoDB when `${PDS_DATA_DIR:-.pds-data}/runtime.json`
// names a live process, else the data directory opened here. `--aws --table NAME [--region R]`
// works on real DynamoDB with the default credential chain.
import '../lambdas/local/quiet-warnings';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoAccountStore } from '../lambdas/adapters/dynamodb/accounts';
import { createKey } from '../lambdas/domain/accounts/service';
import { checkOrgName, parseScopes } from '../lambdas/domain/accounts/keys';
import { checkPolicy } from '../lambdas/domain/ratelimit/policy';
import { startEngines, type Engines } from '../lambdas/local/engines';
import { claimDataDir, dynamodbPath, liveRuntime, releaseDataDir } from '../lambdas/local/runtime-file';
import type { AccountStore } from '../lambdas/ports/accounts';

const USAGE = `usage: npm run keys -- <command> [options]
  create --org ORG [--scopes a,b,...] [--key KEY]   create a key (printed once); scopes default to all:
                                                     search, catalog, extract, crawl, affiliate, usage
  list [--org ORG]                                   list keys (never the keys themselves)
  revoke <keyId>                                     revoke a key
  rate-limit --org ORG (--rps N --burst N | --clear) set or clear an organization's rate limit
options: --data-dir DIR (default PDS_DATA_DIR or .pds-data) | --aws --table NAME [--region R]`;

interface Target {
  store: AccountStore;
  where: string;
  close(): Promise<void>;
}

/** Where a run writes lines and what environment it reads: the process's by default. */
export interface KeysIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

const processIo: KeysIo = { out: console.log, err: console.error, env: process.env };

async function openTarget(values: Record<string, string | boolean | undefined>, env: KeysIo['env']): Promise<Target> {
  const local = { accessKeyId: 'local', secretAccessKey: 'local' };
  const open = (endpoint: string | undefined, tableName: string, region: string) => {
    const client = new DynamoDBClient({ region, ...(endpoint ? { endpoint, credentials: local } : {}) });
    const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    return { client, store: dynamoAccountStore(documents, tableName) };
  };

  if (values.aws) {
    if (typeof values.table !== 'string') throw new Error('--aws needs --table NAME');
    const region = (values.region as string | undefined) ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    if (!region) throw new Error('--aws needs --region R (or AWS_REGION)');
    const { client, store } = open(undefined, values.table, region);
    return { store, where: `DynamoDB table ${values.table} (${region})`, close: async () => client.destroy() };
  }

  const dataDir = resolve((values['data-dir'] as string | undefined) ?? env.PDS_DATA_DIR ?? '.pds-data');
  const running = liveRuntime(dataDir);
  if (running) {
    const { client, store } = open(running.dynamodbEndpoint, running.tableName, 'us-east-1');
    return { store, where: `the running server (pid ${running.pid}, ${dataDir})`, close: async () => client.destroy() };
  }
  // No server: open the data directory ourselves, holding it so a server cannot start on it meanwhile.
  claimDataDir(dataDir);
  let engines: Engines | undefined;
  try {
    engines = await startEngines({ dataDir: dynamodbPath(dataDir) });
  } catch (error) {
    releaseDataDir(dataDir);
    throw error;
  }
  const { client, store } = open(engines.dynamodbEndpoint, engines.tableName, 'us-east-1');
  return {
    store,
    where: dataDir,
    close: async () => {
      client.destroy();
      await engines!.stop();
      releaseDataDir(dataDir);
    },
  };
}

async function main(argv: string[], io: KeysIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      scopes: { type: 'string' },
      key: { type: 'string' },
      rps: { type: 'string' },
      burst: { type: 'string' },
      clear: { type: 'boolean' },
      aws: { type: 'boolean' },
      table: { type: 'string' },
      region: { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? 0 : 2;
  }
  if (!['create', 'list', 'revoke', 'rate-limit'].includes(command)) {
    io.err(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  // Validate arguments before touching any store.
  const scopes = command === 'create' ? parseScopes(values.scopes) : [];
  if ((command === 'create' || command === 'rate-limit') && !values.org) throw new Error(`${command} needs --org ORG`);
  if (values.org) {
    const problem = checkOrgName(values.org);
    if (problem) throw new Error(problem);
  }
  if (command === 'revoke' && !rest[0]) throw new Error('revoke needs a key id (see `list`)');
  let policy: { ratePerSecond: number; burst: number } | null = null;
  if (command === 'rate-limit' && !values.clear) {
    policy = { ratePerSecond: Number(values.rps), burst: Number(values.burst) };
    const problem = checkPolicy(policy);
    if (problem) throw new Error(`rate-limit needs --rps N --burst N or --clear: ${problem}`);
  }

  const target = await openTarget(values, io.env);
  try {
    switch (command) {
      case 'create': {
        const created = await createKey(target.store, { org: values.org!, scopes, key: values.key });
        if (!created.created) io.err('That key already existed; nothing changed.');
        io.out(`key:    ${created.key}`);
        io.out(`id:     ${created.keyId}`);
        io.out(`org:    ${created.org}`);
        io.out(`scopes: ${created.scopes.join(', ')}`);
        io.err(`(stored only as a hash in ${target.where}: copy the key now, it cannot be shown again)`);
        return 0;
      }
      case 'list': {
        const keys = await target.store.listKeys(values.org);
        if (!keys.length) {
          io.out('no keys');
          return 0;
        }
        for (const k of keys) {
          io.out(
            [k.keyId, k.org, k.scopes.join('+'), k.createdAt, k.revokedAt ? `revoked ${k.revokedAt}` : 'active'].join(
              '\t',
            ),
          );
        }
        return 0;
      }
      case 'revoke': {
        const revoked = await target.store.revokeKey(rest[0], new Date().toISOString());
        if (!revoked) {
          io.err(`no key with id ${rest[0]}`);
          return 1;
        }
        io.out(`revoked ${revoked.keyId} (${revoked.org}) at ${revoked.revokedAt}`);
        return 0;
      }
      default: {
        await target.store.ensureOrganization(values.org!, new Date().toISOString());
        await target.store.setOrganizationRateLimit(values.org!, policy);
        io.out(
          policy
            ? `${values.org}: ${policy.ratePerSecond} requests/s, burst ${policy.burst}`
            : `${values.org}: default rate limit`,
        );
        io.err('(servers pick the change up within 30 s)');
        return 0;
      }
    }
  } finally {
    await target.close();
  }
}

/** The exit code of one keys command (also `pds keys ...`, bin/pds.ts). */
export async function runKeys(argv: string[], io: KeysIo = processIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    io.err(`keys: ${(error as Error).message}`);
    return 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await runKeys(process.argv.slice(2));
}
