// The crawl's fault decorator (composition/faults.ts): a crashing batch dies after a drawn
// number of its page reads, a duplicated message is re-sent once, and nothing crashes when the
// draw says no. The domain's steps run unchanged over the decorated fetcher.
import { describe, expect, it } from 'vitest';
import { InjectedFault, withCrawlFaults } from '../../lambdas/composition/faults';
import type { CrawlBatchMessage, CrawlSteps } from '../../lambdas/domain/crawl/steps';
import type { PageFetcher } from '../../lambdas/ports/fetcher';

const message = (pages: number): CrawlBatchMessage => ({
  crawlId: 'crawl-shop-example-0123456789ab',
  wave: 1,
  batch: {
    id: 'w1-b0',
    pages: Array.from({ length: pages }, (_, n) => ({ url: `https://shop.example/p/${n}`, seq: 's', n })),
  } as never,
});

function harness(draws: number[]) {
  const reads: string[] = [];
  const fetcher: PageFetcher = {
    async fetch(request) {
      reads.push(request.url);
      return {
        requestedUrl: request.url,
        finalUrl: request.url,
        status: 200,
        headers: {},
        contentType: 'text/html',
        body: '',
      };
    },
  };
  // Steps that read every page of the batch through the fetcher they were built with.
  const build = (fetch: () => PageFetcher) =>
    ({
      async processBatch(m: CrawlBatchMessage) {
        for (const page of (m.batch as unknown as { pages: Array<{ url: string }> }).pages)
          await fetch().fetch({ url: page.url });
        return { state: 'done' as const, counted: true };
      },
    }) as unknown as CrawlSteps;
  const resent: CrawlBatchMessage[] = [];
  let i = 0;
  const steps = withCrawlFaults(
    build,
    () => fetcher,
    { crashRate: 0.5, duplicateRate: 0.5 },
    {
      random: () => draws[i++] ?? 0.99,
      resend: async (m) => void resent.push(m),
    },
  );
  return { steps, reads, resent };
}

describe('crawl fault decorator', () => {
  it('kills a crashing batch after the drawn share of its page reads', async () => {
    // duplicate? no (0.9); crash? yes (0.1); reads before dying: floor(0.5 * 4) = 2.
    const { steps, reads, resent } = harness([0.9, 0.1, 0.5]);
    await expect(steps.processBatch(message(4))).rejects.toBeInstanceOf(InjectedFault);
    expect(reads).toEqual(['https://shop.example/p/0', 'https://shop.example/p/1']);
    expect(resent).toEqual([]);
  });

  it('re-sends a message once and runs it whole when the crash draw says no', async () => {
    const { steps, reads, resent } = harness([0.1, 0.9]);
    await expect(steps.processBatch(message(3))).resolves.toEqual({ state: 'done', counted: true });
    expect(reads).toHaveLength(3);
    expect(resent).toHaveLength(1);
    expect((resent[0] as { duplicateOf?: string }).duplicateOf).toBe('crawl-shop-example-0123456789ab/w1-b0');
    // The copy itself is never copied again.
    await steps.processBatch(resent[0]);
    expect(resent).toHaveLength(1);
  });

  it('leaves reads outside a crashing batch alone', async () => {
    const { steps, reads } = harness([0.9, 0.9, 0.9, 0.9]);
    await steps.processBatch(message(2));
    await steps.processBatch(message(2));
    expect(reads).toHaveLength(4);
  });
});
