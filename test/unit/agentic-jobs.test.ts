// v2 agentic search as an execution: the state machine's steps in order over in-memory stores,
// the status an operator's customer reads, and the guarantees against late or repeated work.
import { describe, expect, it } from 'vitest';
import { createAgenticJobs } from '../../lambdas/domain/agentic/jobs';
import { createExecutions } from '../../lambdas/domain/executions/service';
import type { VerifyUrls } from '../../lambdas/domain/agentic/search';
import type { ProductRecord, UrlResult } from '../../lambdas/domain/extraction/types';
import type { WorkflowEngine } from '../../lambdas/ports/workflow';
import { catalogOf, memoryExecutionStore, memoryResultStore, product, standInSearch } from './agentic-fixtures';

function setup(
  options: {
    live?: Record<string, Partial<ProductRecord> | 'gone'>;
    startFails?: boolean;
    deadlineSeconds?: number;
  } = {},
) {
  const items = catalogOf(
    Array.from({ length: 10 }, (_, i) =>
      product({ id: `p${i}`, title: `Wool Scarf ${i}`, url: `https://shop.test/products/wool-scarf-${i}` }),
    ),
  );
  const started: Array<{ workflow: string; id: string }> = [];
  const workflows: WorkflowEngine = {
    async start(workflow, id) {
      if (options.startFails) throw new Error('states unavailable');
      started.push({ workflow, id });
    },
    async stop() {},
  };
  const store = memoryExecutionStore();
  const executions = createExecutions({ store, workflows });
  const verify: VerifyUrls = async (urls) =>
    urls.map((url): UrlResult => {
      const change = options.live?.[url];
      if (change === 'gone')
        return {
          url,
          product: null,
          success: false,
          outcome: 'non_product_url',
          retry: false,
          message: 'Page not found (404)',
        };
      return {
        url,
        product: { ...items.find((i) => i.url === url)!.product, ...change },
        success: true,
        outcome: 'success',
        retry: false,
        message: '',
      };
    });
  const jobs = createAgenticJobs({
    executions,
    results: memoryResultStore(),
    workflows,
    search: standInSearch(items),
    verify,
    workflowName: 'agentic',
    deadlineSeconds: options.deadlineSeconds ?? 900,
  });
  return { jobs, items, started, store, executions };
}

async function runAll(jobs: ReturnType<typeof setup>['jobs'], executionId: string) {
  const plan = await jobs.steps.understand({ executionId });
  const retrieved = await jobs.steps.retrieve(plan);
  for (const message of retrieved.candidates) await jobs.steps.verify(message);
  return { plan, retrieved, ranked: await jobs.steps.rank({ executionId }) };
}

