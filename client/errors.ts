// What can go wrong talking to the service, as classes a caller (the CLI) can map to exit codes.

/** The service answered with a non-2xx status (after 429 retries were used up). */
export class PdsApiError extends Error {
  readonly status: number;
  /** v2 `error.code`, legacy/v1 `code`, or undefined (401 bodies carry none). */
  readonly code: string | undefined;
  readonly body: unknown;
  constructor(status: number, body: unknown, what: string) {
    super(`${what}: HTTP ${status}: ${messageOf(body)}`);
    this.name = 'PdsApiError';
    this.status = status;
    this.body = body;
    this.code = codeOf(body);
  }
}

/** `waitFor` reached its maximum wait; `last` is the last status body read. */
export class PdsTimeoutError extends Error {
  readonly executionId: string;
  readonly last: unknown;
  constructor(executionId: string, timeoutMs: number, last: unknown) {
    super(`${executionId} did not finish within ${Math.round(timeoutMs / 1000)} s`);
    this.name = 'PdsTimeoutError';
    this.executionId = executionId;
    this.last = last;
  }
}

/** The service could not be reached (connection refused, reset, DNS). */
export class PdsUnreachableError extends Error {
  readonly baseUrl: string;
  constructor(baseUrl: string, cause: unknown) {
    const reason = (cause as { cause?: { code?: string; message?: string } })?.cause;
    super(`cannot reach ${baseUrl}: ${reason?.code ?? reason?.message ?? (cause as Error)?.message ?? cause}`);
    this.name = 'PdsUnreachableError';
    this.baseUrl = baseUrl;
  }
}

function messageOf(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300) || '(empty body)';
  const b = body as { error?: unknown; message?: unknown } | null;
  if (b && typeof b.error === 'string') return b.error;
  if (b?.error && typeof (b.error as { message?: unknown }).message === 'string')
    return (b.error as { message: string }).message;
  return JSON.stringify(body)?.slice(0, 300) ?? '(empty body)';
}

function codeOf(body: unknown): string | undefined {
  const b = body as { error?: unknown; code?: unknown } | null;
  if (b && typeof b.code === 'string') return b.code;
  const nested = b?.error as { code?: unknown } | undefined;
  return nested && typeof nested.code === 'string' ? nested.code : undefined;
}
