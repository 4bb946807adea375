// Errors are values with a code; lambdas/http renders them in the legacy, v1 or v2 shape.
export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'INVALID_PARAMETER'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'TIMEOUT'
  | 'DB_TIMEOUT'
  | 'DB_ERROR';

export const STATUS_OF: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  INVALID_PARAMETER: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  TIMEOUT: 504,
  DB_TIMEOUT: 504,
  DB_ERROR: 500,
};

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra context rendered beside the error (v2: next to `error`, e.g. invalid_urls). */
    readonly context: Record<string, unknown> = {},
    /** Legacy/v1 `details`. */
    readonly details?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return STATUS_OF[this.code];
  }
}

export const invalid = (message: string, context: Record<string, unknown> = {}) =>
  new AppError('INVALID_PARAMETER', message, context);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
