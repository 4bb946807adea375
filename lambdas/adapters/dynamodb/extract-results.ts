// Per-URL extraction entries in the single table, beside their execution:
//
//   url entry   pk EXEC#<executionId>  sk URL#<index, 7 digits>
//               input, url, dup_of, state pending|done, outcome, result (JSON string) or
//               result_gz (gzip of it, level 1, above 1 KB: binary is written and parsed far
//               faster than a long escaped JSON string, and DynamoDB items stop at 400 KB)
//   url plan    pk EXEC#<executionId>  sk PLAN#<chunk, 5 digits>
//               entries_gz = gzip of [[index, input, url, dup_of], ...] for PLAN_CHUNK indices: the
//               pending entries as planned at start, in a few items instead of one item each
//               (1000 URLs: 10 item writes in one BatchWrite, not 1000). An entry's own item, once
//               written (done, or recorded), takes precedence; readers merge both.
//   batch claim pk EXEC#<executionId>  sk BATCH#<batch id>
//               written once (conditional put): results_gz = gzip of [[index, result], ...] and
//               outcomes = JSON of [[index, outcome], ...], or neither when the results would not
//               fit one item (entries are then recorded one by one); products = JSON of the
//               products the winner stored and which it found new. A row [index, result, part]
//               has its product in product_parts[part] (and null in the result): the product as
//               its record stores it (JSON, or gzip of it above 1 KB), the same bytes, so a
//               product is serialized and compressed once for both.
//
// A claim with results is where its entries are done: an entry still pending in its plan (or its
// own pending item) is done with the claim's result for it, and no per-URL item is written (1000
// URLs: 40 BatchWriteItem calls and 1000 items fewer). An entry's own done item wins over a
// claim (the two never hold the same index: entries are recorded one by one only where no claim
// holds their result). Entry items written before this (state done, `claim` naming the batch,
// no result) are still read: their result comes from that claim.
//
// A worker reads its batch (the execution item, the claim and every entry) in one BatchGet;
// outlines (Prepare, Finalize) are one Query over the claims' outcomes, the plan and the entries.
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
import type { Outcome, UrlResult } from '../../domain/extraction/types';
import { isConditionalFailure } from './keys';
import { SCHEMA, planChunkPart, urlIndexPart } from './schema';
import { batchGet, batchPut } from './batch';
import { executionFromItem } from './executions';
import { packProduct, unpackProduct } from './products';

/** Results longer than this are stored gzipped (level 1: fast, most of level 6's ratio on JSON). */
const INLINE_LIMIT = 1024;
const RESULT_GZIP = { level: 1 };
/** Claims keep their results below this (DynamoDB items stop at 400 KB; room left for keys). */
const CLAIM_RESULTS_LIMIT = 350 * 1024;
const MAX_ENTRIES = 200_000;
/** The largest entry index the keys hold (seven digits, schema.ts urlIndexPart). */
const LAST_INDEX = 9_999_999;
/** BatchWriteItem calls at once when writing entries (an execution's 1000 pending entries at start). */
const WRITE_LANES = 4;
/** Claims are written once and read rarely: the fastest gzip level (about 3x level 6's speed, a little larger). */
const CLAIM_GZIP = { level: 1 };
/** What DynamoDB counts for one element of a list beside its bytes. */
const PART_OVERHEAD = 4;

const pk = (executionId: string) => SCHEMA.urlEntry.pk({ executionId });
const sk = (index: number) => SCHEMA.urlEntry.sk({ index: urlIndexPart(index) });
/** Planned entries per plan item: a 50-URL batch reads one or two of them. */
export const PLAN_CHUNK = 100;
/** A plan item's gzip must fit an item (400 KB) with room left; a chunk over it is written entry by entry. */
const PLAN_ITEM_LIMIT = 350 * 1024;
const chunkOf = (index: number) => Math.floor(index / PLAN_CHUNK);
const planSk = (chunk: number) => SCHEMA.urlPlan.sk({ chunk: planChunkPart(chunk) });
const PLAN_PREFIX = SCHEMA.urlPlan.skPrefix;
const CLAIM_PREFIX = SCHEMA.batchClaim.skPrefix;
const hasResult = (item: Record<string, any>) => typeof item.result === 'string' || item.result_gz !== undefined;
const ENTRY_PREFIX = SCHEMA.urlEntry.skPrefix;
/** The claims' outline attributes (no results): which indices a claim makes done, with which outcome. */
const CLAIM_OUTLINE = 'sk, batch_id, #outcomes';

