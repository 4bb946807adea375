// Per-URL extraction entries in the single table, beside their execution:
//
//   url entry   pk EXEC#<executionId>  sk URL#<index, 7 digits>
//               input, url, dup_of, state pending|done, outcome, result (JSON string) or
//               result_gz (gzip of it, for records above 32 KB: DynamoDB items stop at 400 KB)
//   batch claim pk EXEC#<executionId>  sk BATCH#<batch id>
//               written once (conditional put): results_gz = gzip of [[index, result], ...], or
//               no results when they would not fit one item (entries are then recorded one by one)
import { gzipSync, gunzipSync } from 'node:zlib';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { BatchClaim, ClaimingResultStore, UrlEntry } from '../../ports/extract-results';
import type { UrlResult } from '../../domain/extraction/types';
import { isConditionalFailure } from './keys';
import { SCHEMA, urlIndexPart } from './schema';

const INLINE_LIMIT = 32 * 1024;
/** Claims keep their results below this (DynamoDB items stop at 400 KB; room left for keys). */
const CLAIM_RESULTS_LIMIT = 350 * 1024;
const MAX_ENTRIES = 200_000;
const MAX_UNPROCESSED_ROUNDS = 8;

const pk = (executionId: string) => SCHEMA.urlEntry.pk({ executionId });
const sk = (index: number) => SCHEMA.urlEntry.sk({ index: urlIndexPart(index) });

function encodeResult(result: UrlResult): Record<string, unknown> {
  const json = JSON.stringify(result);
  return json.length > INLINE_LIMIT ? { result_gz: gzipSync(json) } : { result: json };
}

function decodeResult(item: Record<string, any>): UrlResult | null {
  if (typeof item.result === 'string') return JSON.parse(item.result);
  if (item.result_gz) return JSON.parse(gunzipSync(Buffer.from(item.result_gz)).toString('utf8'));
  return null;
}

const claimKey = (executionId: string, batchId: string) => SCHEMA.batchClaim.key({ executionId, batchId });

function claimFromItem(item: Record<string, any>): BatchClaim {
  if (!item.results_gz) return { batchId: item.batch_id, results: null };
  const pairs = JSON.parse(gunzipSync(Buffer.from(item.results_gz)).toString('utf8')) as Array<[number, UrlResult]>;
  return { batchId: item.batch_id, results: new Map(pairs) };
}

