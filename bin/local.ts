// `npm start`: the whole service on one machine over embedded engines (see lambdas/local/service.ts).
// Settings: PORT (3000), PDS_DATA_DIR (.pds-data), PDS_BOOTSTRAP_KEYS, PDS_RESOLVE,
// PDS_CRAWL_DELAY_MS, PDS_RATE_LIMIT, PDS_AFFILIATE_MERCHANTS, PDS_LOG_LEVEL=debug.
import '../lambdas/local/quiet-warnings';
import '../lambdas/local/heap';
import '../lambdas/local/polyfills';
import { startLocalService, type LocalService, type LocalServiceOptions } from '../lambdas/local/service';

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
  };
}

async function main(): Promise<void> {
  let service: LocalService;
  try {
    service = await startLocalService(localOptions(process.env));
  } catch (error) {
    console.error(`npm start: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }

  // What the operator needs and nothing else: the key on the first start, the URL, the data dir.
  if (service.developmentKey) console.log(`Development API key (shown once, all scopes): ${service.developmentKey}`);
  if (service.resumed.length) console.log(`Resumed ${service.resumed.length} unfinished execution(s) after a restart`);
  console.log(`ready ${service.url} in ${service.startupMs} ms (data: ${service.dataDir})`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      console.error(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
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