describe('agentic search executions', () => {
  it('start: pending, agentic-{uuid}, 5 credits, the workflow started under the same id', async () => {
    const { jobs, started } = setup();
    const start = await jobs.start({ org: 'org-a', query: 'wool scarf', pageSize: 8, enrichment: false });
    expect(start.execution_id).toMatch(/^agentic-[0-9a-f-]{36}$/);
    expect(start).toMatchObject({ status: 'pending', credits_used: 5 });
    expect(started).toEqual([{ workflow: 'agentic', id: start.execution_id }]);
    const status = await jobs.status({ org: 'org-a', executionId: start.execution_id });
    expect(status).toMatchObject({
      status: 'pending',
      query: 'wool scarf',
      credits_used: 5,
      results: null,
      progress: { step: 'pending', percent_complete: 0 },
    });
  });

  it('runs understand -> retrieve -> verify -> rank; the status shows the verified products, page_size at most', async () => {
    const { jobs, items } = setup({ live: { 'https://shop.test/products/wool-scarf-1': 'gone' } });
    const { execution_id } = await jobs.start({
      org: 'org-a',
      query: 'wool scarf',
      pageSize: 5,
      enrichment: false,
      profile: { style: { avoid: ['scarf 3'] } },
    });
    const { plan, retrieved, ranked } = await runAll(jobs, execution_id);
    expect(plan).toMatchObject({ proceed: true, pageSize: 5, rules: { avoid: ['scarf 3'] } });
    expect(retrieved.candidates.map((c) => c.candidate.url)).toEqual([0, 1, 2, 4, 5].map((i) => items[i].url));
    expect(ranked).toMatchObject({ returned: 4, completed: true });
    const status = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(status.status).toBe('completed');
    expect(status.results!.items.map((r) => r.product.id)).toEqual(['p0', 'p2', 'p4', 'p5']);
    expect(status.results!.pagination).toEqual({
      page: 1,
      page_size: 5,
      total_items: 4,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(status.progress).toEqual({
      step: 'done',
      candidates_total: 5,
      candidates_verified: 4,
      candidates_dropped: 1,
      percent_complete: 100,
    });
    // enable_enrichment false: the governed fields are null in the result.
    expect(status.results!.items[0].product).toMatchObject({
      attributes: null,
      product_type: null,
      taxonomy_product_category_path: null,
    });
    expect(status.start_date).not.toBeNull();
    expect(status.stop_date).not.toBeNull();
  });

  it("another organization's execution, or an id that is not an agentic one, is NOT_FOUND", async () => {
    const { jobs } = setup();
    const { execution_id } = await jobs.start({ org: 'org-a', query: 'wool scarf', pageSize: 8, enrichment: false });
    await expect(jobs.status({ org: 'org-b', executionId: execution_id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      jobs.status({ org: 'org-a', executionId: 'extract-urls-00000000-0000-0000-0000-000000000000' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a repeated verification counts once; a lost one is dropped by Rank; nothing changes after Rank', async () => {
    const { jobs } = setup();
    const { execution_id } = await jobs.start({ org: 'org-a', query: 'wool scarf', pageSize: 3, enrichment: true });
    const plan = await jobs.steps.understand({ executionId: execution_id });
    const { candidates } = await jobs.steps.retrieve(plan);
    await jobs.steps.verify(candidates[0]);
    expect(await jobs.steps.verify(candidates[0])).toMatchObject({ recorded: false });
    const mid = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(mid.progress).toMatchObject({ step: 'verifying', candidates_total: 3, candidates_verified: 1 });
    await jobs.steps.abandon(candidates[1]); // dead-lettered
    await jobs.steps.rank({ executionId: execution_id }); // candidates[2] never reported
    expect(await jobs.steps.verify(candidates[2])).toMatchObject({ recorded: false });
    const status = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(status.results!.items.map((r) => r.product.id)).toEqual(['p0']);
    expect(status.progress).toMatchObject({ candidates_verified: 1, candidates_dropped: 2 });
    expect(status.results!.items[0].product.attributes).not.toBeNull();
  });

  it('a reaped execution stops its steps; a step that fails for good fails the execution', async () => {
    const { jobs, store } = setup();
    const first = await jobs.start({ org: 'org-a', query: 'wool scarf', pageSize: 8, enrichment: false });
    store.items.get(first.execution_id)!.status = 'failed';
    expect(await jobs.steps.understand({ executionId: first.execution_id })).toMatchObject({ proceed: false });
    const second = await jobs.start({ org: 'org-a', query: 'wool scarf', pageSize: 8, enrichment: false });
    await jobs.steps.understand({ executionId: second.execution_id });
    await jobs.steps.fail({ executionId: second.execution_id });
    const status = await jobs.status({ org: 'org-a', executionId: second.execution_id });
    expect(status).toMatchObject({
      status: 'failed',
      error: 'The agentic search could not be completed; start a new one',
      results: null,
    });
  });

  it('a stalled execution is failed by the deadline reaper, not by a status read; its steps then stop', async () => {
    const { jobs, executions } = setup({ deadlineSeconds: 0 });
    const { execution_id } = await jobs.start({ org: 'org-a', query: 'wool scarf', pageSize: 8, enrichment: false });
    expect(await jobs.status({ org: 'org-a', executionId: execution_id })).toMatchObject({ status: 'pending' });
    expect((await executions.reapOverdue()).failed).toEqual([execution_id]);
    const status = await jobs.status({ org: 'org-a', executionId: execution_id });
    expect(status).toMatchObject({
      status: 'failed',
      error: 'Execution exceeded its deadline and was stopped',
      results: null,
    });
    expect(await jobs.steps.understand({ executionId: execution_id })).toMatchObject({ proceed: false });
    expect(await jobs.steps.rank({ executionId: execution_id })).toMatchObject({ completed: false });
  });

  it('no candidates: completes with no data; a workflow that cannot start fails the execution', async () => {
    const { jobs } = setup();
    const { execution_id } = await jobs.start({ org: 'org-a', query: 'desk lamp', pageSize: 8, enrichment: false });
    const { retrieved, ranked } = await runAll(jobs, execution_id);
    expect(retrieved).toMatchObject({ proceed: false, candidates: [] });
    expect(ranked).toMatchObject({ returned: 0, completed: true });
    expect((await jobs.status({ org: 'org-a', executionId: execution_id })).results!.items).toEqual([]);

    const broken = setup({ startFails: true });
    await expect(broken.jobs.start({ org: 'org-a', query: 'x', pageSize: 8, enrichment: false })).rejects.toThrow(
      'states unavailable',
    );
    const [failed] = [...broken.store.items.values()];
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'The agentic search could not be completed; start a new one',
    });
  });
});