type PlannedEntry = [index: number, input: string, url: string | null, dupOf: number | null];

/** The pending entries a plan item holds. */
function plannedEntries(item: Record<string, any>): UrlEntry[] {
  const rows = JSON.parse(gunzipSync(Buffer.from(item.entries_gz)).toString('utf8')) as PlannedEntry[];
  return rows.map(([index, input, url, dup_of]) => ({ index, input, url, dup_of, state: 'pending', result: null }));
}

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

/** index -> [batch id, outcome] for every index a claim among `items` holds a result for. */
function claimedOutcomes(items: ReadonlyArray<Record<string, any>>): Map<number, [string, Outcome]> {
  const claimed = new Map<number, [string, Outcome]>();
  for (const item of items) {
    if (!String(item.sk).startsWith(CLAIM_PREFIX)) continue;
    // Claims written before outcomes were stored have entry items of their own (they refer to the claim).
    const pairs: Array<[number, Outcome]> = typeof item.outcomes === 'string' ? JSON.parse(item.outcomes) : [];
    for (const [index, outcome] of pairs) claimed.set(index, [item.batch_id, outcome]);
  }
  return claimed;
}

/** A stored claim with its results themselves (readers need them; the domain needs their outcomes). */
type StoredClaim = Omit<BatchClaim, 'results'> & { results: Map<number, UrlResult> | null };

function claimFromItem(item: Record<string, any>): StoredClaim {
  const products: ClaimedProduct[] = typeof item.products === 'string' ? JSON.parse(item.products) : [];
  if (!item.results_gz) return { batchId: item.batch_id, results: null, products };
  const rows = JSON.parse(gunzipSync(item.results_gz).toString('utf8')) as ClaimRow[];
  const parts: Array<string | Uint8Array> = item.product_parts ?? [];
  const results = new Map<number, UrlResult>();
  for (const [index, result, part] of rows) {
    if (part !== undefined) result.product = JSON.parse(unpackProduct(parts[part]));
    results.set(index, result);
  }
  return { batchId: item.batch_id, results, products };
}

/** A claim's row: an index, its result, and where its product is stored apart (product_parts), if it is. */
type ClaimRow = [index: number, result: UrlResult, part?: number];

/** An entry item's fields but its result, over its planned entry where recording wrote none. */
const entryFields = (item: Record<string, any>, planned?: UrlEntry) => ({
  index: Number(item.index),
  input: item.input ?? planned?.input ?? '',
  url: item.url ?? planned?.url ?? null,
  dup_of: item.dup_of ?? planned?.dup_of ?? null,
  state: item.state,
});

/** An entry's own item, over its planned entry when the item holds only what recording wrote. */
const fromItem = (item: Record<string, any>, planned?: UrlEntry): UrlEntry => ({
  ...entryFields(item, planned),
  result: decodeResult(item),
});

/**
 * Entries from plan items and entry items (any order, other items ignored): an entry's own item
 * wins over its plan; in index order. `read` turns an entry item into the entry (its planned
 * entry given when there is one).
 */
function mergeItems<E extends { index: number }>(
  items: ReadonlyArray<Record<string, any>>,
  read: (item: Record<string, any>, planned?: UrlEntry) => E,
  wanted?: ReadonlySet<number>,
): Array<E | UrlEntry> {
  const planned = new Map<number, UrlEntry>();
  for (const item of items)
    if (String(item.sk).startsWith(PLAN_PREFIX))
      for (const entry of plannedEntries(item)) if (!wanted || wanted.has(entry.index)) planned.set(entry.index, entry);
  const merged = new Map<number, E | UrlEntry>(planned);
  for (const item of items) {
    if (!String(item.sk).startsWith(ENTRY_PREFIX)) continue;
    const index = Number(item.index ?? String(item.sk).slice(ENTRY_PREFIX.length));
    if (wanted && !wanted.has(index)) continue;
    merged.set(index, read({ ...item, index }, planned.get(index)));
  }
  return [...merged.values()].sort((a, b) => a.index - b.index);
}

