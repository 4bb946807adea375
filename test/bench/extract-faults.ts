// `npm run bench -- extract-faults`: 1000 URLs through the local state machine while 20% of
// worker invocations crash at a random point of their batch and 5% of messages are delivered
// twice. Prints whether every URL ended with exactly one outcome and the counts match.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../../lambdas/local/service';
import { getContainer } from '../../lambdas/composition/container';
import { extractJobsOf } from '../../lambdas/composition/extract-jobs';
import { dynamoExtractResultStore } from '../../lambdas/adapters/dynamodb/extract-results';
import { OUTCOME_CLASS } from '../../lambdas/domain/extraction/types';
import { startStoreSimulator, listProductUrls } from '../stores';

const URLS = 1000;
const HOSTS = [
  'jsonld-shop.test',
  'microdata-shop.test',
  'opengraph-shop.test',
  'productgroup-shop.test',
  'dom-shop.test',
];
const ORG = 'bench-faults';

export default async function main(): Promise<void> {
  const sim = await startStoreSimulator({ productsPerStore: URLS });
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-faults-'));
  const service = await startLocalService({
    port: 0,
    dataDir,
    env: {
      PDS_RESOLVE: sim.resolveEnv,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_FAULT_RATE: '0.2',
      PDS_DUPLICATE_RATE: '0.05',
      PDS_EXTRACT_SLOTS: '8',
    },
    // Several batches in flight sharing the process's extraction slots, as in the throughput bench.
    workerConcurrency: 4,
    bootstrapKeys: `bench-faults-key-000001:${ORG}`,
    queueRetrySeconds: 1,
    log: () => undefined,
  });
  try {
    const per = URLS / HOSTS.length;
    const urls = HOSTS.flatMap((host) => listProductUrls(sim.store(host), { limit: per }));
    const jobs = extractJobsOf(getContainer());
    const started = Date.now();
    const { execution_id } = await jobs.start({
      org: ORG,
      kind: 'extract-urls',
      urls,
      options: {
        enableEnrichment: false,
        enableReviews: false,
        enableImageTags: false,
        enableSimilarProducts: false,
        countryCode: 'us',
      },
    });
    let polls = 0;
    let invariantBroken = 0;
    let status = await jobs.status({ org: ORG, executionId: execution_id });
    for (; polls < 3000 && status.status !== 'completed' && status.status !== 'failed'; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = await jobs.status({ org: ORG, executionId: execution_id });
      const r = status.result;
      if (r.products_successful + r.products_failed + r.products_invalid + r.products_pending !== r.products_requested)
        invariantBroken++;
    }
    const seconds = (Date.now() - started) / 1000;

    const runtime = getContainer();
    const entries = await dynamoExtractResultStore(runtime.clients.documents, runtime.config.tableName).all(
      execution_id,
    );
    const indices = new Set(entries.map((e) => e.index));
    const everyOnce =
      entries.length === URLS &&
      indices.size === URLS &&
      entries.every((e) => e.state === 'done' && e.result && e.result.url === urls[e.index]);
    const byOutcome: Record<string, number> = {};
    for (const e of entries) if (e.result) byOutcome[e.result.outcome] = (byOutcome[e.result.outcome] ?? 0) + 1;
    const byClass = { success: 0, failed: 0, invalid: 0 };
    for (const [outcome, n] of Object.entries(byOutcome))
      byClass[OUTCOME_CLASS[outcome as keyof typeof OUTCOME_CLASS]] += n;
    const r = status.result;
    const countsMatch =
      r.products_successful === byClass.success &&
      r.products_failed === byClass.failed &&
      r.products_invalid === byClass.invalid &&
      r.products_pending === 0;
    const productFetches = urls.reduce(
      (n, url) => n + sim.hits(new URL(url).hostname, new URL(url).pathname + new URL(url).search),
      0,
    );

    console.log(
      `extract-faults: ${URLS} URLs, 20% of worker invocations crash mid-batch, 5% of messages delivered twice`,
    );
    console.log(
      `  execution ${execution_id}: ${status.status} in ${seconds.toFixed(1)} s, ${polls} status polls, invariant broken at ${invariantBroken} polls`,
    );
    console.log(`  product page fetches: ${productFetches} for ${URLS} URLs (re-work from crashes and duplicates)`);
    console.log(`  outcomes stored: ${JSON.stringify(byOutcome)}`);
    console.log(
      `  status counts: successful ${r.products_successful}, failed ${r.products_failed} ${JSON.stringify(r.products_failed_by_reason)}, invalid ${r.products_invalid}, pending ${r.products_pending}, credits ${status.credits_used}`,
    );
    // Every product counted once for its vendor (the batch claim decides which are new): the
    // vendors' product counts add up to the distinct successful URLs, crashes and duplicates aside.
    const vendorCounts = await Promise.all(
      HOSTS.map(async (host) => (await runtime.vendors.get(host))?.productCount ?? 0),
    );
    const distinctSuccesses = new Set(entries.filter((e) => e.result?.outcome === 'success').map((e) => e.result!.url))
      .size;
    const vendorsExact = vendorCounts.reduce((a, b) => a + b, 0) === distinctSuccesses;
    console.log(
      `  vendor product counts: ${vendorCounts.join(' + ')} = ${vendorCounts.reduce((a, b) => a + b, 0)} for ${distinctSuccesses} distinct successful URLs`,
    );
    console.log(
      `  every URL exactly one outcome: ${everyOnce ? 'YES' : 'NO'}; counts match stored outcomes: ${countsMatch ? 'YES' : 'NO'}; vendor counts exact: ${vendorsExact ? 'YES' : 'NO'}`,
    );
    if (!everyOnce || !countsMatch || !vendorsExact || invariantBroken) process.exitCode = 1;
  } finally {
    await service.stop(2000);
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
