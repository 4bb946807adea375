import { describe, expect, it } from 'vitest';
import { kindOfExecutionId, newExecutionId } from '../../lambdas/domain/executions/ids';
import { durationMs, summarize, type Execution } from '../../lambdas/domain/executions/model';
import { pagination } from '../../lambdas/domain/executions/service';

describe('execution ids', () => {
  it('follow the DECISIONS formats and are recognised back', () => {
    expect(newExecutionId('products-batch')).toMatch(/^products-batch-[0-9a-f-]{36}$/);
    expect(newExecutionId('extract-urls')).toMatch(/^extract-urls-[0-9a-f-]{36}$/);
    expect(newExecutionId('extract-vendor', 'shop.example.com')).toMatch(/^extract-shop-example-com-[0-9a-f-]{36}$/);
    expect(newExecutionId('crawl', 'www.shop.example')).toMatch(/^crawl-www-shop-example-[0-9a-f]{12}$/);
    expect(newExecutionId('agentic')).toMatch(/^agentic-[0-9a-f-]{36}$/);
    const long = newExecutionId('extract-vendor', `${'a'.repeat(70)}.example`);
    expect(long.length).toBeLessThanOrEqual(80);
    for (const kind of ['products-batch', 'extract-urls', 'agentic'] as const)
      expect(kindOfExecutionId(newExecutionId(kind))).toBe(kind);
    expect(kindOfExecutionId(newExecutionId('crawl', 'a.example'))).toBe('crawl');
    expect(kindOfExecutionId(newExecutionId('extract-vendor', 'a.example'))).toBe('extract-vendor');
    expect(kindOfExecutionId('../../etc')).toBeNull();
  });
});

describe('execution read helpers', () => {
  const base: Execution = {
    id: 'extract-urls-x',
    org: 'o',
    kind: 'extract-urls',
    status: 'running',
    error: null,
    created_at: '2030-01-01T00:00:00.000Z',
    start_date: '2030-01-01T00:00:01.000Z',
    stop_date: null,
    deadline: '2030-01-01T01:00:00.000Z',
    options: {},
    input: {},
    counters: {},
    waiting_for: null,
    workflow: 'extract',
    finalized: false,
  };
  it('shows processing for pending and running in lists, the exact state beside it', () => {
    expect(summarize(base)).toMatchObject({ status: 'processing', state: 'running' });
    expect(summarize({ ...base, status: 'pending' }).status).toBe('processing');
    expect(summarize({ ...base, status: 'failed' }).status).toBe('failed');
  });
  it('measures duration from start to stop, or to now while running', () => {
    expect(durationMs({ ...base, start_date: null }, new Date())).toBeNull();
    expect(durationMs(base, new Date('2030-01-01T00:00:03.500Z'))).toBe(2500);
    expect(durationMs({ ...base, stop_date: '2030-01-01T00:00:02.000Z' }, new Date('2031-01-01'))).toBe(1000);
  });
  it('computes pagination', () => {
    expect(pagination(2, 10, 25)).toEqual({
      page: 2,
      page_size: 10,
      total_items: 25,
      total_pages: 3,
      has_next: true,
      has_prev: true,
    });
    expect(pagination(1, 20, 0)).toEqual({
      page: 1,
      page_size: 20,
      total_items: 0,
      total_pages: 0,
      has_next: false,
      has_prev: false,
    });
  });
});