const fromItem = (item: Record<string, any>): UrlEntry => ({
  index: Number(item.index),
  input: item.input,
  url: item.url ?? null,
  dup_of: item.dup_of ?? null,
  state: item.state,
  result: decodeResult(item),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function dynamoExtractResultStore(documents: DynamoDBDocumentClient, tableName: string): ClaimingResultStore {
  /** Items by key (sk), consistent reads, unprocessed keys retried. */
  async function readKeys(executionId: string, sks: string[]): Promise<Array<Record<string, any>>> {
    const unique = [...new Set(sks)];
    const found: Array<Record<string, any>> = [];
    for (let i = 0; i < unique.length; i += 100) {
      let keys: Array<Record<string, string>> = unique
        .slice(i, i + 100)
        .map((key) => ({ pk: pk(executionId), sk: key }));
      for (let round = 0; keys.length; round++) {
        if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error('The table kept refusing reads (unprocessed keys)');
        if (round) await pause(50 * 2 ** round);
        const out = await documents.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
        );
        found.push(...(out.Responses?.[tableName] ?? []));
        keys = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof keys;
      }
    }
    return found;
  }

  async function queryFrom(executionId: string, from: number, limit: number): Promise<UrlEntry[]> {
    const entries: UrlEntry[] = [];
    let start: Record<string, any> | undefined;
    for (let page = 0; page < 10_000 && entries.length < limit; page++) {
      const out = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk(executionId), ':from': sk(from), ':to': sk(9_999_999) },
          ConsistentRead: true,
          Limit: Math.min(limit - entries.length, 1000),
          ExclusiveStartKey: start,
        }),
      );
      entries.push(...(out.Items ?? []).map(fromItem));
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return entries;
  }

  return {
    async putEntries(executionId, entries) {
      for (let i = 0; i < entries.length; i += 25) {
        let requests = entries.slice(i, i + 25).map((entry) => ({
          PutRequest: {
            Item: {
              pk: pk(executionId),
              sk: sk(entry.index),
              entity: 'url-entry',
              index: entry.index,
              input: entry.input,
              url: entry.url,
              dup_of: entry.dup_of,
              state: entry.state,
              ...(entry.result ? { outcome: entry.result.outcome, ...encodeResult(entry.result) } : {}),
            },
          },
        }));
        for (let round = 0; requests.length; round++) {
          if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error('The table kept refusing writes (unprocessed items)');
          if (round) await pause(50 * 2 ** round);
          const out = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
          requests = (out.UnprocessedItems?.[tableName] ?? []) as typeof requests;
        }
      }
    },

    async record(executionId, index, result) {
      const encoded = encodeResult(result);
      const attribute = Object.keys(encoded)[0];
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: pk(executionId), sk: sk(index) },
            UpdateExpression: 'SET #state = :done, outcome = :outcome, #payload = :payload',
            ConditionExpression: '#state = :pending',
            ExpressionAttributeNames: { '#state': 'state', '#payload': attribute },
            ExpressionAttributeValues: {
              ':done': 'done',
              ':pending': 'pending',
              ':outcome': result.outcome,
              ':payload': encoded[attribute],
            },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw error;
      }
    },

    async get(executionId, indices) {
      const items = await readKeys(executionId, indices.map(sk));
      return items.map(fromItem).sort((a, b) => a.index - b.index);
    },

    async readBatch(executionId, batch) {
      const claimSk = claimKey(executionId, batch.id).sk;
      const items = await readKeys(executionId, [claimSk, ...batch.indices.map(sk)]);
      const claimItem = items.find((item) => item.sk === claimSk);
      const entries = items
        .filter((item) => item.sk !== claimSk)
        .map(fromItem)
        .sort((a, b) => a.index - b.index);
      return { entries, claim: claimItem ? claimFromItem(claimItem) : null };
    },

    async claimBatch(executionId, batchId, results) {
      const gz = gzipSync(JSON.stringify(results.map(({ index, result }) => [index, result])));
      const fits = gz.length <= CLAIM_RESULTS_LIMIT;
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...claimKey(executionId, batchId),
              entity: 'batch-claim',
              batch_id: batchId,
              ...(fits ? { results_gz: gz } : {}),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return {
          won: true,
          claim: { batchId, results: fits ? new Map(results.map(({ index, result }) => [index, result])) : null },
        };
      } catch (error) {
        if (!isConditionalFailure(error)) throw error;
      }
      const out = await documents.send(
        new GetCommand({ TableName: tableName, Key: claimKey(executionId, batchId), ConsistentRead: true }),
      );
      if (!out.Item) throw new Error(`Batch claim ${batchId} of ${executionId} vanished`);
      return { won: false, claim: claimFromItem(out.Item) };
    },

    async claims(executionId) {
      const claims = new Map<string, BatchClaim>();
      let start: Record<string, any> | undefined;
      for (let page = 0; page < 10_000; page++) {
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :batch)',
            ExpressionAttributeValues: { ':pk': pk(executionId), ':batch': SCHEMA.batchClaim.skPrefix },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) {
          const claim = claimFromItem(item);
          claims.set(claim.batchId, claim);
        }
        start = out.LastEvaluatedKey;
        if (!start) break;
      }
      return claims;
    },

    range: (executionId, from, limit) => queryFrom(executionId, Math.max(0, from), limit),

    all: (executionId) => queryFrom(executionId, 0, MAX_ENTRIES),
  };
}
