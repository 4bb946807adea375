// The one place errors become HTTP bodies, in the shape of the route's family:
//   authentication (all families)  { error, status }
//   legacy and v1                  { error, details?, code }
//   v2                             { error: { code, message, request_id }, ...context }
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../domain/errors';
import type { Family } from '../topology/routes';

export const AUTH_REQUIRED_MESSAGE = 'API key required (x-api-key header or Authorization: Bearer)';
export const INVALID_KEY_MESSAGE = 'Invalid API key';
export const INTERNAL_MESSAGE = 'Internal server error';

export type HttpResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string | number | boolean>;
};

/**
 * `serialized`: JSON.stringify(body) when the caller already has it (a body kept with the cached
 * data it was made from, see serializedOnce): sent as is instead of serialising again.
 */
export function jsonResult(
  statusCode: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
  serialized?: string,
): HttpResult {
  return {
    statusCode,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'request-id': requestId,
      ...headers,
    },
    body: serialized ?? JSON.stringify(body),
  };
}

/** A response body and its JSON text, made once. */
export interface SerializedBody<B = unknown> {
  body: B;
  serialized: string;
}

/** Bodies kept per source object; a source with more variants than this starts again. */
const SERIALIZED_PER_SOURCE = 256;
const serializedBodies = new WeakMap<object, Map<string, SerializedBody>>();

/**
 * The body `build()` makes from `source` for `variant` (a page, a page size), with its JSON text,
 * made once per source object and variant and reused while the source lives: a cache hands out
 * the same (frozen) source until it reads again, so the body is exactly what `build()` would make
 * now, with no staleness of its own. `build` must depend only on `source` and `variant`.
 */
export function serializedOnce<B>(source: object, variant: string, build: () => B): SerializedBody<B> {
  let bodies = serializedBodies.get(source);
  if (!bodies) serializedBodies.set(source, (bodies = new Map()));
  const known = bodies.get(variant);
  if (known) return known as SerializedBody<B>;
  const body = build();
  const made = { body, serialized: JSON.stringify(body) };
  if (bodies.size >= SERIALIZED_PER_SOURCE) bodies.clear();
  bodies.set(variant, made);
  return made;
}

/** Anything that is not an AppError becomes a generic 500: internals never reach the client. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if ((error as { name?: string } | null)?.name === 'TimeoutError') {
    return new AppError(
      'TIMEOUT',
      'The request took too long to process',
      {},
      'Retry the request; if it keeps timing out, ask for fewer items',
    );
  }
  return new AppError('INTERNAL_ERROR', INTERNAL_MESSAGE);
}

export function errorBody(family: Family, error: AppError, requestId: string): Record<string, unknown> {
  if (error.code === 'UNAUTHORIZED') return { error: error.message, status: 401 };
  if (family === 'v2') {
    return { error: { code: error.code, message: error.message, request_id: requestId }, ...error.context };
  }
  // Legacy and v1 keep their documented shape exactly; context fields are a v2 feature.
  return { error: error.message, ...(error.details ? { details: error.details } : {}), code: error.code };
}

export function errorResult(
  family: Family,
  error: AppError,
  requestId: string,
  headers: Record<string, string> = {},
): HttpResult {
  return jsonResult(error.status, errorBody(family, error, requestId), requestId, headers);
}
