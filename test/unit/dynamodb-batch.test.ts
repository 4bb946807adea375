// The table's batch calls (lambdas/adapters/dynamodb/batch.ts) against a stand-in for the
// DynamoDB document client that answers like the real API: BatchWriteItem requests of at most 25
// items, BatchGetItem of at most 100 keys, unprocessed items and keys sent again (only those),
// and a table that keeps refusing is an error, not a loop.
import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { backoffMs, batchGet, batchPut, batchWrite } from '../../lambdas/adapters/dynamodb/batch';

type Sent = BatchWriteCommand | BatchGetCommand;

/** A document client whose answer to each command is computed by `answer` from its input. */
function fakeClient(answer: (command: Sent, call: number) => Record<string, unknown>) {
  const sent: Sent[] = [];
  const client = {
    async send(command: Sent) {
      sent.push(command);
      return answer(command, sent.length);
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
}

const item = (i: number) => ({ pk: `P#${i}`, sk: 'S', n: i });
const requestsOf = (command: Sent) => (command.input.RequestItems as Record<string, unknown[]>).t;

describe('batch calls', () => {
  it('writes 60 items in BatchWriteItem calls of 25, 25 and 10, in the wire format of the API', async () => {
    const { client, sent } = fakeClient(() => ({ UnprocessedItems: {} }));
    await batchPut(
      client,
      't',
      Array.from({ length: 60 }, (_, i) => item(i)),
    );
    expect(sent.every((c) => c instanceof BatchWriteCommand)).toBe(true);
    expect(sent.map((c) => requestsOf(c).length)).toEqual([25, 25, 10]);
    expect(requestsOf(sent[0])[0]).toEqual({ PutRequest: { Item: item(0) } });
    expect(sent.flatMap((c) => requestsOf(c).map((r: any) => r.PutRequest.Item.n))).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
  });

  it('sends again exactly the items the table left unprocessed, until none are left', async () => {
    const { client, sent } = fakeClient((command, call) => {
      const requests = requestsOf(command);
      // First answer: the last 5 unprocessed; second: the last 2 of those; then all done.
      if (call === 1) return { UnprocessedItems: { t: requests.slice(-5) } };
      if (call === 2) return { UnprocessedItems: { t: requests.slice(-2) } };
      return {};
    });
    await batchWrite(
      client,
      't',
      Array.from({ length: 20 }, (_, i) => ({ PutRequest: { Item: item(i) } })),
    );
    expect(sent.map((c) => requestsOf(c).map((r: any) => r.PutRequest.Item.n))).toEqual([
      Array.from({ length: 20 }, (_, i) => i),
      [15, 16, 17, 18, 19],
      [18, 19],
    ]);
  });

  it('writes chunks on several lanes at once and still sends every item once', async () => {
    let inFlight = 0;
    let peak = 0;
    const sent: number[] = [];
    const client = {
      async send(command: BatchWriteCommand) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        sent.push(...requestsOf(command).map((r: any) => r.PutRequest.Item.n));
        inFlight--;
        return {};
      },
    } as unknown as DynamoDBDocumentClient;
    await batchPut(
      client,
      't',
      Array.from({ length: 200 }, (_, i) => item(i)),
      4,
    );
    expect(peak).toBe(4);
    expect(sent.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('gives up with an error when the table keeps refusing (bounded retries)', async () => {
    const { client, sent } = fakeClient((command) => ({ UnprocessedItems: { t: requestsOf(command) } }));
    await expect(batchPut(client, 't', [item(1)])).rejects.toThrow(/kept refusing writes/);
    expect(sent).toHaveLength(8);
  }, 30_000);

  it('reads 150 keys in BatchGetItem calls of 100 and 50, retrying unprocessed keys, with the read options', async () => {
    const { client, sent } = fakeClient((command, call) => {
      const keys = (command.input.RequestItems as any).t.Keys as Array<{ pk: string }>;
      const found = (call === 1 ? keys.slice(0, 90) : keys).map((key) => ({ ...key, found: true }));
      return {
        Responses: { t: found },
        ...(call === 1 ? { UnprocessedKeys: { t: { Keys: keys.slice(90) } } } : {}),
      };
    });
    const keys = Array.from({ length: 150 }, (_, i) => ({ pk: `P#${i}`, sk: 'S' }));
    const items = await batchGet(client, 't', keys, { consistent: true, projection: '#u', names: { '#u': 'url' } });
    expect(items.map((i) => i.pk).sort()).toEqual(keys.map((k) => k.pk).sort());
    expect(sent.every((c) => c instanceof BatchGetCommand)).toBe(true);
    expect(sent.map((c) => (c.input.RequestItems as any).t.Keys.length)).toEqual([100, 10, 50]);
    expect((sent[0].input.RequestItems as any).t).toMatchObject({
      ConsistentRead: true,
      ProjectionExpression: '#u',
      ExpressionAttributeNames: { '#u': 'url' },
    });
  });

  it('backs off exponentially with jitter: round r waits between half and all of 50·2^(r-1) ms', () => {
    for (const round of [1, 2, 5]) {
      const base = 50 * 2 ** (round - 1);
      expect(backoffMs(round, () => 0)).toBe(base / 2);
      expect(backoffMs(round, () => 0.999999)).toBeCloseTo(base, 0);
    }
  });
});
