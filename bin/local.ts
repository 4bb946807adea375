// `npm start`: the whole service on one machine over embedded engines (see lambdas/local/service.ts).
// Settings: PORT (3000), PDS_DATA_DIR (.pds-data), PDS_BOOTSTRAP_KEYS, PDS_RESOLVE,
// PDS_CRAWL_DELAY_MS, PDS_RATE_LIMIT, PDS_AFFILIATE_MERCHANTS, PDS_LOG_LEVEL=debug.
import '../lambdas/local/polyfills';
import { startLocalService } from '../lambdas/local/service';

const STOP_GRACE_MS = 5000;

async function main(): Promise<void> {
  let service;
  try {
    service = await startLocalService();
  } catch (error) {
    console.error(`npm start: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }

  if (service.developmentKey) {
    console.log(`Development API key (shown once, all scopes): ${service.developmentKey}`);
    console.log(`  curl -H "x-api-key: ${service.developmentKey}" ${service.url}/v2/usage`);
  }
  if (service.bootstrappedKeyIds.length) console.log(`Bootstrap keys ready: ${service.bootstrappedKeyIds.length}`);
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
