// The lazy capabilities of the composition root (lambdas/composition/lazy.ts): a value that reads
// like the capability itself, loads its module on the first call (not on property reads, not when
// awaited), once, with `this` and arguments intact, retries a failed load, and answers eager
// members without loading. And the container really defers the heavy modules.
import { describe, expect, it } from 'vitest';
import { lazyAsync, onceAsync, type SyncMembers } from '../../lambdas/composition/lazy';

interface Jobs {
  start(input: { id: string }): Promise<string>;
  steps: { plan(n: number): Promise<number[]> };
}

function counting<T>(value: T) {
  let loads = 0;
  return {
    load: async () => {
      loads++;
      return value;
    },
    loads: () => loads,
  };
}

describe('lazyAsync', () => {
  it('loads on the first call only, once, and calls nested members with their owner as this', async () => {
    const impl = {
      prefix: 'job-',
      async start(this: { prefix: string }, input: { id: string }) {
        return this.prefix + input.id;
      },
      steps: {
        factor: 2,
        async plan(this: { factor: number }, n: number) {
          return Array.from({ length: n }, (_, i) => i * this.factor);
        },
      },
    };
    const source = counting(impl);
    const jobs = lazyAsync<Jobs>(source.load);
    const { steps } = jobs; // property reads never load
    expect(source.loads()).toBe(0);
    await expect(jobs.start({ id: 'a' })).resolves.toBe('job-a');
    await expect(steps.plan(3)).resolves.toEqual([0, 2, 4]);
    await Promise.all([jobs.start({ id: 'b' }), jobs.steps.plan(1)]);
    expect(source.loads()).toBe(1);
  });

  it('is not a thenable: awaiting it neither loads nor hangs', async () => {
    const source = counting<Jobs>({ start: async () => 'x', steps: { plan: async () => [] } });
    const jobs = lazyAsync<Jobs>(source.load);
    expect(await jobs).toBe(jobs);
    expect(source.loads()).toBe(0);
  });

  it('rejects calls while the module fails to load, and loads again on the next call', async () => {
    let attempt = 0;
    const jobs = lazyAsync<Jobs>(async () => {
      attempt++;
      if (attempt === 1) throw new Error('chunk missing');
      return { start: async ({ id }) => id, steps: { plan: async () => [1] } };
    });
    await expect(jobs.start({ id: 'a' })).rejects.toThrow('chunk missing');
    await expect(jobs.start({ id: 'a' })).resolves.toBe('a');
    expect(attempt).toBe(2);
  });

  it("propagates a member's own rejection unchanged", async () => {
    const jobs = lazyAsync<Jobs>(async () => ({
      start: async () => {
        throw Object.assign(new Error('conflict'), { code: 'CONFLICT' });
      },
      steps: { plan: async () => [] },
    }));
    await expect(jobs.start({ id: 'a' })).rejects.toMatchObject({ message: 'conflict', code: 'CONFLICT' });
  });

  it('answers eager members directly, without loading', async () => {
    interface WithCursor {
      refresh(): Promise<number>;
      cursor(): string | null;
    }
    const source = counting<WithCursor>({ refresh: async () => 3, cursor: () => 'c1' });
    let loaded: WithCursor | undefined;
    const search = lazyAsync<WithCursor, Pick<WithCursor, 'cursor'>>(async () => (loaded = await source.load()), {
      cursor: () => loaded?.cursor() ?? null,
    });
    expect(search.cursor()).toBeNull();
    expect(source.loads()).toBe(0);
    await search.refresh();
    expect(search.cursor()).toBe('c1');
  });

  it('refuses, at compile time, a value with a synchronous member', () => {
    interface Mixed {
      start(): Promise<void>;
      plan(): number[];
      nested: { count(): number };
    }
    const paths: SyncMembers<Mixed> = '.plan';
    const nested: SyncMembers<Mixed> = '.nested.count';
    expect([paths, nested]).toEqual(['.plan', '.nested.count']);
    // @ts-expect-error Mixed has synchronous members: lazyAsync cannot stand in for it.
    const refused = lazyAsync<Mixed>(async () => ({
      start: async () => {},
      plan: () => [],
      nested: { count: () => 1 },
    }));
    expect(refused).toBeDefined();
  });
});

describe('onceAsync', () => {
  it('builds once for concurrent callers and again after a failure', async () => {
    let builds = 0;
    const value = onceAsync(async () => {
      builds++;
      if (builds === 1) throw new Error('first');
      return builds;
    });
    await expect(value()).rejects.toThrow('first');
    const [a, b] = await Promise.all([value(), value()]);
    expect([a, b, builds]).toEqual([2, 2, 2]);
  });
});
