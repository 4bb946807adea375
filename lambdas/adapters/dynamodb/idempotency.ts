// Powertools idempotency records in the one table (a BasePersistenceLayer over our document
// client), so starts with an Idempotency-Key need no second table and their keys go through the
// key schema like every other entity. One item per (organization, key) hash:
//
//   pk IDEMPOTENCY#<prefix>#<hash>  sk IDEMPOTENCY  entity idempotencyRecord
//   status           INPROGRESS | COMPLETED
//   expiresAt        epoch seconds: the table's TTL attribute (24 h after the start); an expired
//                    record counts as absent even before DynamoDB's TTL sweep deletes it
//   inProgressUntil  epoch ms: an INPROGRESS record older than this (its start crashed) may be
//                    taken over by the next request
//   payloadHash      hash of the operation and the validated body (another body: 409)
//   response         the first response (status, body, headers) as JSON text
//
// The conditions are those of Powertools' own DynamoDBPersistenceLayer: a put succeeds when the
// item is absent, expired, or an abandoned in-progress record; otherwise the existing record is
// returned with the failure (ReturnValuesOnConditionCheckFailure), so no second read is needed.
import { IdempotencyItemAlreadyExistsError, IdempotencyItemNotFoundError } from '@aws-lambda-powertools/idempotency';
import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { deadline, isConditionalFailure } from './keys';
import { TABLE } from '../../topology/table';
import { SCHEMA } from './schema';

/** The item attribute DynamoDB's TTL must be enabled on (CDK: `timeToLiveAttribute`). */
export const IDEMPOTENCY_TTL_ATTRIBUTE = TABLE.timeToLive;

const ENTITY = SCHEMA.idempotencyRecord.entity;
const keyOf = (idempotencyKey: string) => SCHEMA.idempotencyRecord.key({ key: idempotencyKey });

type Item = Record<string, unknown>;
/** What a record's response may hold (Powertools' JSON value type). */
type JSONValue = IdempotencyRecord['responseData'];

function recordOf(item: Item): IdempotencyRecord {
  return new IdempotencyRecord({
    idempotencyKey: String(item.idempotencyKey),
    status: item.status as 'INPROGRESS' | 'COMPLETED',
    expiryTimestamp: item.expiresAt === undefined ? undefined : Number(item.expiresAt),
    inProgressExpiryTimestamp: item.inProgressUntil === undefined ? undefined : Number(item.inProgressUntil),
    responseData: typeof item.response === 'string' ? (JSON.parse(item.response) as JSONValue) : undefined,
    payloadHash: item.payloadHash === undefined ? undefined : String(item.payloadHash),
  });
}

export class DynamoIdempotencyStore extends BasePersistenceLayer {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Clock in ms (tests move it). */
    private readonly clock: () => number = Date.now,
  ) {
    super();
  }

  protected async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(idempotencyKey), ConsistentRead: true }),
      deadline(),
    );
    if (!out.Item) throw new IdempotencyItemNotFoundError();
    return recordOf(out.Item);
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    const now = this.clock();
    const item: Item = {
      ...keyOf(record.idempotencyKey),
      entity: ENTITY,
      idempotencyKey: record.idempotencyKey,
      status: record.getStatus(),
      [IDEMPOTENCY_TTL_ATTRIBUTE]: record.expiryTimestamp,
      ...(record.inProgressExpiryTimestamp === undefined ? {} : { inProgressUntil: record.inProgressExpiryTimestamp }),
      ...(this.isPayloadValidationEnabled() && record.payloadHash !== undefined
        ? { payloadHash: record.payloadHash }
        : {}),
    };
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression:
            'attribute_not_exists(pk) OR #expiry < :now OR (#status = :inprogress AND attribute_exists(#until) AND #until < :nowMs)',
          ExpressionAttributeNames: {
            '#expiry': IDEMPOTENCY_TTL_ATTRIBUTE,
            '#status': 'status',
            '#until': 'inProgressUntil',
          },
          ExpressionAttributeValues: { ':now': Math.floor(now / 1000), ':nowMs': now, ':inprogress': 'INPROGRESS' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        deadline(),
      );
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      const old = (error as { Item?: Record<string, unknown> }).Item;
      // The document client leaves the returned item in wire form: read it again when present.
      const existing = old ? recordOf(unwire(old)) : undefined;
      throw new IdempotencyItemAlreadyExistsError(
        `An idempotency record exists for ${record.idempotencyKey}`,
        existing,
      );
    }
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const response = record.responseData === undefined ? {} : { ':response': JSON.stringify(record.responseData) };
    await this.documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keyOf(record.idempotencyKey),
        UpdateExpression: `SET #status = :status, #expiry = :expiry${record.responseData === undefined ? '' : ', #response = :response'}${
          this.isPayloadValidationEnabled() ? ', payloadHash = :hash' : ''
        } REMOVE inProgressUntil`,
        ExpressionAttributeNames: {
          '#status': 'status',
          '#expiry': IDEMPOTENCY_TTL_ATTRIBUTE,
          ...(record.responseData === undefined ? {} : { '#response': 'response' }),
        },
        ExpressionAttributeValues: {
          ':status': record.getStatus(),
          ':expiry': record.expiryTimestamp,
          ...response,
          ...(this.isPayloadValidationEnabled() ? { ':hash': record.payloadHash ?? '' } : {}),
        },
      }),
      deadline(),
    );
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    await this.documents.send(
      new DeleteCommand({ TableName: this.tableName, Key: keyOf(record.idempotencyKey) }),
      deadline(),
    );
  }
}

/** An item returned on a failed condition is in attribute-value form ({S: ...}, {N: ...}). */
function unwire(item: Record<string, unknown>): Item {
  const out: Item = {};
  for (const [name, value] of Object.entries(item)) {
    const v = value as { S?: string; N?: string } | string | number;
    if (v && typeof v === 'object' && 'S' in v) out[name] = v.S;
    else if (v && typeof v === 'object' && 'N' in v) out[name] = Number(v.N);
    else out[name] = v;
  }
  return out;
}
