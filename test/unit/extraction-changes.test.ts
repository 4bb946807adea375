// The extraction-changes bench's comparison: how each field moved between two engines' readings,
// with half A's values printed and half B's only counted.
import { describe, expect, it } from 'vitest';
import { compare } from '../bench/extraction-changes';
import type { BenchPage } from '../bench/extraction-accuracy';

const page = (id: string, half: 'A' | 'B', truth: Record<string, string[]>): BenchPage => ({
  id,
  half,
  url: `https://${id}.example.com/p`,
  html: '',
  truth,
});

describe('extraction-changes compare', () => {
  it('counts fixed, broken, changed, added and dropped per half, printing half A only', () => {
    const pages = [
      page('a1', 'A', { price: ['10.00'], sku: ['X1'] }),
      page('a2', 'A', { price: ['5.00'] }),
      page('b1', 'B', { price: ['7.00'], sku: ['Y1'], brand: ['Acme'] }),
      page('b2', 'B', { price: ['8.00'] }),
    ];
    const before = {
      a1: { price: '9.00', sku: 'X1' },
      a2: { price: '5.00', sku: null },
      b1: { price: '7.00', sku: 'Z9', brand: null },
      b2: { price: '1.00', brand: 'Stray' },
    };
    const after = {
      a1: { price: '10.00', sku: 'X2' },
      a2: { price: '5.00', sku: 'EXTRA' },
      b1: { price: '6.00', sku: 'Y1', brand: 'Other' },
      b2: { price: '2.00', brand: null },
    };
    const lines: string[] = [];
    const counts = compare(pages, before, after, (line) => lines.push(line));
    expect(counts.A.price).toMatchObject({ fixed: 1, broken: 0 });
    expect(counts.A.sku).toMatchObject({ broken: 1, added: 1 });
    expect(counts.B.price).toMatchObject({ broken: 1, changed: 1 });
    expect(counts.B.sku).toMatchObject({ fixed: 1 });
    expect(counts.B.brand).toMatchObject({ added: 1, dropped: 1 });
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.startsWith('  A a'))).toBe(true);
    expect(lines.join('\n')).not.toMatch(/b1|b2|Y1|Stray|Other/);
  });
});
