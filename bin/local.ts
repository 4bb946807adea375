// `npm start`: the whole service on one machine over embedded engines (see lambdas/local/service.ts).
// Settings: PORT (3000), PDS_DATA_DIR (.pds-data), PDS_BOOTSTRAP_KEYS, PDS_RESOLVE,
// PDS_CRAWL_DELAY_MS, PDS_RATE_LIMIT, PDS_AFFILIATE_MERCHANTS, PDS_LOG_LEVEL=debug.
import '../lambdas/local/quiet-warnings';
import '../lambdas/local/heap';
import '../lambdas/local/polyfills';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalService, LocalServiceOptions } from '../lambdas/local/service';

/** Milliseconds from the process's start to this module's first line (Node, the launcher, the imports). */
const loadedAt = performance.now();

/** What `npm start` remembers between runs (bin/start.mjs keeps its bundle there too). */
const CACHE_DIR = 'node_modules/.cache/pds-local';

/** Set by bin/start.mjs: ms since the process started when it began, its fingerprint and build times, when it handed over. */
interface LaunchTimes {
  began: number;
  fingerprint: number;
  build: number;
  /** Where the launcher keeps its bundles; start-up memos go there too. */
  cacheDir: string;
  end: number;
}
const launch = (globalThis as Record<symbol, LaunchTimes | undefined>)[Symbol.for('pds.launch')];

function startupPhases(service: LocalService): Record<string, number> {
  const round = (ms: number) => Math.round(ms);
  const launcher: Record<string, number> = launch
    ? { node: round(launch.began), fingerprint: round(launch.fingerprint), build: round(launch.build) }
    : {};
  return {
    ...launcher,
    modules: round(loadedAt - (launch?.end ?? 0)),
    serviceModules: round(serviceModulesMs),
    ...service.phases,
  };
}

const STOP_GRACE_MS = 5000;

/** The runtime's own settings; the handlers' settings (PDS_RESOLVE, ...) stay in process.env for lambdas/config.ts. */
function localOptions(env: NodeJS.ProcessEnv): LocalServiceOptions {
  const port = env.PORT ? Number(env.PORT) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0..65535, got "${env.PORT}"`);
  return {
    port,
    dataDir: env.PDS_DATA_DIR || '.pds-data',
    bootstrapKeys: env.PDS_BOOTSTRAP_KEYS || undefined,
    debug: env.PDS_LOG_LEVEL === 'debug',
    cacheDir:
      launch?.cacheDir ??
      (env.PDS_START_CACHE_DIR
        ? resolve(env.PDS_START_CACHE_DIR)
        : resolve(dirname(fileURLToPath(import.meta.url)), '..', CACHE_DIR)),
  };
}

let serviceModulesMs = 0;

/** The embedded engines' endpoints, for the AWS CLI (`--endpoint-url`) and SDKs; they change with every start. */
function awsEndpoints(service: LocalService): string {
  return [
    `local AWS endpoints (region ${service.config.region}, any credentials; also in ${service.dataDir}/runtime.json):`,
    `  dynamodb       ${service.dynamodbEndpoint} (table ${service.tableName})`,
    `  sqs            ${service.sqsEndpoint}`,
    `  stepfunctions  ${service.stepFunctionsEndpoint}`,
  ].join('\n');
}

async function main(): Promise<void> {
  let service: LocalService;
  try {
    const options = localOptions(process.env);
    const importing = performance.now();
    const { startLocalService } = await import('../lambdas/local/service');
    serviceModulesMs = performance.now() - importing;
    service = await startLocalService(options);
  } catch (error) {
    console.error(`npm start: ${(error as Error).message}`);
    // Exit now, whatever a failed start left open (sockets, timers).
    process.exit(1);
  }

  // What the operator needs and nothing else: the key on the first start, the URL, the data dir.
  if (service.developmentKey) console.log(`Development API key (shown once, all scopes): ${service.developmentKey}`);
  if (service.resumed.length) console.log(`Resumed ${service.resumed.length} unfinished execution(s) after a restart`);
  // One write: whoever waits for the ready line sees the console line with it.
  console.log(
    `ready ${service.url} in ${service.startupMs} ms (data: ${service.dataDir})\n` +
      `console ${service.url}/console · API reference ${service.url}/docs\n` +
      awsEndpoints(service),
  );
  // The start-up bench's breakdown (npm run bench -- startup).
  if (process.env.PDS_STARTUP_PHASES) console.log(`startup phases ${JSON.stringify(startupPhases(service))}`);

  // A signal sent to the process group reaches us twice (directly and forwarded by npm): only a
  // repeat more than a second later means "stop now" and skips the graceful stop (usage flush).
  let stoppingSince = 0;
  const shutdown = (signal: string) => {
    if (stoppingSince) {
      if (Date.now() - stoppingSince < 1000) return;
      console.error(`${signal} again: exiting now`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    console.log(`${signal}: stopping (in-flight work gets ${STOP_GRACE_MS / 1000} s)`);
    service.stop(STOP_GRACE_MS).then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`stop failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

await main();
