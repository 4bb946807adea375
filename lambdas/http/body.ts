// JSON request bodies: middy's @middy/http-json-body-parser, with our limits in front of it.
//   size        over BODY_LIMIT_BYTES: 413 PAYLOAD_TOO_LARGE, on every route (GET and DELETE too)
//   empty       a blank body reads as {} (whatever its Content-Type)
//   media type  application/json or application/*+json, else 415 UNSUPPORTED_MEDIA_TYPE, on every
//               POST (one that takes no body included)
//   nesting     deeper than MAX_JSON_DEPTH: 400 INVALID_PARAMETER, before anything recursive sees it
//   malformed   400 INVALID_PARAMETER in our words (only the position is taken from the parser)
// A route without a body contract gets the size and media type rules only (ignoredBody): what
// it is sent is never parsed.
import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError } from '../domain/errors';

/** Larger bodies get 413 PAYLOAD_TOO_LARGE (1 MiB: 1000 URLs of 1 KB each still fit). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Deepest array/object nesting allowed in a JSON body; real requests use 4 or 5 levels. */
export const MAX_JSON_DEPTH = 64;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

type BodyRequest = middy.Request<APIGatewayProxyEventV2>;

/**
 * The deepest [ / { nesting of a JSON text, scanning characters only (no recursion), stopping as
 * soon as it passes `stopAbove`. Brackets inside strings do not count.
 */
export function jsonNestingDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** The body's decoded text; 413 when it is over the limit. */
function sizedText(event: APIGatewayProxyEventV2): string {
  const raw = event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (raw.length > BODY_LIMIT_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${BODY_LIMIT_BYTES} bytes`);
  }
  return raw.toString('utf8');
}

function checkMediaType(event: APIGatewayProxyEventV2): void {
  const contentType = event.headers?.['content-type'] ?? '';
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be application/json${contentType ? `, got ${contentType.split(';')[0].trim()}` : ''}`,
    );
  }
}

/** Size, emptiness, media type and nesting, checked on the decoded text the parser then reads. */
function checkBody(request: BodyRequest): void {
  const { event } = request;
  const text = sizedText(event);
  event.isBase64Encoded = false;
  event.body = text.trim() ? text : '{}';
  if (!text.trim()) return;
  checkMediaType(event);
  if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new AppError('INVALID_PARAMETER', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** "__proto__" keys are dropped: later copies ({...body}, records) must not reach a prototype. */
const dropProtoKeys = (key: string, value: unknown): unknown => (key === '__proto__' ? undefined : value);

// The media type is judged by checkBody, by our (case-insensitive) rule.
const PARSER_OPTIONS = { disableContentTypeCheck: true, reviver: dropProtoKeys };
const PARSER_PACKAGE = '@middy/http-json-body-parser';

/** The parser's refusal of malformed JSON as our 400, or null for any other error. */
export function malformedJson(error: unknown): AppError | null {
  const cause = (error as { cause?: { package?: string; message?: string } } | null)?.cause;
  if (cause?.package !== PARSER_PACKAGE) return null;
  const at = /position (\d+)/.exec(cause.message ?? '')?.[1];
  return new AppError('INVALID_PARAMETER', `Malformed JSON in request body${at ? ` at character ${at}` : ''}`);
}

/** The body middlewares, in order: our checks, then middy's parser (event.body becomes the value). */
export const jsonBody = (): middy.MiddlewareObj<APIGatewayProxyEventV2>[] => [
  { before: checkBody },
  httpJsonBodyParser<APIGatewayProxyEventV2>(PARSER_OPTIONS),
];

/**
 * The body rules of a route that takes no body: the size on every method, the media type on a
 * POST that was sent one. The body itself is never parsed.
 */
export const ignoredBody = (method: string): middy.MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: ({ event }) => {
    const text = sizedText(event);
    if (method === 'POST' && text.trim()) checkMediaType(event);
  },
});
