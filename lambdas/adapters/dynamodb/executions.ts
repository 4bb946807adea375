// Executions in the single table. One item per execution, moved only by single-item conditional
// updates (dynalite has no transactions, and none are needed):
//
//   execution      pk EXEC#<id>  sk EXEC
//                  gsi1 EXECS#<org>#<group> / <created_at>#<id>                 (all, newest first)
//                  gsi2 EXECS#<org>#<group>#<processing|completed|failed> / <created_at>#<id>
//                  counters as top-level numbers n_<name>; `batches` = string set of applied batch ids
//   deadline mark  pk EXECS#ACTIVE#<shard 0..3>  sk <deadline>#<id>   (deleted when terminal; the
//                  reaper queries marks whose deadline has passed); `waiting_for` while the
//                  execution waits for a crawl, so the reaper finds the waiting ones among them
import { createHash } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { ExecutionPatch, ExecutionStore, ListQuery } from '../../ports/executions';
import {
  GROUP_OF,
  TERMINAL,
  statusFilterOf,
  type Execution,
  type ExecutionStatus,
} from '../../domain/executions/model';
import { isConditionalFailure } from './keys';
import { SCHEMA } from './schema';

const ACTIVE_SHARDS = 4;
/** Lists read at most this many items to count and skip (offset paging over a GSI). */
const MAX_LIST_ITEMS = 20_000;
const MAX_PAGES = 500;
/** Pages of marks read per shard when looking for waiting executions (1 MB each: far more marks than run at once). */
const MAX_MARK_PAGES = 20;
const COUNTER = /^[a-z][a-z0-9_]{0,62}$/;

const executionKey = (id: string) => SCHEMA.execution.key({ id });
const shardOf = (id: string) => createHash('sha256').update(id).digest()[0] % ACTIVE_SHARDS;
const activeKey = (id: string, deadline: string) => SCHEMA.executionDeadline.key({ shard: shardOf(id), deadline, id });
const listPk = (org: string, group: string) => SCHEMA.execution.gsi1.pk({ org, group });

function counterName(name: string): string {
  if (!COUNTER.test(name)) throw new Error(`Invalid counter name "${name}"`);
  return `n_${name}`;
}

function toItem(execution: Execution): Record<string, unknown> {
  const group = GROUP_OF[execution.kind];
  const { counters, ...rest } = execution;
  const item: Record<string, unknown> = {
    ...executionKey(execution.id),
    entity: 'execution',
    ...rest,
    ...SCHEMA.execution.gsi1.keys({ org: execution.org, group, createdAt: execution.created_at, id: execution.id }),
    ...SCHEMA.execution.gsi2.keys({
      org: execution.org,
      group,
      status: statusFilterOf(execution.status),
      createdAt: execution.created_at,
      id: execution.id,
    }),
  };
  for (const [name, value] of Object.entries(counters)) item[counterName(name)] = value;
  return item;
}

function fromItem(item: Record<string, any>): Execution {
  const counters: Record<string, number> = {};
  for (const [key, value] of Object.entries(item)) if (key.startsWith('n_')) counters[key.slice(2)] = Number(value);
  return {
    id: item.id,
    org: item.org,
    kind: item.kind,
    status: item.status,
    error: item.error ?? null,
    created_at: item.created_at,
    start_date: item.start_date ?? null,
    stop_date: item.stop_date ?? null,
    deadline: item.deadline,
    options: item.options ?? {},
    input: Object.fromEntries(Object.entries(item.input ?? {}).map(([k, v]) => [k, Number(v)])),
    counters,
    waiting_for: item.waiting_for ?? null,
    workflow: item.workflow ?? null,
    finalized: item.finalized === true,
  };
}

/** An execution item as the execution (the extract worker reads it together with its batch). */
export const executionFromItem = fromItem;

