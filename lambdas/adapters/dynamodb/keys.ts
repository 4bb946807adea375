// Keys of the platform entities, built from the one key schema (./schema.ts), and the mapping
// of DynamoDB failures to domain error codes.
import { AppError } from '../../domain/errors';
import { SCHEMA } from './schema';

export const keyItem = (keyHash: string) => SCHEMA.apiKey.key({ keyHash });
export const orgItem = (org: string) => SCHEMA.organization.key({ org });
export const devKeyClaimItem = () => SCHEMA.developmentKeyClaim.key({});
export const rateItem = (bucketId: string) => SCHEMA.rateBucket.key({ bucketId });
export const hostGateItem = (host: string) => SCHEMA.hostGate.key({ host });
export const usagePk = (org: string) => SCHEMA.usageCounter.pk({ org });
export const usageSk = (hour: string, path: string) => SCHEMA.usageCounter.sk({ hour, path });
export const vendorItem = (vendor: string) => SCHEMA.vendor.key({ vendor });
export const API_KEYS_INDEX_PK = SCHEMA.apiKey.gsi1.pk({});
export const VENDORS_INDEX_PK = SCHEMA.vendor.gsi1.pk({});

/** Per-call deadline for reads behind a request, so a stuck table answers 504, not a hung Lambda. */
export const READ_TIMEOUT_MS = 5_000;
export const deadline = (ms = READ_TIMEOUT_MS) => ({ abortSignal: AbortSignal.timeout(ms) });

export const isConditionalFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

/**
 * Store failures as domain errors; the message never carries the SDK's internals, which stay on
 * the error as its `cause` for the request's log line (lambdas/http/pipeline.ts).
 */
export function storeFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as { name?: string; code?: string; message?: string } | null;
  const name = `${e?.name ?? ''} ${e?.code ?? ''}`;
  const failure = /Timeout|TimedOut|ETIMEDOUT|AbortError/i.test(name)
    ? new AppError('DB_TIMEOUT', 'The database did not answer in time', {}, 'Retry the request in a few seconds')
    : new AppError('DB_ERROR', 'The database request failed', {}, 'Retry later; the failure was logged');
  failure.cause = error;
  return failure;
}
