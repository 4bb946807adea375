// Item layouts of the platform entities in the single table (pk/sk + gsi1/gsi2), and the mapping
// of DynamoDB failures to domain error codes.
//
//   API key        pk APIKEY#<sha256>   sk APIKEY   gsi1 APIKEYS / <org>#<createdAt>#<keyId>   gsi2 APIKEYID#<keyId> / APIKEY
//   organization   pk ORG#<org>         sk ORG
//   dev-key claim  pk SYSTEM            sk DEVELOPMENT_KEY
//   rate bucket    pk RATE#<keyId>      sk RATE     tat (ms, GCRA theoretical arrival time)
//   usage counter  pk USAGE#<org>       sk H#<yyyy-mm-ddThh>#<route template>   calls (ADD)
//   vendor         pk VENDOR#<key>      sk VENDOR   gsi1 VENDORS / <key>
import { AppError } from '../../domain/errors';

export const keyItem = (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' });
export const orgItem = (org: string) => ({ pk: `ORG#${org}`, sk: 'ORG' });
export const devKeyClaimItem = () => ({ pk: 'SYSTEM', sk: 'DEVELOPMENT_KEY' });
export const rateItem = (bucketId: string) => ({ pk: `RATE#${bucketId}`, sk: 'RATE' });
export const usagePk = (org: string) => `USAGE#${org}`;
export const usageSk = (hourBucket: string, path: string) => `H#${hourBucket}#${path}`;
export const vendorItem = (vendor: string) => ({ pk: `VENDOR#${vendor}`, sk: 'VENDOR' });
export const API_KEYS_INDEX_PK = 'APIKEYS';
export const VENDORS_INDEX_PK = 'VENDORS';

/** Per-call deadline for reads behind a request, so a stuck table answers 504, not a hung Lambda. */
export const READ_TIMEOUT_MS = 5_000;
export const deadline = (ms = READ_TIMEOUT_MS) => ({ abortSignal: AbortSignal.timeout(ms) });

export const isConditionalFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

/** Store failures as domain errors; the message never carries the SDK's internals. */
export function storeFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as { name?: string; code?: string; message?: string } | null;
  const name = `${e?.name ?? ''} ${e?.code ?? ''}`;
  if (/Timeout|TimedOut|ETIMEDOUT|AbortError/i.test(name)) {
    return new AppError('DB_TIMEOUT', 'The database did not answer in time', {}, 'Retry the request in a few seconds');
  }
  return new AppError('DB_ERROR', 'The database request failed', {}, 'Retry later; the failure was logged');
}
