// The wire format between a process without a browser and the render function's direct entry
// (lambdas/workers/render-direct.ts): one URL in, the rendered page or the render's failure out.
// The body travels gzipped: a rendered DOM can be megabytes, a Lambda response at most 6 MB.
// No AWS SDK here, so the render function's bundle does not carry the Lambda client.
import { gunzipSync, gzipSync } from 'node:zlib';
import { FetchFailure, type FetchFailureKind, type FetchedPage } from '../ports/fetcher';

export interface RenderDirectRequest {
  url: string;
  countryCode?: string;
}

export type RenderDirectResponse =
  | { page: Omit<FetchedPage, 'body' | 'bodyBytes'> & { bodyGzip: string } }
  | { failure: { kind: FetchFailureKind; message: string; status?: number; finalUrl?: string } };

const KINDS: ReadonlySet<string> = new Set<FetchFailureKind>([
  'malformed_url',
  'blocked_address',
  'robots_disallowed',
  'bot_wall',
  'timeout',
  'dns',
  'network',
  'http_status',
  'too_large',
  'non_html',
  'too_many_redirects',
]);

/** The direct entry's request, or null when the event is not one. */
export function parseRenderRequest(event: unknown): RenderDirectRequest | null {
  const { url, countryCode } = (event ?? {}) as Record<string, unknown>;
  if (typeof url !== 'string' || url.length === 0 || url.length > 8192) return null;
  if (countryCode !== undefined && typeof countryCode !== 'string') return null;
  return countryCode ? { url, countryCode } : { url };
}

/** What the direct entry answers: the page (body gzipped), or the FetchFailure it ended with. */
export function encodeRendered(outcome: { page: FetchedPage } | { error: unknown }): RenderDirectResponse {
  if ('page' in outcome) {
    const { body, bodyBytes: _bytes, ...rest } = outcome.page;
    return { page: { ...rest, bodyGzip: gzipSync(body).toString('base64') } };
  }
  const error = outcome.error;
  if (error instanceof FetchFailure)
    return { failure: { kind: error.kind, message: error.message.slice(0, 500), ...error.details } };
  return { failure: { kind: 'network', message: `the render failed: ${(error as Error)?.message}`.slice(0, 500) } };
}

/** The page from the direct entry's answer; rejects with the FetchFailure it carries (or a network one for anything else). */
export function decodeRendered(payload: unknown): FetchedPage {
  const answer = (payload ?? {}) as Partial<{ page: Record<string, unknown>; failure: Record<string, unknown> }>;
  if (answer.failure && KINDS.has(String(answer.failure.kind))) {
    const { kind, message, status, finalUrl } = answer.failure;
    throw new FetchFailure(kind as FetchFailureKind, String(message ?? ''), {
      ...(typeof status === 'number' ? { status } : {}),
      ...(typeof finalUrl === 'string' ? { finalUrl } : {}),
    });
  }
  const page = answer.page;
  if (
    !page ||
    typeof page.bodyGzip !== 'string' ||
    typeof page.finalUrl !== 'string' ||
    typeof page.status !== 'number'
  )
    throw new FetchFailure('network', 'the render function answered something else than a page');
  const { bodyGzip, ...rest } = page;
  return { ...(rest as Omit<FetchedPage, 'body'>), body: gunzipSync(Buffer.from(bodyGzip, 'base64')).toString('utf8') };
}
