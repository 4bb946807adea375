// The change feed in the single table:
//
//   log entry      pk CHANGE#<urlHash>#<country|listing>  sk SEQ#<seq, 10 digits>
//                  gsi2 CHANGES#<vendor>#<0..3> / <seen_at>#<log>#<seq>   (a vendor's feed, by URL hash)
//   vendor access  pk ORG#<org>  sk CHANGEVENDOR#<vendor>   (since: the first extraction or crawl)
//
// A log is append-only and every entry is written once, by a conditional Put of the next sequence
// number: the entry is the observation's record of what changed, written before the product
// record (or listing) that carries the log's head as a hint (seq + state) for the next writer.
// A writer whose hint is behind (another writer, or its own earlier try that stopped between the
// entry and the record) loses the conditional Put, reads the log's head and compares with that:
// the same observation written again adds nothing, so a retry never records a change twice.
import { createHash } from 'node:crypto';
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ChangeEntry, changesOf, type WatchState } from '../../domain/changes/model';
import type { ChangeFeedStore, LogHead, Observation, VendorGrant } from '../../ports/changes';
import { deadline, isConditionalFailure, storeFailure } from './keys';
import { CHANGE_FEED_SHARDS, SCHEMA } from './schema';
import { mergeByOrder } from './products-feed';
import { batchGet } from './batch';

const SEQ_DIGITS = 10;
/** Tries of one observation against writers that keep moving the log's head. */
const MAX_APPEND_ROUNDS = 5;
/**
 * A read never passes "now minus LAG": an entry is stamped just before its Put, so one stamped
 * earlier may land a moment after a later one; the last second is read again next time.
 */
export const CHANGE_FEED_LAG_MS = 1_000;

const seqPart = (seq: number) => String(seq).padStart(SEQ_DIGITS, '0');
export const changeShard = (log: string) =>
  createHash('sha256').update(log).digest().readUInt32BE(0) % CHANGE_FEED_SHARDS;

function entryOf(item: Record<string, any>): ChangeEntry {
  return {
    url: item.url,
    vendor: item.vendor,
    log: item.log,
    seq: Number(item.seq),
    seen_at: item.seen_at,
    source: item.source,
    country: item.country ?? null,
    currency: item.currency ?? null,
    changes: JSON.parse(item.changes),
    state: JSON.parse(item.state),
  };
}

