// The OpenSearch request bodies, pinned offline (the idea of ElectroDB's `.params()` tests): for
// every query of the graded constraint set (test/fixtures/search-constraints), in both modes, the
// body built from the plan the domain's search service makes, so a change to query
// understanding or to the engine's form shows up as a reviewed diff. And the plan the OpenSearch
// adapter runs is the very plan the default index is given for the same request.
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { searchBody, recentBody, needs, engineDocument } from '../../lambdas/adapters/search/opensearch-query';
import { searchPlanner } from '../../lambdas/adapters/search/opensearch-search';
import { createSearchService } from '../../lambdas/domain/search/service';
import { toSearchDocument } from '../../lambdas/domain/search/document';
import type { IndexQuery, SearchIndex } from '../../lambdas/ports/search-index';
import type { SearchRequest } from '../../lambdas/domain/search/api';
import { constraintChanges, constraintQueries } from '../bench/_search-constraints';

let index: SearchIndex;
const queries = constraintQueries();
const requests = (): SearchRequest[] =>
  queries.flatMap(({ query }) => [
    { query, mode: 'understand' as const, offset: 0, limit: 10 },
    { query, mode: 'keywords' as const, offset: 10, limit: 5 },
  ]);

beforeAll(async () => {
  index = createMemoryIndex();
  const { changes } = await constraintChanges();
  index.upsert(await Promise.all(changes.map((change) => toSearchDocument(change))));
});

describe('OpenSearch query bodies', () => {
  it('plans exactly what the default index is asked, for every query of the set', async () => {
    const given: IndexQuery[] = [];
    const recording: SearchIndex = {
      ...index,
      search(query) {
        given.push(query);
        return index.search(query);
      },
    };
    const service = createSearchService({
      index: recording,
      feed: null,
      records: { get: async () => null },
      snapshots: null,
      now: Date.now,
    });
    const planner = searchPlanner(() => index);
    for (const request of requests()) {
      const planned = await planner.plan(request);
      const answered = await service.search(request);
      expect(planned.query).toEqual(given.at(-1));
      expect(planned.understood).toEqual(answered.understood);
    }
    expect(given).toHaveLength(queries.length * 2);
  });

  it('turns every planned query into the pinned body', async () => {
    expect(queries.length).toBeGreaterThanOrEqual(50);
    const planner = searchPlanner(() => index);
    const bodies: Record<string, unknown> = {};
    for (const request of requests()) {
      const { query } = await planner.plan(request);
      const [most, least] = needs(query);
      bodies[`${request.mode}: ${request.query}`] = {
        body: searchBody(query),
        ...(least < most ? { relaxedTo: searchBody(query, least).query } : {}),
      };
    }
    // One line a query: the diff of a change names the queries it touches.
    const lines = Object.entries(bodies).map(([name, body]) => `${JSON.stringify(name)}: ${JSON.stringify(body)}`);
    await expect(`{\n${lines.join(',\n')}\n}\n`).toMatchFileSnapshot('__snapshots__/opensearch-queries.json');
  });

  it('states constraints as filter clauses, paging as from/size, and relaxes only when asked', async () => {
    const planner = searchPlanner(() => index);
    const { query } = await planner.plan({
      query: "women's rain jacket under $100 in stock without hood",
      mode: 'understand',
      offset: 20,
      limit: 10,
    });
    const body = searchBody(query) as any;
    expect(body).toMatchObject({ from: 20, size: 10, track_total_hits: true });
    const bool = body.query.function_score.query.bool;
    expect(bool.filter).toEqual(
      expect.arrayContaining([{ range: { price: { gte: undefined, lte: 100 } } }, { term: { available: true } }]),
    );
    expect(bool.must_not).toContainEqual({ bool: { filter: [{ term: { described: 'hood' } }] } });
    // Typos: a typo-tolerant clause for each variant of a group that allows typos, at a lower weight.
    const fuzzy = JSON.stringify(bool.must).match(/"fuzziness"/g) ?? [];
    expect(fuzzy.length).toBeGreaterThan(0);
    expect(needs({ ...query, relax: false })).toEqual([query.groups.length, query.groups.length]);
    expect(recentBody({ vendor: 'a.test', offset: 5, limit: 2 })).toMatchObject({
      query: { bool: { filter: [{ term: { vendor: 'a.test' } }] } },
      from: 5,
      size: 2,
      sort: [{ updatedAt: 'desc' }, { key: 'asc' }],
    });
  });

  it('stores a document with its analysed text and its filterable fields', async () => {
    const [doc] = index.documents();
    const stored = engineDocument(doc) as any;
    expect(stored.doc).toBe(doc);
    expect(stored.key).toBe(doc.key);
    expect(stored.t_title.split(' ').length).toBeGreaterThan(0);
    expect(stored.categoryPath.at(-1) ?? null).toBe(doc.categoryId);
  });
});
