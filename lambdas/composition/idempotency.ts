// Idempotent starts: Powertools' idempotency utility (makeIdempotent + IdempotencyConfig) around
// a start operation, with its records in the one table (adapters/dynamodb/idempotency.ts).
//
//   key        hash of [organization, Idempotency-Key]: keys never collide across organizations
//   payload    hash of [operation, validated body]: the same key with another body or on another
//              start operation is 409 CONFLICT
//   window     24 h (expiresAfterSeconds); records carry a TTL attribute
//   in flight  a second request while the first runs is 409 CONFLICT (Powertools'
//              IdempotencyAlreadyInProgressError); a start that crashed mid-way holds its key for
//              at most IN_PROGRESS_LOCK_MS (or the Lambda's remaining time), then the next request runs
//   failures   a start that throws (4xx/5xx) deletes its record, so a retry can succeed
//
// Part of the base container: the request pipeline runs it for the start operations that carry an
// Idempotency-Key. Powertools and the store load on the first such start (a chunk of the asset,
// lib/bundle.ts), not at the cold start of every function.
import type { AwsClients } from '../adapters/clients';
import { storeFailure } from '../adapters/dynamodb/keys';
import { AppError } from '../domain/errors';

/** A first response is replayed for this long. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** Longest a start may hold its key while in progress when no Lambda deadline is known. */
export const IN_PROGRESS_LOCK_MS = 60_000;

export interface StartRequest {
  org: string;
  /** The Idempotency-Key header. */
  key: string;
  operation: string;
  /** The validated request body. */
  body: unknown;
}

export interface StartResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface IdempotentStarts {
  /**
   * Runs `start` at most once per (org, key) within the window and returns its response; a
   * repeat returns the first response with `replayed` true. Conflicts are AppError CONFLICT.
   */
  run(
    request: StartRequest,
    start: () => Promise<StartResponse>,
    remainingMs?: number,
  ): Promise<StartResponse & { replayed: boolean }>;
}

/** A start that answered an error without throwing: returned to the caller, never remembered. */
class FailedStart extends Error {
  constructor(readonly response: StartResponse) {
    super('start failed');
  }
}

const REPLAYED = Symbol('replayed');

type Once = (request: StartRequest, start: () => Promise<StartResponse>) => Promise<unknown>;

/** Powertools' idempotent wrapper around a start, over the table; `lockMs` says how long a start may run. */
async function powertoolsOnce(
  documents: AwsClients['documents'],
  tableName: string,
  clock: (() => number) | undefined,
  lockMs: () => number,
): Promise<Once> {
  const [{ IdempotencyConfig, makeIdempotent }, { DynamoIdempotencyStore }] = await Promise.all([
    import('@aws-lambda-powertools/idempotency'),
    import('../adapters/dynamodb/idempotency'),
  ]);
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[org, key]',
    payloadValidationJmesPath: '[operation, body]',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
    hashFunction: 'sha256',
    // A replayed record is marked so the caller can say so (Idempotent-Replayed header).
    responseHook: (response) => ({ ...(response as object), [REPLAYED]: true }) as unknown as typeof response,
  });
  config.registerLambdaContext({ getRemainingTimeInMillis: lockMs } as never);
  return makeIdempotent(
    async (_request: StartRequest, start: () => Promise<StartResponse>): Promise<StartResponse> => {
      const response = await start();
      if (response.status >= 400) throw new FailedStart(response);
      // Stored as JSON: what is replayed is exactly what the client was sent.
      return JSON.parse(JSON.stringify(response)) as StartResponse;
    },
    // A fixed prefix (not the Lambda's name): one key space for every start operation.
    {
      persistenceStore: new DynamoIdempotencyStore(documents, tableName, clock),
      config,
      keyPrefix: 'start',
      dataIndexArgument: 0,
    },
  );
}

export function createIdempotentStarts(
  documents: AwsClients['documents'],
  tableName: string,
  options: { clock?: () => number } = {},
): IdempotentStarts {
  let lockMs = IN_PROGRESS_LOCK_MS;
  let once: Promise<Once> | undefined;
  return {
    async run(request, start, remainingMs) {
      // The in-progress lock lasts as long as this start can still be running.
      lockMs = Math.min(remainingMs ?? IN_PROGRESS_LOCK_MS, IN_PROGRESS_LOCK_MS);
      once ??= powertoolsOnce(documents, tableName, options.clock, () => lockMs);
      once.catch(() => {
        once = undefined;
      });
      try {
        const response = (await (await once)(request, start)) as StartResponse & { [REPLAYED]?: true };
        const { [REPLAYED]: replayed, ...first } = response;
        return { ...first, replayed: replayed === true };
      } catch (error) {
        if (error instanceof FailedStart) return { ...error.response, replayed: false };
        throw asAppError(error);
      }
    },
  };
}

function asAppError(error: unknown): unknown {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'IdempotencyValidationError')
    return new AppError(
      'CONFLICT',
      'This Idempotency-Key was already used with another request body or operation in the last 24 hours; use a new key for a new start',
      {},
      'Send a new Idempotency-Key for a different request',
    );
  if (name === 'IdempotencyAlreadyInProgressError')
    return new AppError(
      'CONFLICT',
      'A request with this Idempotency-Key is still in progress; retry once it has answered',
      {},
      'Retry in a few seconds to receive the first response',
    );
  if (name === 'IdempotencyPersistenceLayerError') return storeFailure((error as Error).cause);
  return error;
}
