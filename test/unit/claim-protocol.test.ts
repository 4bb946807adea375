// The batch claim protocol over in-memory fakes: first writer wins, every later delivery uses the
// winner's results, and every delivery finishes by the one commit, which counts a batch once on its
// execution whatever the order of deliveries.
import { describe, expect, it } from 'vitest';
import { createClaimProtocol, decodeResult, encodeResult } from '../../lambdas/domain/extract-jobs/claim-protocol';
import { createExecutions } from '../../lambdas/domain/executions/service';
import type { UrlEntry } from '../../lambdas/ports/extract-results';
import type { UrlResult } from '../../lambdas/domain/extraction/types';
import { fakeClock, memoryExecutionStore, recordingWorkflows } from '../fakes/executions';
import { failedResult, memoryResultStore } from '../fakes/extract-results';

const success = (url: string, title = 'T'): UrlResult => ({
  url,
  product: { title } as unknown as UrlResult['product'],
  success: true,
  outcome: 'success',
  retry: false,
  message: '',
});

async function setup(urls: string[]) {
  const store = memoryExecutionStore();
  const executions = createExecutions({ store, workflows: recordingWorkflows(), now: fakeClock().now });
  const results = memoryResultStore();
  const protocol = createClaimProtocol({ executions, results, writeConcurrency: 4 });
  const execution = await executions.create({
    org: 'o',
    kind: 'extract-urls',
    deadlineSeconds: 60,
    input: { requested: urls.length },
  });
  const entries: UrlEntry[] = urls.map((url, index) => ({
    index,
    input: url,
    url,
    dup_of: null,
    state: 'pending',
    result: null,
  }));
  await results.putEntries(execution.id, entries);
  const batch = { id: 'b0', indices: entries.map((e) => e.index) };
  const counters = () => store.items.get(execution.id)!.counters;
  return { executions, results, protocol, execution, entries, batch, counters };
}

describe('encodeResult with the product serialized apart', () => {
  it('keeps the product out of the result JSON and decodes to the same result', () => {
    const product = {
      title: 'Caf\u00e9 "quoted" \\ </script>',
      product: { nested: 'a key named product inside the product' },
      tags: ['\u2028', '\ud83d\ude00'],
    } as unknown as UrlResult['product'];
    const results: UrlResult[] = [
      { ...success('https://a.example/p'), product },
      { ...success('https://a.example/p'), product, final_url: 'https://a.example/landing' },
    ];
    for (const result of results) {
      const serialized = { json: JSON.stringify(product) };
      const encoded = encodeResult(3, result, serialized);
      expect(encoded).toMatchObject({ index: 3, outcome: 'success', product: serialized });
      expect(JSON.parse(encoded.json).product).toBeNull();
      // The same keys in the same order as the result serialized whole.
      expect(JSON.stringify(decodeResult(encoded))).toBe(JSON.stringify(result));
    }
  });

  it('serializes whole a result without a product, or given none', () => {
    const failed = failedResult('https://a.example/2');
    expect(encodeResult(0, failed, { json: '{"title":"ignored"}' })).toEqual({
      index: 0,
      outcome: failed.outcome,
      json: JSON.stringify(failed),
    });
    const whole = encodeResult(1, success('https://a.example/1'));
    expect(whole.product).toBeUndefined();
    expect(decodeResult(whole)).toEqual(success('https://a.example/1'));
  });
});