/** SET clauses for a patch; names and values are added to the given maps. */
function patchClauses(patch: ExecutionPatch, names: Record<string, string>, values: Record<string, unknown>): string[] {
  const sets: string[] = [];
  const simple: Array<keyof ExecutionPatch> = ['error', 'start_date', 'stop_date', 'waiting_for', 'finalized'];
  for (const field of simple) {
    if (patch[field] === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = patch[field];
    sets.push(`#${field} = :${field}`);
  }
  let i = 0;
  for (const [name, value] of Object.entries(patch.input ?? {})) {
    names['#input'] = 'input';
    names[`#in${i}`] = name;
    values[`:in${i}`] = value;
    sets.push(`#input.#in${i} = :in${i}`);
    i++;
  }
  i = 0;
  for (const [name, value] of Object.entries(patch.counters ?? {})) {
    names[`#c${i}`] = counterName(name);
    values[`:c${i}`] = value;
    sets.push(`#c${i} = :c${i}`);
    i++;
  }
  return sets;
}

export function dynamoExecutionStore(documents: DynamoDBDocumentClient, tableName: string): ExecutionStore {
  async function conditionalUpdate(
    id: string,
    whileIn: readonly ExecutionStatus[],
    sets: string[],
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): Promise<Execution | null> {
    const inList = whileIn.map((_, i) => `:from${i}`);
    whileIn.forEach((status, i) => (values[`:from${i}`] = status));
    names['#status'] = 'status';
    try {
      const out = await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: executionKey(id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `attribute_exists(pk) AND #status IN (${inList.join(', ')})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return fromItem(out.Attributes!);
    } catch (error) {
      if (isConditionalFailure(error)) return null;
      throw error;
    }
  }

  /** The mark of an execution that no longer waits loses its waiting_for (unless it is gone: terminal). */
  async function stopWaiting(execution: Execution): Promise<void> {
    try {
      await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: activeKey(execution.id, execution.deadline),
          UpdateExpression: 'REMOVE waiting_for',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
    }
  }

  async function get(id: string): Promise<Execution | null> {
    const out = await documents.send(
      new GetCommand({ TableName: tableName, Key: executionKey(id), ConsistentRead: true }),
    );
    return out.Item ? fromItem(out.Item) : null;
  }

  return {
    async create(execution) {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: toItem(execution),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      if (!TERMINAL.has(execution.status)) {
        const waiting = execution.waiting_for ? { waiting_for: execution.waiting_for } : {};
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...activeKey(execution.id, execution.deadline), id: execution.id, ...waiting },
          }),
        );
      }
    },

    get,

    async transition(id, from, to, patch = {}) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':to': to };
      const sets = ['#status = :to', ...patchClauses(patch, names, values)];
      // gsi2pk moves with the status; the organization and kind it is made of come from the item.
      const current = await documents.send(
        new GetCommand({
          TableName: tableName,
          Key: executionKey(id),
          ProjectionExpression: 'org, kind',
          ConsistentRead: true,
        }),
      );
      if (!current.Item) return null;
      values[':g2'] = SCHEMA.execution.gsi2.pk({
        org: current.Item.org,
        group: GROUP_OF[current.Item.kind as Execution['kind']],
        status: statusFilterOf(to),
      });
      sets.push('gsi2pk = :g2');
      const updated = await conditionalUpdate(id, from, sets, names, values);
      if (updated && TERMINAL.has(to)) {
        await documents.send(new DeleteCommand({ TableName: tableName, Key: activeKey(id, updated.deadline) }));
      }
      return updated;
    },

    async update(id, whileIn, patch) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const sets = patchClauses(patch, names, values);
      if (!sets.length) return get(id);
      const updated = await conditionalUpdate(id, whileIn, sets, names, values);
      if (updated && patch.waiting_for === null) await stopWaiting(updated);
      return updated;
    },

    async addProgress(id, batchId, increments) {
      const names: Record<string, string> = { '#batches': 'batches', '#finalized': 'finalized' };
      const values: Record<string, unknown> = { ':batch': new Set([batchId]), ':batchId': batchId, ':false': false };
      const adds = ['#batches :batch'];
      Object.entries(increments).forEach(([name, value], i) => {
        if (!value) return;
        names[`#c${i}`] = counterName(name);
        values[`:c${i}`] = value;
        adds.push(`#c${i} :c${i}`);
      });
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: executionKey(id),
            UpdateExpression: `ADD ${adds.join(', ')}`,
            ConditionExpression: 'attribute_exists(pk) AND NOT contains(#batches, :batchId) AND #finalized = :false',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalFailure(error)) return false;
        throw error;
      }
    },

    async list(query: ListQuery) {
      const byStatus = query.status !== undefined;
      const index = byStatus ? 'gsi2' : 'gsi1';
      const pkValue = byStatus ? `${listPk(query.org, query.group)}#${query.status}` : listPk(query.org, query.group);
      const ids: string[] = [];
      let total = 0;
      let start: Record<string, any> | undefined;
      for (let page = 0; page < MAX_PAGES && total < MAX_LIST_ITEMS; page++) {
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: index,
            KeyConditionExpression: `${index}pk = :pk`,
            ExpressionAttributeValues: { ':pk': pkValue },
            ProjectionExpression: 'id',
            ScanIndexForward: false,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) {
          if (total >= query.offset && ids.length < query.limit) ids.push(item.id);
          total++;
        }
        start = out.LastEvaluatedKey;
        if (!start) break;
      }
      // The index is eventually consistent: read each page item from the base table.
      const items = (await Promise.all(ids.map((id) => get(id)))).filter((e): e is Execution => e !== null);
      return { items, total };
    },

    async overdue(now, limit) {
      const marks: Array<{ sk: string; id: string }> = [];
      for (let shard = 0; shard < ACTIVE_SHARDS; shard++) {
        const out = await documents.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk <= :now',
            ExpressionAttributeValues: { ':pk': SCHEMA.executionDeadline.pk({ shard }), ':now': `${now}#\uffff` },
            Limit: limit,
          }),
        );
        for (const item of out.Items ?? []) marks.push({ sk: item.sk, id: item.id });
      }
      marks.sort((a, b) => a.sk.localeCompare(b.sk));
      // A mark whose execution is already terminal (a lost delete) is cleaned up here.
      const ids: string[] = [];
      for (const mark of marks.slice(0, limit)) {
        const execution = await get(mark.id);
        if (execution && !TERMINAL.has(execution.status)) ids.push(mark.id);
        else
          await documents.send(
            new DeleteCommand({
              TableName: tableName,
              Key: { pk: SCHEMA.executionDeadline.pk({ shard: shardOf(mark.id) }), sk: mark.sk },
            }),
          );
      }
      return ids;
    },

    async waiting(limit) {
      const found: Array<{ id: string; waitingFor: string }> = [];
      for (let shard = 0; shard < ACTIVE_SHARDS && found.length < limit; shard++) {
        let start: Record<string, any> | undefined;
        for (let page = 0; page < MAX_MARK_PAGES && found.length < limit; page++) {
          const out = await documents.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk',
              FilterExpression: 'attribute_exists(waiting_for)',
              ExpressionAttributeValues: { ':pk': SCHEMA.executionDeadline.pk({ shard }) },
              ExclusiveStartKey: start,
            }),
          );
          for (const item of out.Items ?? []) found.push({ id: item.id, waitingFor: item.waiting_for });
          start = out.LastEvaluatedKey;
          if (!start) break;
        }
      }
      return found.slice(0, limit);
    },
  };
}