export function dynamoChangeFeed(
  documents: DynamoDBDocumentClient,
  tableName: string,
  now: () => number = Date.now,
): ChangeFeedStore {
  /** The newest entry of a log (strongly consistent), or null for an empty log. */
  async function head(log: string): Promise<LogHead | null> {
    const out = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': SCHEMA.changeEntry.pk({ log }), ':prefix': SCHEMA.changeEntry.skPrefix },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 1,
      }),
    );
    const item = out.Items?.[0];
    return item ? { seq: Number(item.seq), state: JSON.parse(item.state) } : null;
  }

  /** Appends the observation's changes (if any) after the log's head; the head it leaves. */
  async function append(observation: Observation): Promise<LogHead> {
    let seq = observation.hint?.seq ?? 0;
    let last: WatchState | null = observation.hint?.state ?? null;
    for (let round = 0; round < MAX_APPEND_ROUNDS; round++) {
      const changes = changesOf(last, observation.observed, observation.announceNew);
      if (!changes.length) return { seq, state: observation.observed };
      const entry: ChangeEntry = {
        url: observation.url,
        vendor: observation.vendor,
        log: observation.log,
        seq: seq + 1,
        seen_at: new Date(now()).toISOString(),
        source: observation.source,
        country: observation.country,
        currency: observation.observed.currency,
        changes,
        state: observation.observed,
      };
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...SCHEMA.changeEntry.key({ log: entry.log, seq: seqPart(entry.seq) }),
              ...SCHEMA.changeEntry.gsi2.keys({
                vendor: entry.vendor,
                shard: changeShard(entry.log),
                seenAt: entry.seen_at,
                log: entry.log,
                seq: seqPart(entry.seq),
              }),
              entity: SCHEMA.changeEntry.entity,
              ...entry,
              changes: JSON.stringify(entry.changes),
              state: JSON.stringify(entry.state),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { seq: entry.seq, state: observation.observed };
      } catch (error) {
        if (!isConditionalFailure(error)) throw error;
        const found = await head(observation.log);
        seq = found?.seq ?? seq + 1;
        last = found?.state ?? last;
      }
    }
    throw new Error(`The change log ${observation.log} kept moving`);
  }

  /** One partition's entries after its cursor, oldest first, up to the ceiling. */
  async function after(pk: string, from: string, ceiling: string, limit: number) {
    // A start the feed has not reached yet (a grant made within the lag, a `since` to come) reads
    // nothing: DynamoDB refuses a BETWEEN whose lower bound is above its upper one.
    if (`${from}\u0000` > ceiling) return { items: [], full: false };
    const out = await documents.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk BETWEEN :from AND :ceiling',
        ExpressionAttributeValues: { ':pk': pk, ':from': `${from}\u0000`, ':ceiling': ceiling },
        ScanIndexForward: true,
        Limit: limit,
      }),
      deadline(),
    );
    return { items: out.Items ?? [], full: !!out.LastEvaluatedKey };
  }

  return {
    append: (observations) => Promise.all(observations.map(append)),

    async read({ partitions, limit }) {
      const ceiling = new Date(now() - CHANGE_FEED_LAG_MS).toISOString();
      const names = partitions.flatMap(({ vendor, start, cursors }) =>
        Array.from({ length: CHANGE_FEED_SHARDS }, (_, shard) => ({
          name: `${vendor}#${shard}`,
          pk: SCHEMA.changeEntry.gsi2.pk({ vendor, shard }),
          from: cursors[`${vendor}#${shard}`] ?? start,
        })),
      );
      const perPartition = Math.max(10, Math.min(limit, 100));
      try {
        const pages = await Promise.all(names.map((p) => after(p.pk, p.from, ceiling, perPartition)));
        // Past the lowest last key of a partition with more, another may still hold earlier entries.
        const bound = pages.reduce<string | null>((low, page) => {
          const last = page.full ? (page.items[page.items.length - 1]?.gsi2sk as string) : null;
          return last && (low === null || last < low) ? last : low;
        }, null);
        const lists = pages.map((page) =>
          page.items
            .filter((item) => bound === null || item.gsi2sk <= bound)
            .map((item) => ({ order: item.gsi2sk as string, item })),
        );
        const merged = mergeByOrder(lists).slice(0, limit);
        const more = merged.length === limit || pages.some((page) => page.full);
        const cursors: Record<string, string> = {};
        for (const { item } of merged) cursors[`${item.vendor}#${changeShard(item.log)}`] = item.gsi2sk;
        return { entries: merged.map(({ item }) => entryOf(item)), cursors, more };
      } catch (error) {
        throw storeFailure(error);
      }
    },

    async grant(org, vendors, at) {
      // An organization's jobs mostly return to vendors it has: several are read in one BatchGet,
      // and only the missing grants are written (one conditional Put each: the first one stays).
      const wanted = [...new Set(vendors)];
      const keys = wanted.map((vendor) => SCHEMA.vendorAccess.key({ org, vendor }));
      const had =
        wanted.length > 1
          ? await batchGet(documents, tableName, keys, {
              projection: '#vendor',
              names: { '#vendor': 'vendor' },
            }).catch((error) => {
              throw storeFailure(error);
            })
          : [];
      const granted = new Set(had.map((item) => item.vendor as string));
      await Promise.all(
        wanted
          .filter((vendor) => !granted.has(vendor))
          .map(async (vendor) => {
            try {
              await documents.send(
                new PutCommand({
                  TableName: tableName,
                  Item: { ...SCHEMA.vendorAccess.key({ org, vendor }), entity: 'vendorAccess', org, vendor, since: at },
                  ConditionExpression: 'attribute_not_exists(pk)',
                }),
              );
            } catch (error) {
              if (!isConditionalFailure(error)) throw storeFailure(error);
            }
          }),
      );
    },

    async grants(org) {
      const grants: VendorGrant[] = [];
      let start: Record<string, unknown> | undefined;
      for (let page = 0; page < 50; page++) {
        const out = await documents
          .send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
              ExpressionAttributeValues: { ':pk': SCHEMA.vendorAccess.pk({ org }), ':prefix': 'CHANGEVENDOR#' },
              ExclusiveStartKey: start,
            }),
            deadline(),
          )
          .catch((error) => {
            throw storeFailure(error);
          });
        for (const item of out.Items ?? []) grants.push({ vendor: item.vendor, since: item.since });
        start = out.LastEvaluatedKey;
        if (!start) break;
      }
      return grants;
    },
  };
}