describe('claim protocol', () => {
  it('stores a batch once: the second delivery gets the first writer’s results', async () => {
    const { protocol, results, execution, batch } = await setup(['https://a.example/1', 'https://a.example/2']);
    const first = await protocol.claim(execution.id, batch, [
      encodeResult(0, success('https://a.example/1', 'first')),
      encodeResult(1, failedResult('https://a.example/2')),
    ]);
    const second = await protocol.claim(execution.id, batch, [
      encodeResult(0, success('https://a.example/1', 'second')),
      encodeResult(1, success('https://a.example/2')),
    ]);
    expect(first.won).toBe(true);
    expect(second.won).toBe(false);
    expect(second.claim.results!.get(0)!.outcome).toBe('success');
    expect(second.claim.results!.get(1)!.outcome).toBe('other');
    const stored = await results.get(execution.id, batch.indices);
    expect((stored[0].result!.product as unknown as { title: string }).title).toBe('first');
    expect(stored[1].result!.outcome).toBe('other');
    expect(results.writes.claim).toBe(1);
  });

  it('commits a claim: its results make the pending entries done, and the batch counts exactly once', async () => {
    const { protocol, results, execution, entries, batch, counters } = await setup([
      'https://a.example/1',
      'https://a.example/2',
      'https://a.example/3',
    ]);
    const { claim } = await protocol.claim(execution.id, batch, [
      encodeResult(0, success('https://a.example/1')),
      encodeResult(1, success('https://a.example/2')),
      encodeResult(2, failedResult('https://a.example/3')),
    ]);
    const commit = { claim, extracted: [], perSuccess: 2, final: false };
    expect(await protocol.commit(execution.id, batch, { ...commit, entries })).toEqual({ counted: true, recorded: 0 });
    // A duplicate delivery commits the same claim again: nothing copied twice, nothing counted twice.
    const putsBefore = results.writes.put;
    const stored = await results.get(execution.id, batch.indices);
    expect(await protocol.commit(execution.id, batch, { ...commit, entries: stored })).toEqual({
      counted: false,
      recorded: 0,
    });
    expect(results.writes.put).toBe(putsBefore);
    expect(counters()).toMatchObject({ success: 2, other: 1, credits: 4 });
    expect((await results.all(execution.id)).every((e) => e.state === 'done')).toBe(true);
  });

  it('counts a batch recorded entry by entry only when every entry is done, unless it is final', async () => {
    const { protocol, results, execution, entries, batch, counters } = await setup([
      'https://a.example/1',
      'https://a.example/2',
    ]);
    const onlyFirst = [{ group: [entries[0]], results: [encodeResult(0, success('https://a.example/1'))] }];
    const first = { claim: null, perSuccess: 1 };
    expect(
      await protocol.commit(execution.id, batch, { ...first, entries, extracted: onlyFirst, final: false }),
    ).toEqual({ counted: false, recorded: 1 });
    expect(counters()).toEqual({});
    // Stopped (cancel): the batch's final word counts what is done, the rest stays pending.
    const now = await results.get(execution.id, batch.indices);
    expect(await protocol.commit(execution.id, batch, { ...first, entries: now, extracted: [], final: true })).toEqual({
      counted: true,
      recorded: 0,
    });
    expect(counters()).toMatchObject({ success: 1, other: 0 });
  });

  it('counts from what is stored when a concurrent delivery recorded an entry first', async () => {
    const { protocol, results, execution, entries, batch, counters } = await setup([
      'https://a.example/1',
      'https://a.example/2',
    ]);
    // Another delivery recorded index 1 (a failure) between this delivery's read and its writes.
    await results.record(execution.id, 1, failedResult('https://a.example/2'));
    const extracted = entries.map((entry) => ({
      group: [entry],
      results: [encodeResult(entry.index, success(entry.input))],
    }));
    // Lost a race on index 1: the batch is counted from what is stored.
    expect(
      await protocol.commit(execution.id, batch, { entries, claim: null, extracted, perSuccess: 1, final: false }),
    ).toEqual({ counted: true, recorded: 1 });
    expect(counters()).toMatchObject({ success: 1, other: 1, credits: 1 });
    expect((await results.get(execution.id, [1]))[0].result!.outcome).toBe('other');
  });

  it('charges a duplicate URL once while every index gets its own result', async () => {
    const { protocol, results, execution, batch, counters } = await setup([
      'https://a.example/1',
      'https://a.example/1',
    ]);
    const entries: UrlEntry[] = [
      {
        index: 0,
        input: 'https://a.example/1',
        url: 'https://a.example/1',
        dup_of: null,
        state: 'pending',
        result: null,
      },
      { index: 1, input: 'https://a.example/1', url: 'https://a.example/1', dup_of: 0, state: 'pending', result: null },
    ];
    await results.putEntries(execution.id, entries);
    const { claim } = await protocol.claim(
      execution.id,
      batch,
      entries.map((e) => encodeResult(e.index, success(e.input))),
    );
    await protocol.commit(execution.id, batch, { entries, claim, extracted: [], perSuccess: 3, final: false });
    expect(counters()).toMatchObject({ success: 2, credits: 3 });
  });
});
