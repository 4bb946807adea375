// Stated constraints hold on /api/search and the mini searches: over a graded set of queries of
// our own (test/fixtures/search-constraints: product kinds and phrasings the other search tests
// do not use), at least 97% of the returned products keep every constraint the query states
// (price bound, gender or age, a negation, in stock), and the set returns something.
import { beforeAll, describe, expect, it } from 'vitest';
import { broken, type ConstraintFigure, constraintCatalog, measureConstraints } from '../bench/_search-constraints';

let figure: ConstraintFigure;

beforeAll(async () => {
  figure = await measureConstraints();
});

describe('stated constraints (graded set)', () => {
  it('the grader reads the fixture as written', () => {
    const jacket = constraintCatalog().find((p) => p.id === 'rj5')!;
    expect(broken(jacket, { age: 'kids', max: 50 })).toEqual([]);
    expect(broken(jacket, { gender: 'women' })).toEqual(['a kids product']);
    expect(broken(jacket, { not: ['hood'], inStock: true })).toEqual(['has hood']);
  });

  it('at least 0.97 of the returned products keep every stated constraint', () => {
    const report = figure.failures.map((f) => `${f.operation} "${f.query}": ${f.title} (${f.broken.join(', ')})`);
    expect(figure.returned).toBeGreaterThan(figure.queries * 2);
    expect(figure.precision, report.join('\n')).toBeGreaterThanOrEqual(0.97);
  });
});
