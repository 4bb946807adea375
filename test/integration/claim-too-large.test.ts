// Results kept as JSON until the claim (lambdas/domain/extract-jobs/{claim-protocol,
// steps}.ts, adapters/dynamodb/extract-results.ts): a batch whose results are too large for its
// claim item (incompressible, over 350 KB gzipped) is recorded entry by entry from the JSON parsed
// back; each entry must hold the very result extracted (non-ASCII text, nulls, nested values,
// under its own input URL for a duplicate), the batch must count once, a redelivery must fetch
// and count nothing more, and Finalize must complete the execution with those results. Real
// stores on the embedded DynamoDB; the ExtractUrl is the test's own (the engine is not the subject).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClients, type AwsClients } from '../../lambdas/adapters/clients';
import { dynamoExecutionStore } from '../../lambdas/adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../../lambdas/adapters/dynamodb/extract-results';
import { dynamoProductStore } from '../../lambdas/adapters/dynamodb/products';
import { dynamoVendorStore } from '../../lambdas/adapters/dynamodb/vendors';
import { loadConfig } from '../../lambdas/config';
import { createExecutions } from '../../lambdas/domain/executions/service';
import { createExtractJobs } from '../../lambdas/domain/extract-jobs/jobs';
import { createExtractSteps } from '../../lambdas/domain/extract-jobs/steps';
import type { ExtractUrl, ProductRecord, UrlResult } from '../../lambdas/domain/extraction/types';
import { PLAIN_OPTIONS } from '../fakes/extract-options';
import { createProductCatalog } from '../../lambdas/domain/products/catalog';
import { type Engines, startEngines } from '../../lambdas/local/engines';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';

let engines: Engines;
let clients: AwsClients;

beforeAll(async () => {
  engines = await startEngines();
  clients = createClients({
    ...loadConfig({}),
    endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint },
  });
});
afterAll(async () => {
  clients?.dynamodb.destroy();
  await engines?.stop();
});

function bigProduct(url: string, n: number): ProductRecord {
  return {
    id: `p${n}`,
    title: `Crème brûlée n°${n} — 5 € ✓ 🍮`,
    // Incompressible: three of these are over the claim's 350 KB.
    description: randomBytes(140 * 1024).toString('base64'),
    description_html: null,
    vendor: 'Vendeur Ü',
    brand: null,
    url,
    handle: null,
    is_available: true,
    attributes: { summary: 'line\nbreak "quoted" \\ back\u2028sep', nested: { list: [1, 2.5, null, 'x'] } },
    price: { currency: 'EUR', current_value: 12.34, compare_at_value: null },
    images: [],
    options: [],
    variants: [],
    store_canonical_url: null,
    store_domain: null,
    platform: null,
    platform_id: null,
    product_type: null,
    taxonomy_product_category_id: null,
    taxonomy_product_category_path: null,
    tags: ['ä', 'ß'],
    video_url: null,
    review_count: null,
    average_rating: null,
    rating_scale: null,
    faqs: null,
    reviews: [],
    updated_at: new Date(0).toISOString(),
    similar_products: null,
    affiliate_link: null,
  } as unknown as ProductRecord;
}

describe('a claim too large for its item', () => {
  it('records each entry from the JSON parsed back, counts once, and a redelivery adds nothing', async () => {
    const extracted = new Map<string, UrlResult>();
    let fetches = 0;
    const extractUrl: ExtractUrl = async (url) => {
      fetches++;
      const result: UrlResult = {
        url,
        product: bigProduct(url, fetches),
        success: true,
        outcome: 'success',
        retry: false,
        message: '',
      };
      extracted.set(url, result);
      return result;
    };
    const workflows: WorkflowEngine = { async start() {}, async stop() {} };
    const executions = createExecutions({
      store: dynamoExecutionStore(clients.documents, engines.tableName),
      workflows,
    });
    const results = dynamoExtractResultStore(clients.documents, engines.tableName);
    const catalog = createProductCatalog({
      store: dynamoProductStore(clients.documents, engines.tableName),
      vendors: dynamoVendorStore(clients.documents, engines.tableName),
    });
    const jobs = createExtractJobs({ executions, results, workflows, workflowName: 'extract', deadlineSeconds: 600 });
    const steps = createExtractSteps({ executions, results, extractUrl, catalog, batchUrls: 4, urlConcurrency: 2 });

    const stamp = Date.now();
    const urls = [1, 2, 3].map((i) => `https://shop.example/p/big-${stamp}-${i}`);
    // The fourth input: the first URL again (a duplicate of index 0).
    const inputs = [...urls, urls[0]];
    const { execution_id } = await jobs.start({
      org: 'org-a',
      kind: 'extract-urls',
      urls: inputs,
      options: PLAIN_OPTIONS,
    });
    const { batches } = await steps.prepare({ executionId: execution_id });
    expect(batches).toHaveLength(1);
    const [batch] = batches;

    const first = await steps.processBatch({ executionId: execution_id, batch });
    expect(first).toMatchObject({ state: 'done', counted: true });
    expect(fetches).toBe(3);
    // The claim holds no results (too large): the entries were recorded one by one.
    const claim = (await results.claims(execution_id)).get(batch.id);
    expect(claim).toBeDefined();
    expect(claim!.results).toBeNull();
    const stored = await results.all(execution_id);
    expect(stored.map((e) => [e.index, e.state, e.result?.outcome])).toEqual(
      inputs.map((_, i) => [i, 'done', 'success']),
    );
    for (const entry of stored.filter((e) => e.dup_of === null))
      expect(entry.result, entry.input).toEqual(extracted.get(entry.input));

    // A redelivery: nothing fetched, nothing counted again.
    const again = await steps.processBatch({ executionId: execution_id, batch });
    expect(again).toMatchObject({ counted: false });
    expect(fetches).toBe(3);

    await steps.finalize({ executionId: execution_id });
    const status = await jobs.status({ org: 'org-a', executionId: execution_id, page: 1, pageSize: 10 });
    expect(status.status).toBe('completed');
    expect(status.result).toMatchObject({
      products_requested: 4,
      products_successful: 4,
      products_failed: 0,
      products_pending: 0,
    });
    expect(status.results!.items.map((r) => r.outcome)).toEqual(['success', 'success', 'success', 'success']);
  });
});
