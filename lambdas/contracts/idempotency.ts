// The Idempotency-Key header of start operations: which operations take it, what a valid key is,
// and how OpenAPI documents it. The pipeline (lambdas/http/pipeline.ts) applies it to exactly
// these operations; the records are Powertools idempotency records (composition/idempotency.ts).
//
// Not listed, because they start nothing: v1AgenticSearch (answers in the request), legacy
// /api/products (extracts synchronously), the agentic-search-mini operations.
export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([
  'v1ProductsStart',
  'v1ExtractStart',
  'v2ExtractStart',
  'v1CrawlStart',
  'v2CrawlStart',
  'v2AgenticSearchStart',
]);

/** Lower case: API Gateway and the local server hand handlers lower-case header names. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Response header set on a replayed first response. */
export const REPLAYED_HEADER = 'idempotent-replayed';

export const IDEMPOTENCY_KEY_MAX = 255;
const VALID_KEY = /^[\x20-\x7e]+$/;

/** Why a presented key is not valid, or null when it is. */
export function idempotencyKeyProblem(key: string): string | null {
  if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX || !VALID_KEY.test(key) || !key.trim())
    return `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`;
  return null;
}

const DESCRIPTION =
  'Optional. Makes the start safe to retry: the same organization, key and body within 24 hours answer the first response (same status, body and execution id, with header `Idempotent-Replayed: true`) without starting again. The same key with another body or on another start operation is 409 CONFLICT, and so is a repeat while the first request is still being answered (retry it a moment later). A start that failed (4xx/5xx) is not remembered, so a retry with the same key runs again. 1 to 255 printable ASCII characters (for example a UUID); anything else is 400 INVALID_PARAMETER.';

/** The OpenAPI parameter object of the header. */
export const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: DESCRIPTION,
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[\\x20-\\x7E]+$' },
} as const;

export const IDEMPOTENCY_CONFLICT =
  'CONFLICT: this Idempotency-Key was used with another body or operation in the last 24 hours, or its first request is still in progress';

/** The success response's header of a replay. */
export const IDEMPOTENCY_RESPONSE_HEADER = {
  'Idempotent-Replayed': {
    description: 'true when this is the stored first response of an earlier request with the same Idempotency-Key',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
} as const;
