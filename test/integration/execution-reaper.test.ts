// The one-way data path on the embedded table: status reads write nothing, and the reaper schedule
// (crawl jobs' reapOverdue, the execution-reaper worker) is where an overdue crawl is failed, what
// it found is kept and its waiting extractions are settled, and where an extraction still waiting
// for a crawl that ended without settling it is released. (The status read of an overdue crawl,
// which used to reap it, is checked here: it was in crawl-store.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '../../lambdas/local/engines';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { loadConfig } from '../../lambdas/config';
import { dynamoExecutionStore } from '../../lambdas/adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../../lambdas/adapters/dynamodb/extract-results';
import { dynamoListingStore } from '../../lambdas/adapters/dynamodb/listings';
import { dynamoVendorStore } from '../../lambdas/adapters/dynamodb/vendors';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { CRAWL_FAILED_MESSAGE, DEADLINE_MESSAGE } from '../../lambdas/domain/executions/model';
import { createExtractJobs } from '../../lambdas/domain/extract-jobs/jobs';
import { createCrawlJobs } from '../../lambdas/domain/crawl/jobs';
import { createKeepFound } from '../../lambdas/domain/crawl/keep-found';
import { createCatalog } from '../../lambdas/domain/listings/catalog';
import type { FoundListing } from '../../lambdas/domain/crawl/model';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';

let engines: Engines;
let clients: AwsClients;
let clock = Date.parse('2032-01-01T00:00:00.000Z');
const now = () => new Date(clock);
const OPTIONS = {
  enableEnrichment: false,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};

beforeAll(async () => {
  engines = await startEngines();
  clients = createClients({
    ...loadConfig({}),
    endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint },
  });
}, 60_000);
afterAll(async () => {
  clients?.dynamodb.destroy();
  await engines?.stop();
});

function setup() {
  const started: string[] = [];
  const workflows: WorkflowEngine = {
    async start(_workflow, id) {
      started.push(id);
    },
    async stop() {},
  };
  const { documents } = clients;
  const store = dynamoListingStore(documents, engines.tableName);
  const executionStore = dynamoExecutionStore(documents, engines.tableName);
  const executions = createExecutions({ store: executionStore, workflows, now });
  const catalog = createCatalog({ store, vendors: dynamoVendorStore(documents, engines.tableName), now });
  const extractJobs = createExtractJobs({
    executions,
    results: dynamoExtractResultStore(documents, engines.tableName),
    workflows,
    workflowName: 'extract',
    deadlineSeconds: 3600,
  });
  const crawlJobs = createCrawlJobs({
    executions,
    store,
    catalog,
    workflows,
    workflowName: 'crawl',
    deadlineSeconds: 600,
    keepFound: createKeepFound({ executions, store, catalog }),
    extractJobs: () => extractJobs,
    now,
  });
  return { executions, executionStore, store, catalog, extractJobs, crawlJobs, started };
}

const listing = (vendor: string, i: number): FoundListing => ({
  url: `https://${vendor}/products/p-${i}`,
  name: `Product ${i}`,
  images: [],
  price: { currency: 'USD', current_value: 10 + i, compare_at_value: null },
});

/** A running crawl of `vendor` (no workflow of its own here) and an extraction of the vendor waiting for it. */
async function crawlWithWaiter(parts: ReturnType<typeof setup>, vendor: string, deadlineSeconds = 600) {
  const crawl = await parts.executions.create({
    org: 'org-r',
    kind: 'crawl',
    subject: vendor,
    options: { vendor, origin: `https://${vendor}`, maxListings: null, countryCode: 'us' },
    deadlineSeconds,
    workflow: null,
  });
  await parts.executions.markRunning(crawl.id);
  await parts.store.upsert(
    vendor,
    vendor,
    crawl.id,
    [0, 1, 2].map((i) => ({ listing: listing(vendor, i), order: i })),
    now().toISOString(),
  );
  const extraction = await parts.crawlJobs.startVendorExtraction({
    org: 'org-r',
    vendor,
    crawlId: crawl.id,
    options: OPTIONS,
  });
  expect(extraction).toMatchObject({ status: 'pending', waiting_for: crawl.id });
  return { crawlId: crawl.id, extractionId: extraction.execution_id };
}

describe('the reaper schedule and side-effect-free reads', () => {
  it('releases an extraction whose crawl completed without settling it; its status read released nothing', async () => {
    const parts = setup();
    const { crawlId, extractionId } = await crawlWithWaiter(parts, 'missed.test');
    // The crawl ends, but its end never reached the waiting extraction (say its process died after the transition).
    await parts.catalog.rebuild({
      vendor: 'missed.test',
      displayName: 'Missed',
      crawlId,
      complete: true,
      maxListings: null,
    });
    await parts.executions.complete(crawlId);

    const stored = await parts.executionStore.get(extractionId);
    const read = await parts.extractJobs.status({ org: 'org-r', executionId: extractionId });
    expect(read).toMatchObject({ status: 'pending', waiting_for: crawlId });
    expect(await parts.executionStore.get(extractionId)).toEqual(stored);
    expect(parts.started).not.toContain(extractionId);

    const reaped = await parts.crawlJobs.reapOverdue();
    expect(reaped.settled).toContain(extractionId);
    expect(parts.started).toContain(extractionId);
    const released = await parts.extractJobs.status({ org: 'org-r', executionId: extractionId });
    expect(released).toMatchObject({ status: 'pending', waiting_for: null, progress: { products_total: 3 } });
    // Settled once: the next run finds nothing more to do.
    expect((await parts.crawlJobs.reapOverdue()).settled).not.toContain(extractionId);
  });

  it('an overdue crawl: its status read writes nothing; the reaper fails it, keeps what it found, fails its waiters', async () => {
    const parts = setup();
    const { crawlId, extractionId } = await crawlWithWaiter(parts, 'late-crawl.test', 1);
    clock += 5_000;

    const stored = await parts.executionStore.get(crawlId);
    const read = await parts.crawlJobs.status({ org: 'org-r', executionId: crawlId });
    expect(read).toMatchObject({ status: 'running', error: null });
    expect(await parts.executionStore.get(crawlId)).toEqual(stored);
    await expect(parts.crawlJobs.status({ org: 'other', executionId: crawlId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    const reaped = await parts.crawlJobs.reapOverdue();
    expect(reaped.failed).toContain(crawlId);
    expect(await parts.crawlJobs.status({ org: 'org-r', executionId: crawlId })).toMatchObject({
      status: 'failed',
      error: DEADLINE_MESSAGE,
      progress: null,
      result: { listings_total: 3 },
    });
    // What it found before it died is listed.
    expect(
      (await parts.catalog.listings({ vendor: 'late-crawl.test', page: 1, pageSize: 10 })).pagination.total_items,
    ).toBe(3);
    expect(await parts.extractJobs.status({ org: 'org-r', executionId: extractionId })).toMatchObject({
      status: 'failed',
      error: CRAWL_FAILED_MESSAGE,
    });
  });
});
