// Per-URL extraction entries in the single table, beside their execution:
//
//   url entry   pk EXEC#<executionId>  sk URL#<index, 7 digits>
//               input, url, dup_of, state pending|done, outcome, result (JSON string) or
//               result_gz (gzip of it, level 1, above 1 KB: binary is written and parsed far
//               faster than a long escaped JSON string, and DynamoDB items stop at 400 KB)
//   batch claim pk EXEC#<executionId>  sk BATCH#<batch id>
//               written once (conditional put): results_gz = gzip of [[index, result], ...], or
//               no results when they would not fit one item (entries are then recorded one by one);
//               products = JSON of the products the winner stored and which it found new
//
// A worker reads its batch (the execution item, the claim and every entry) in one BatchGet.
import { gzipSync, gunzipSync } from 'node:zlib';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { BatchClaim, ClaimingResultStore, UrlEntry, UrlEntryOutline } from '../../ports/extract-results';
import type { ClaimedProduct } from '../../ports/products';
import type { UrlResult } from '../../domain/extraction/types';
import { isConditionalFailure } from './keys';
import { SCHEMA, urlIndexPart } from './schema';
import { batchGet, batchPut } from './batch';
import { executionFromItem } from './executions';

/** Results longer than this are stored gzipped (level 1: fast, most of level 6's ratio on JSON). */
const INLINE_LIMIT = 1024;
const RESULT_GZIP = { level: 1 };
/** Claims keep their results below this (DynamoDB items stop at 400 KB; room left for keys). */
const CLAIM_RESULTS_LIMIT = 350 * 1024;
const MAX_ENTRIES = 200_000;
/** BatchWriteItem calls at once when writing entries (an execution's 1000 pending entries at start). */
const WRITE_LANES = 4;
/** Claims are written once and read rarely: the fastest gzip level (about 3x level 6's speed, a little larger). */
const CLAIM_GZIP = { level: 1 };

const pk = (executionId: string) => SCHEMA.urlEntry.pk({ executionId });
const sk = (index: number) => SCHEMA.urlEntry.sk({ index: urlIndexPart(index) });

function encodeResult(result: UrlResult): Record<string, unknown> {
  const json = JSON.stringify(result);
  return json.length > INLINE_LIMIT ? { result_gz: gzipSync(json, RESULT_GZIP) } : { result: json };
}

function decodeResult(item: Record<string, any>): UrlResult | null {
  if (typeof item.result === 'string') return JSON.parse(item.result);
  if (item.result_gz) return JSON.parse(gunzipSync(Buffer.from(item.result_gz)).toString('utf8'));
  return null;
}

const claimKey = (executionId: string, batchId: string) => SCHEMA.batchClaim.key({ executionId, batchId });

function claimFromItem(item: Record<string, any>): BatchClaim {
  const products: ClaimedProduct[] = typeof item.products === 'string' ? JSON.parse(item.products) : [];
  if (!item.results_gz) return { batchId: item.batch_id, results: null, products };
  const pairs = JSON.parse(gunzipSync(Buffer.from(item.results_gz)).toString('utf8')) as Array<[number, UrlResult]>;
  return { batchId: item.batch_id, results: new Map(pairs), products };
}

const fromItem = (item: Record<string, any>): UrlEntry => ({
  index: Number(item.index),
  input: item.input,
  url: item.url ?? null,
  dup_of: item.dup_of ?? null,
  state: item.state,
  result: decodeResult(item),
});

export function dynamoExtractResultStore(documents: DynamoDBDocumentClient, tableName: string): ClaimingResultStore {
  /** Items by key (sk), consistent reads, unprocessed keys retried. */
  const readKeys = (executionId: string, sks: string[]) =>
    batchGet(
      documents,
      tableName,
      [...new Set(sks)].map((key) => ({ pk: pk(executionId), sk: key })),
      { consistent: true },
    );

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
      await batchPut(
        documents,
        tableName,
        entries.map((entry) => ({
          pk: pk(executionId),
          sk: sk(entry.index),
          entity: 'url-entry',
          index: entry.index,
          input: entry.input,
          url: entry.url,
          dup_of: entry.dup_of,
          state: entry.state,
          ...(entry.result ? { outcome: entry.result.outcome, ...encodeResult(entry.result) } : {}),
        })),
        WRITE_LANES,
      );
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

    async readBatch(executionId, batch, options = {}) {
      const claimSk = claimKey(executionId, batch.id).sk;
      const executionSk = SCHEMA.execution.key({ id: executionId }).sk;
      // The execution item shares the entries' partition (EXEC#<id>): one BatchGet reads all three.
      const items = await readKeys(executionId, [
        ...(options.withExecution ? [executionSk] : []),
        claimSk,
        ...batch.indices.map(sk),
      ]);
      let claimItem: Record<string, any> | undefined;
      let executionItem: Record<string, any> | undefined;
      const entries: UrlEntry[] = [];
      for (const item of items) {
        if (item.sk === claimSk) claimItem = item;
        else if (options.withExecution && item.sk === executionSk) executionItem = item;
        else entries.push(fromItem(item));
      }
      entries.sort((a, b) => a.index - b.index);
      return {
        entries,
        claim: claimItem ? claimFromItem(claimItem) : null,
        ...(options.withExecution ? { execution: executionItem ? executionFromItem(executionItem) : null } : {}),
      };
    },

    async claimBatch(executionId, batchId, results, products = []) {
      const gz = gzipSync(JSON.stringify(results.map(({ index, result }) => [index, result])), CLAIM_GZIP);
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
              ...(products.length ? { products: JSON.stringify(products) } : {}),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return {
          won: true,
          claim: {
            batchId,
            results: fits ? new Map(results.map(({ index, result }) => [index, result])) : null,
            products: [...products],
          },
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

    async outlines(executionId) {
      const outlines: UrlEntryOutline[] = [];
      let start: Record<string, any> | undefined;
      for (let page = 0; page < 10_000; page++) {
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk(executionId), ':from': sk(0), ':to': sk(9_999_999) },
            ProjectionExpression: '#index, #input, #url, dup_of, #state, outcome',
            ExpressionAttributeNames: { '#index': 'index', '#input': 'input', '#url': 'url', '#state': 'state' },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? [])
          outlines.push({
            index: Number(item.index),
            input: item.input,
            url: item.url ?? null,
            dup_of: item.dup_of ?? null,
            state: item.state,
            result: item.state === 'done' && item.outcome ? { outcome: item.outcome } : null,
          });
        start = out.LastEvaluatedKey;
        if (!start || outlines.length >= MAX_ENTRIES) break;
      }
      return outlines;
    },

    range: (executionId, from, limit) => queryFrom(executionId, Math.max(0, from), limit),

    all: (executionId) => queryFrom(executionId, 0, MAX_ENTRIES),
  };
}
