// A capability accessor (lambdas/composition/container.ts `capability`): built on its first call
// for a base container, once, kept apart per base (tests build several), tried again after a
// build that threw. What each function ships is decided by its static imports (esbuild's graph).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambdas/config';
import { capability, createContainer } from '../../lambdas/composition/container';

const ENDPOINT = 'http://127.0.0.1:9';
const config = { ...loadConfig({}), endpoints: { dynamodb: ENDPOINT, sqs: ENDPOINT, stepFunctions: ENDPOINT } };

describe('capability accessors', () => {
  it('build on the first call, once per base, and apart for another base', () => {
    let builds = 0;
    const counterOf = capability((base) => ({ table: base.config.tableName, n: ++builds }));
    const a = createContainer(config);
    const b = createContainer(config);
    try {
      expect(builds).toBe(0);
      const first = counterOf(a);
      expect(counterOf(a)).toBe(first);
      expect(builds).toBe(1);
      expect(counterOf(b)).not.toBe(first);
      expect(builds).toBe(2);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('build again after a build that threw, and keep an undefined value', () => {
    let attempts = 0;
    const flakyOf = capability(() => {
      attempts++;
      if (attempts === 1) throw new Error('not yet');
      return undefined;
    });
    const base = createContainer(config);
    try {
      expect(() => flakyOf(base)).toThrow('not yet');
      expect(flakyOf(base)).toBeUndefined();
      expect(flakyOf(base)).toBeUndefined();
      expect(attempts).toBe(2);
    } finally {
      base.dispose();
    }
  });
});
