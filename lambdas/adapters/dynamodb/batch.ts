// The table's batch calls with their limits: BatchWriteItem takes 25 requests, BatchGetItem 100
// keys; what the table leaves unprocessed is sent again after an exponential backoff with
// jitter (50 ms, 100 ms, 200 ms... at most MAX_ROUNDS sends), then it is an error.
import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const WRITE_BATCH = 25;
export const READ_BATCH = 100;
const MAX_ROUNDS = 8;

type Key = Record<string, unknown>;
export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Backoff before send `round` (1-based retry): 50·2^(round-1) ms, half of it jittered. */
export const backoffMs = (round: number, random: () => number = Math.random) => {
  const base = 50 * 2 ** (round - 1);
  return base / 2 + random() * (base / 2);
};

/**
 * Sends the requests in BatchWriteItem calls of 25, retrying unprocessed items; `lanes` calls at
 * once (their latencies overlap; the chunks are independent).
 */
export async function batchWrite(
  documents: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly WriteRequest[],
  lanes = 1,
): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += WRITE_BATCH) chunks.push(requests.slice(i, i + WRITE_BATCH));
  const writeChunk = async (first: WriteRequest[]) => {
    let chunk = first;
    for (let round = 0; chunk.length; round++) {
      if (round >= MAX_ROUNDS) throw new Error('The table kept refusing writes (unprocessed items)');
      if (round) await pause(backoffMs(round));
      const out = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: chunk as any } }));
      chunk = (out.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(lanes, chunks.length)) }, async () => {
      while (next < chunks.length) await writeChunk(chunks[next++]);
    }),
  );
}

/** Puts the items in BatchWriteItem calls of 25 (`lanes` at once). */
export const batchPut = (
  documents: DynamoDBDocumentClient,
  tableName: string,
  items: ReadonlyArray<Record<string, unknown>>,
  lanes = 1,
) =>
  batchWrite(
    documents,
    tableName,
    items.map((Item) => ({ PutRequest: { Item } })),
    lanes,
  );

/** The items of these keys (missing ones left out, any order) in BatchGetItem calls of 100, retrying unprocessed keys. */
export async function batchGet(
  documents: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  options: { consistent?: boolean; projection?: string; names?: Record<string, string> } = {},
): Promise<Array<Record<string, any>>> {
  const found: Array<Record<string, any>> = [];
  for (let i = 0; i < keys.length; i += READ_BATCH) {
    let chunk = keys.slice(i, i + READ_BATCH) as Key[];
    for (let round = 0; chunk.length; round++) {
      if (round >= MAX_ROUNDS) throw new Error('The table kept refusing reads (unprocessed keys)');
      if (round) await pause(backoffMs(round));
      const out = await documents.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: {
              Keys: chunk,
              ...(options.consistent ? { ConsistentRead: true } : {}),
              ...(options.projection
                ? { ProjectionExpression: options.projection, ExpressionAttributeNames: options.names }
                : {}),
            },
          },
        }),
      );
      found.push(...(out.Responses?.[tableName] ?? []));
      chunk = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
    }
  }
  return found;
}
