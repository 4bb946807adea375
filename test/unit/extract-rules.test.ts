// The per-URL rules in their one home each (extraction/results.ts, extraction/options.ts, the
// synchronous path's credits), and the fault decorator's crash points over an in-memory store.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  finalUrlField,
  groupDuplicates,
  landedElsewhere,
  malformedResult,
  resultFor,
  unexpectedFailure,
  UNEXPECTED_FAILURE_MESSAGE,
} from '../../lambdas/domain/extraction/results';
import { extractOptionsFrom } from '../../lambdas/domain/extraction/options';
import { extractNow } from '../../lambdas/domain/extract-jobs/sync';
import { createExtractor } from '../../lambdas/domain/extraction/engine';
import { createOfflineEnricher } from '../../lambdas/domain/enrichment';
import type { ExtractOptions, ExtractUrl, UrlResult } from '../../lambdas/domain/extraction/types';
import type { PageFetcher } from '../../lambdas/ports/fetcher';

const OPTIONS: ExtractOptions = {
  enableEnrichment: true,
  enableReviews: false,
  enableImageTags: false,
  enableSimilarProducts: false,
  countryCode: 'us',
};
const ok = (url: string, final_url?: string): UrlResult => ({
  url,
  product: { url } as never,
  success: true,
  outcome: 'success',
  retry: false,
  message: '',
  ...(final_url ? { final_url } : {}),
});

describe('final_url only when it differs', () => {
  it('compares parsed URLs', () => {
    expect(landedElsewhere('https://x.example/a', 'https://x.example/b')).toBe(true);
    expect(landedElsewhere('https://x.example/a', 'https://x.example/a')).toBe(false);
    expect(landedElsewhere('HTTPS://X.example:443/a', 'https://x.example/a')).toBe(false);
    expect(landedElsewhere('https://x.example/a', undefined)).toBe(false);
    expect(finalUrlField('https://x.example/a', 'https://x.example/a')).toEqual({});
    expect(finalUrlField('https://x.example/a', 'https://x.example/b')).toEqual({ final_url: 'https://x.example/b' });
  });
  it('answers a duplicate under its own input URL, with final_url against that input', () => {
    const first = ok('https://x.example/p', 'https://x.example/p');
    expect(resultFor('https://x.example/p?utm_source=a#top', first)).toEqual({
      ...ok('https://x.example/p'),
      url: 'https://x.example/p?utm_source=a#top',
      final_url: 'https://x.example/p',
    });
    expect(resultFor('https://x.example/p', first)).not.toHaveProperty('final_url');
  });
});

describe('failure results', () => {
  it('malformed: invalid class, our own words; unexpected: failed class, a fixed text', () => {
    expect(malformedResult('nope', 'no hostname')).toEqual({
      url: 'nope',
      product: null,
      success: false,
      outcome: 'malformed_url',
      retry: false,
      message: 'Malformed URL: no hostname',
    });
    expect(unexpectedFailure('https://x.example/a')).toMatchObject({
      outcome: 'other',
      retry: true,
      message: UNEXPECTED_FAILURE_MESSAGE,
    });
  });
  it('never carry a raw exception text from the engine', async () => {
    const secret = 'ECONNRESET at internal-host-10.0.3.7:5432 stack trace';
    const throwing: PageFetcher = {
      fetch: async () => {
        throw new Error(secret);
      },
    };
    const extract = createExtractor({ fetcher: throwing, enricher: createOfflineEnricher() });
    const result = await extract('https://shop.example/products/x', OPTIONS);
    expect(result).toMatchObject({ outcome: 'other', retry: true });
    expect(result.message).not.toContain('ECONNRESET');
    expect(result.message).not.toContain('10.0.3.7');
  });
});

describe('duplicate groups', () => {
  it('groups by first occurrence, in order of first occurrence', () => {
    const entries = [
      { index: 0, dup_of: null },
      { index: 1, dup_of: null },
      { index: 2, dup_of: 0 },
      { index: 3, dup_of: 1 },
      { index: 4, dup_of: 0 },
    ];
    expect(groupDuplicates(entries).map((g) => g.map((e) => e.index))).toEqual([
      [0, 2, 4],
      [1, 3],
    ]);
    expect(groupDuplicates([entries[3], entries[1], entries[2], entries[0]]).map((g) => g.map((e) => e.index))).toEqual(
      [
        [2, 0],
        [3, 1],
      ],
    );
  });
});

describe('request options', () => {
  it('maps every family body; flags a family does not offer are off', () => {
    expect(extractOptionsFrom({ enable_enrichment: true, country_code: 'DE' })).toEqual({
      enableEnrichment: true,
      enableReviews: false,
      enableImageTags: false,
      enableSimilarProducts: false,
      countryCode: 'de',
    });
    expect(
      extractOptionsFrom({ enable_reviews: true, enable_image_tags: true, enable_similar_products: true }),
    ).toMatchObject({
      enableEnrichment: false,
      enableReviews: true,
      enableImageTags: true,
      enableSimilarProducts: true,
      countryCode: 'us',
    });
  });
});

describe('synchronous extraction credits', () => {
  it('lists distinct normalised URLs and charges each successful product once', async () => {
    const fetched: string[] = [];
    const extractUrl: ExtractUrl = async (url) => {
      fetched.push(url);
      return url.endsWith('/q')
        ? { url, product: null, success: false, outcome: 'other', retry: true, message: 'down' }
        : ok(url);
    };
    const inputs = [
      'https://shop.example/p#a',
      'https://shop.example/p?utm_source=x',
      'bad url',
      'https://shop.example/q',
      42,
    ];
    const out = await extractNow({ urls: inputs, options: OPTIONS }, { extractUrl });
    expect(fetched).toEqual(['https://shop.example/p', 'https://shop.example/q']);
    expect(out.urls_processed).toEqual(['https://shop.example/p', 'https://shop.example/q']);
    expect(out.credits_used).toBe(2); // one product x (1 + enrichment); the duplicate is free
    expect(out.results.map((r) => r.url)).toEqual([
      'https://shop.example/p#a',
      'https://shop.example/p?utm_source=x',
      'bad url',
      'https://shop.example/q',
      '42',
    ]);
    const moreFlags = await extractNow(
      { urls: inputs, options: { ...OPTIONS, enableEnrichment: false, enableReviews: true, enableImageTags: true } },
      { extractUrl },
    );
    expect(moreFlags.credits_used).toBe(3);
  });
  it('turns a throwing engine into the unexpected-failure result', async () => {
    const out = await extractNow(
      { urls: ['https://shop.example/p'], options: OPTIONS },
      {
        extractUrl: async () => {
          throw new Error('boom at /srv/app');
        },
      },
    );
    expect(out.results[0]).toMatchObject({ outcome: 'other', retry: true, message: UNEXPECTED_FAILURE_MESSAGE });
    expect(out.credits_used).toBe(0);
  });
});

describe('fault injection stays out of the domain', () => {
  it('no domain file names injected faults or crash points (lambdas/composition/faults.ts wraps the ports)', () => {
    const root = join(__dirname, '../../lambdas/domain');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.filter((f) =>
      /Injected\w*Fault|crashAt|crashRate|duplicateRate|\bfaults\b/.test(readFileSync(join(root, f), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