const mergeEntries = (items: ReadonlyArray<Record<string, any>>, wanted?: ReadonlySet<number>): UrlEntry[] =>
  mergeItems(items, fromItem, wanted);

/** An entry item read without its result (projected): its outcome only. */
const outlineOf = (item: Record<string, any>, planned?: UrlEntry): UrlEntryOutline => ({
  ...entryFields(item, planned),
  result: item.state === 'done' && item.outcome ? { outcome: item.outcome } : null,
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

  /**
   * Entries from these items (mergeEntries) done by their batch's claim: a pending entry that a
   * claim among the items holds a result for (its outline is enough to tell), and an older entry
   * item that refers to its claim, take their results from the claim: from `items` when the whole
   * claim is among them, else read.
   */
  async function entriesOf(
    executionId: string,
    items: ReadonlyArray<Record<string, any>>,
    wanted?: ReadonlySet<number>,
  ): Promise<UrlEntry[]> {
    const entries = mergeEntries(items, wanted);
    const refs = new Map<number, string>();
    for (const item of items)
      if (String(item.sk).startsWith(ENTRY_PREFIX) && typeof item.claim === 'string' && !hasResult(item))
        refs.set(Number(item.index), item.claim);
    const claimed = claimedOutcomes(items);
    for (const entry of entries) {
      const holder = entry.state === 'pending' ? claimed.get(entry.index) : undefined;
      if (holder) refs.set(entry.index, holder[0]);
    }
    if (!refs.size) return entries;
    const claims = new Map<string, StoredClaim>();
    for (const item of items)
      if (String(item.sk).startsWith(CLAIM_PREFIX) && item.results_gz !== undefined)
        claims.set(item.batch_id, claimFromItem(item));
    const missing = [...new Set(refs.values())].filter((id) => !claims.has(id));
    if (missing.length)
      for (const item of await readKeys(
        executionId,
        missing.map((id) => claimKey(executionId, id).sk),
      ))
        claims.set(item.batch_id, claimFromItem(item));
    return entries.map((entry) => {
      const ref = refs.get(entry.index);
      if (ref === undefined || entry.result) return entry;
      const result = claims.get(ref)?.results?.get(entry.index);
      if (!result)
        throw new Error(`Entry ${entry.index} of ${executionId} refers to claim ${ref}, which holds no result for it`);
      return { ...entry, state: 'done', result };
    });
  }

  /** The outlines of every claim of the execution (which indices each makes done), paged. */
  const claimOutlines = (executionId: string) =>
    queryBetween(executionId, CLAIM_PREFIX, `${CLAIM_PREFIX}\uffff`, {
      projection: CLAIM_OUTLINE,
      names: { '#outcomes': 'outcomes' },
    });

  /** The keys that hold these indices: their entry items and the plan items of their chunks. */
  const keysOf = (indices: readonly number[]) => [
    ...new Set(indices.map((index) => planSk(chunkOf(index)))),
    ...indices.map(sk),
  ];

  /** Every item of the execution with sk between `from` and `to` (consistent, paged). */
  async function queryBetween(
    executionId: string,
    from: string,
    to: string,
    options: { limit?: number; projection?: string; names?: Record<string, string> } = {},
  ): Promise<Array<Record<string, any>>> {
    const items: Array<Record<string, any>> = [];
    const limit = options.limit ?? MAX_ENTRIES;
    let start: Record<string, any> | undefined;
    for (let page = 0; page < 10_000 && items.length < limit; page++) {
      const out = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk(executionId), ':from': from, ':to': to },
          ...(options.projection
            ? { ProjectionExpression: options.projection, ExpressionAttributeNames: options.names }
            : {}),
          ConsistentRead: true,
          Limit: Math.min(limit - items.length, 1000),
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return items;
  }

  /**
   * Entries with index >= from, at most `limit`, in index order: the plan items that cover
   * [from, from + limit) and the entry items from `from` on, read at once and merged.
   */
  async function readRange(executionId: string, from: number, limit: number): Promise<UrlEntry[]> {
    // Past the last index the keys can hold (a far page): nothing, rather than a BETWEEN DynamoDB refuses.
    if (from > LAST_INDEX) return [];
    const lastChunk = chunkOf(Math.min(from + limit - 1, LAST_INDEX));
    const [plans, items, claims] = await Promise.all([
      queryBetween(executionId, planSk(chunkOf(from)), planSk(lastChunk)),
      queryBetween(executionId, sk(from), sk(LAST_INDEX), { limit }),
      claimOutlines(executionId),
    ]);
    const inRange = mergeEntries([...plans, ...items])
      .filter((entry) => entry.index >= from)
      .slice(0, limit);
    const wanted = new Set(inRange.map((entry) => entry.index));
    return entriesOf(executionId, [...claims, ...plans, ...items], wanted);
  }

  /** A per-URL item: its position, input and state, plus what the caller adds (result or claim). */
  const entryItem = (executionId: string, entry: UrlEntry, rest: Record<string, unknown>) => ({
    pk: pk(executionId),
    sk: sk(entry.index),
    entity: 'url-entry',
    index: entry.index,
    input: entry.input,
    url: entry.url,
    dup_of: entry.dup_of,
    ...rest,
  });

  async function putEntries(executionId: string, entries: UrlEntry[]): Promise<void> {
    await batchPut(
      documents,
      tableName,
      entries.map((entry) =>
        entryItem(executionId, entry, {
          state: entry.state,
          ...(entry.result ? { outcome: entry.result.outcome, ...encodeResult(entry.result) } : {}),
        }),
      ),
      WRITE_LANES,
    );
  }

  return {
    putEntries,

    async putPlan(executionId, entries) {
      // Pending entries go into plan items by chunk; done ones (malformed input) get items of
      // their own, as does a chunk too large for one item.
      const chunks = new Map<number, UrlEntry[]>();
      const own: UrlEntry[] = [];
      for (const entry of entries) {
        if (entry.state !== 'pending') {
          own.push(entry);
          continue;
        }
        const chunk = chunks.get(chunkOf(entry.index)) ?? [];
        chunk.push(entry);
        chunks.set(chunkOf(entry.index), chunk);
      }
      const planItems: Array<Record<string, unknown>> = [];
      for (const [chunk, list] of chunks) {
        const rows: PlannedEntry[] = list.map((e) => [e.index, e.input, e.url, e.dup_of]);
        const gz = gzipSync(JSON.stringify(rows), RESULT_GZIP);
        if (gz.length > PLAN_ITEM_LIMIT) {
          own.push(...list);
          continue;
        }
        planItems.push({
          pk: pk(executionId),
          sk: planSk(chunk),
          entity: 'url-plan',
          first: list[0].index,
          count: list.length,
          entries_gz: gz,
        });
      }
      await Promise.all([
        planItems.length ? batchPut(documents, tableName, planItems, WRITE_LANES) : undefined,
        own.length ? putEntries(executionId, own) : undefined,
      ]);
    },

    async record(executionId, index, result) {
      const encoded = encodeResult(result);
      const attribute = Object.keys(encoded)[0];
      try {
        // A planned entry has no item of its own until it is recorded: missing counts as pending.
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: pk(executionId), sk: sk(index) },
            UpdateExpression:
              'SET #state = :done, outcome = :outcome, #payload = :payload, #index = :index, entity = if_not_exists(entity, :entity)',
            ConditionExpression: 'attribute_not_exists(pk) OR #state = :pending',
            ExpressionAttributeNames: { '#state': 'state', '#payload': attribute, '#index': 'index' },
            ExpressionAttributeValues: {
              ':done': 'done',
              ':pending': 'pending',
              ':outcome': result.outcome,
              ':payload': encoded[attribute],
              ':index': index,
              ':entity': 'url-entry',
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
      const [items, claims] = await Promise.all([readKeys(executionId, keysOf(indices)), claimOutlines(executionId)]);
      return entriesOf(executionId, [...claims, ...items], new Set(indices));
    },

    async readBatch(executionId, batch, options = {}) {
      const claimSk = claimKey(executionId, batch.id).sk;
      const executionSk = SCHEMA.execution.key({ id: executionId }).sk;
      // The execution item shares the entries' partition (EXEC#<id>): one BatchGet reads the
      // execution, the claim and the batch's plan items. Only this batch's claim can hold results
      // for its entries. An entry has an item of its own only once the claim exists (entries are
      // recorded one by one only after a claim without their results: processBatch, abandonBatch
      // and Finalize all claim first) or when its chunk has no plan item (planned one by one):
      // only then are the entries' own items read, in a second BatchGet. A first delivery reads
      // 3 or 4 keys instead of 50 more that do not exist.
      const first = await readKeys(executionId, [
        ...(options.withExecution ? [executionSk] : []),
        claimSk,
        ...new Set(batch.indices.map((index) => planSk(chunkOf(index)))),
      ]);
      const claimItem = first.find((item) => item.sk === claimSk);
      const plans = new Set(first.map((item) => item.sk));
      const own = claimItem ? batch.indices : batch.indices.filter((index) => !plans.has(planSk(chunkOf(index))));
      const items = own.length ? [...first, ...(await readKeys(executionId, own.map(sk)))] : first;
      const executionItem = options.withExecution ? items.find((item) => item.sk === executionSk) : undefined;
      return {
        entries: await entriesOf(executionId, items, new Set(batch.indices)),
        claim: claimItem ? claimFromItem(claimItem) : null,
        ...(options.withExecution ? { execution: executionItem ? executionFromItem(executionItem) : null } : {}),
      };
    },

    async claimBatch(executionId, batchId, results, products = []) {
      // [[index, result(, part)], ...] from each result's JSON as serialized when it was
      // extracted; a product serialized apart goes to product_parts as its record stores it.
      const parts: Array<string | Uint8Array> = [];
      const rows = results.map(({ index, json, product }) => {
        if (!product) return `[${index},${json}]`;
        parts.push(packProduct(product));
        return `[${index},${json},${parts.length - 1}]`;
      });
      const gz = gzipSync(`[${rows.join(',')}]`, CLAIM_GZIP);
      const partBytes = parts.reduce(
        (size, part) => size + (typeof part === 'string' ? Buffer.byteLength(part) : part.length) + PART_OVERHEAD,
        0,
      );
      const fits = gz.length + partBytes <= CLAIM_RESULTS_LIMIT;
      const outcomes = JSON.stringify(results.map(({ index, outcome }) => [index, outcome]));
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...claimKey(executionId, batchId),
              entity: 'batch-claim',
              batch_id: batchId,
              ...(fits ? { results_gz: gz, outcomes, ...(parts.length ? { product_parts: parts } : {}) } : {}),
              ...(products.length ? { products: JSON.stringify(products) } : {}),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return {
          won: true,
          claim: {
            batchId,
            results: fits ? new Map(results.map(({ index, outcome }) => [index, { outcome }])) : null,
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
      // The claims' outcomes, the plan items and the entries' own items (without their results)
      // in one paged Query: BATCH# < EXEC (the execution item, ignored) < PLAN# < URL#.
      const items = await queryBetween(executionId, CLAIM_PREFIX, sk(LAST_INDEX), {
        projection: 'sk, #index, #input, #url, dup_of, #state, outcome, entries_gz, batch_id, #outcomes',
        // Plan, claim and entry items together may outnumber the entries.
        limit: 2 * MAX_ENTRIES,
        names: { '#index': 'index', '#input': 'input', '#url': 'url', '#state': 'state', '#outcomes': 'outcomes' },
      });
      const claimed = claimedOutcomes(items);
      const outlines = mergeItems(items, outlineOf).slice(0, MAX_ENTRIES) as UrlEntryOutline[];
      return outlines.map((outline) => {
        const holder = outline.state === 'pending' ? claimed.get(outline.index) : undefined;
        return holder ? { ...outline, state: 'done', result: { outcome: holder[1] } } : outline;
      });
    },

    range: (executionId, from, limit) => readRange(executionId, Math.max(0, from), limit),

    all: (executionId) => readRange(executionId, 0, MAX_ENTRIES),
  };
}
