// Outcome mapping of createExtractor: every FetchFailure kind and HTTP status to the spec's
// outcomes and retry flags, the empty-record guard, and "never throws". The fetcher here is an
// in-process PageFetcher over fixed pages; the real got fetcher is driven in the integration test.
import { describe, expect, it } from 'vitest';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import { createExtractor } from '../../lambdas/domain/extraction/engine';
import type { ExtractOptions } from '../../lambdas/domain/extraction/types';
import {
  FetchFailure,
  type FetchedPage,
  type FetchFailureKind,
  type FetchRequest,
  type PageFetcher,
} from '../../lambdas/ports/fetcher';

const OPTIONS: ExtractOptions = {
  enableEnrichment: false,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'gb',
};

function fetcherOf(
  route: (request: FetchRequest) => Partial<FetchedPage> | Error,
): PageFetcher & { requests: FetchRequest[] } {
  const requests: FetchRequest[] = [];
  return {
    requests,
    async fetch(request) {
      requests.push(request);
      const answer = route(request);
      if (answer instanceof Error) throw answer;
      return {
        requestedUrl: request.url,
        finalUrl: request.url,
        status: 200,
        headers: {},
        contentType: 'text/html',
        body: '',
        ...answer,
      };
    },
  };
}

const PRODUCT_HTML = `<html><head><script type="application/ld+json">{"@type":"Product","name":"Trail Runner","sku":"TR-1","offers":{"@type":"Offer","price":"89.00","priceCurrency":"GBP","availability":"https://schema.org/InStock"}}</script></head>
<body><h1>Trail Runner</h1><span class="price">£89.00</span><button>Add to basket</button></body></html>`;

describe('createExtractor outcomes', () => {
  it('maps every fetch failure kind to an outcome with the class retry flag', async () => {
    const expected: Record<FetchFailureKind, [string, boolean]> = {
      malformed_url: ['malformed_url', false],
      blocked_address: ['malformed_url', false],
      robots_disallowed: ['automated_access_not_permitted', true],
      bot_wall: ['automated_access_not_permitted', true],
      timeout: ['other', true],
      dns: ['other', true],
      network: ['other', true],
      http_status: ['other', true],
      too_large: ['other', true],
      non_html: ['other', true],
      too_many_redirects: ['other', true],
    };
    for (const [kind, [outcome, retry]] of Object.entries(expected)) {
      const extract = createExtractor({
        fetcher: fetcherOf(() => new FetchFailure(kind as FetchFailureKind, `failed: ${kind}`)),
        enricher: createOfflineEnricher(),
      });
      const result = await extract('https://shop.example/products/x', OPTIONS);
      expect([result.outcome, result.retry], kind).toEqual([outcome, retry]);
      expect(result.product).toBeNull();
      // A network failure's text may be a socket error's own words: customers get a fixed one.
      if (kind === 'network') expect(result.message).not.toContain(`failed: ${kind}`);
      else expect(result.message).toContain(kind);
    }
  });

  it('maps HTTP statuses: 404/410 must be corrected, 401/403 refused, 429/5xx transient', async () => {
    const cases: Array<[number, string, boolean]> = [
      [404, 'non_product_url', false],
      [410, 'non_product_url', false],
      [403, 'automated_access_not_permitted', true],
      [401, 'automated_access_not_permitted', true],
      [429, 'other', true],
      [503, 'other', true],
    ];
    for (const [status, outcome, retry] of cases) {
      const extract = createExtractor({
        fetcher: fetcherOf(() => ({ status, body: '<h1>x</h1>' })),
        enricher: createOfflineEnricher(),
      });
      const viaPage = await extract('https://shop.example/products/x', OPTIONS);
      expect([viaPage.outcome, viaPage.retry], `page ${status}`).toEqual([outcome, retry]);
      const viaFailure = await createExtractor({
        fetcher: fetcherOf(() => new FetchFailure('http_status', `HTTP ${status}`, { status })),
        enricher: createOfflineEnricher(),
      })('https://shop.example/products/x', OPTIONS);
      expect([viaFailure.outcome, viaFailure.retry], `failure ${status}`).toEqual([outcome, retry]);
    }
  });

  it('rejects malformed input before fetching', async () => {
    const fetcher = fetcherOf(() => ({ body: PRODUCT_HTML }));
    const extract = createExtractor({ fetcher, enricher: createOfflineEnricher() });
    for (const input of [
      '',
      'shop.example/products/x',
      'mailto:a@b.c',
      'https://user:pw@shop.example/x',
      'https://nodot/x',
      42 as unknown as string,
    ]) {
      const result = await extract(input, OPTIONS);
      expect(result.outcome).toBe('malformed_url');
      expect(result.retry).toBe(false);
    }
    expect(fetcher.requests.length).toBe(0);
  });

  it('succeeds with message "" and final_url only after a redirect, passing the country', async () => {
    const fetcher = fetcherOf((r) => ({ body: PRODUCT_HTML, finalUrl: r.url.replace('/old/', '/products/') }));
    const extract = createExtractor({ fetcher, enricher: createOfflineEnricher() });
    const direct = await extract('https://shop.example/products/trail-runner', OPTIONS);
    expect(direct).toMatchObject({ success: true, outcome: 'success', retry: false, message: '' });
    expect(direct.final_url).toBeUndefined();
    expect(direct.product!.price).toEqual({ currency: 'GBP', current_value: 89, compare_at_value: null });
    const moved = await extract('https://shop.example/old/trail-runner', OPTIONS);
    expect(moved.final_url).toBe('https://shop.example/products/trail-runner');
    expect(fetcher.requests[0].countryCode).toBe('gb');
  });

  it('never reports success with an empty record', async () => {
    const titleOnly = createExtractor({
      fetcher: fetcherOf(() => ({
        body: '<html><body><h1>Trail Runner</h1><button>Add to basket</button></body></html>',
      })),
      enricher: createOfflineEnricher(),
    });
    const result = await titleOnly('https://shop.example/products/trail-runner', OPTIONS);
    expect(result.success).toBe(false);
    expect(['other', 'non_product_url']).toContain(result.outcome);
    expect(result.message.length).toBeGreaterThan(10);
    const blank = createExtractor({ fetcher: fetcherOf(() => ({ body: '   ' })), enricher: createOfflineEnricher() });
    expect((await blank('https://shop.example/products/x', OPTIONS)).outcome).toBe('other');
    const pdf = createExtractor({
      fetcher: fetcherOf(() => ({ body: '%PDF', contentType: 'application/pdf' })),
      enricher: createOfflineEnricher(),
    });
    expect((await pdf('https://shop.example/products/x', OPTIONS)).outcome).toBe('other');
  });

  it('never throws: unexpected fetcher and enricher errors become other/retry', async () => {
    const broken = createExtractor({
      fetcher: fetcherOf(() => new TypeError('socket exploded')),
      enricher: createOfflineEnricher(),
    });
    expect(await broken('https://shop.example/products/x', OPTIONS)).toMatchObject({
      outcome: 'other',
      retry: true,
      product: null,
    });
    const badEnricher = createExtractor({
      fetcher: fetcherOf(() => ({ body: PRODUCT_HTML })),
      enricher: { enrich: async () => Promise.reject(new Error('model down')) },
    });
    const result = await badEnricher('https://shop.example/products/trail-runner', {
      ...OPTIONS,
      enableEnrichment: true,
    });
    expect(result).toMatchObject({ outcome: 'other', retry: true, success: false });
    // Customer-visible: never the raw exception text.
    expect(result.message).not.toContain('model down');
    expect(result.message).toBe('Extraction failed unexpectedly; the URL may be resubmitted');
  });
});
