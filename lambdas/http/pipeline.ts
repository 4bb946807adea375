// The shared HTTP pipeline (middy), configured per route from the route table:
//   request id -> auth (x-api-key | Bearer) -> scope -> rate limit -> body (size, media type,
//   JSON) -> validation (zod contract) -> the route's implementation -> family-shaped response,
// with usage metering of every authenticated call and one JSON log line per request.
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyHandlerV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { AppError } from '../domain/errors';
import { authenticateKey, knownPrincipal, type Principal } from '../domain/accounts/service';
import type { RateDecision, RateLimitPolicy } from '../domain/ratelimit/policy';
import { ROUTES, type Family, type Route, type Scope } from '../topology/routes';
import { CONTRACTS, type OperationContract, type OperationId, type RequestOf } from '../contracts/operations';
import { getContainer, type Container } from '../composition/container';
import { logRequest, logWarning, requestLogWanted } from './log';
import {
  ANNOTATIONS,
  activeTracer,
  annotate,
  executionIdInBody,
  prepareTracing,
  traced,
} from '../observability/tracing';
import { recordRequest } from '../observability/api-metrics';
import {
  IDEMPOTENCY_HEADER,
  IDEMPOTENT_OPERATIONS,
  idempotencyKeyProblem,
  REPLAYED_HEADER,
} from '../contracts/idempotency';
import {
  AUTH_REQUIRED_MESSAGE,
  errorResult,
  INVALID_KEY_MESSAGE,
  jsonResult,
  toAppError,
  type HttpResult,
} from './render';

/** Larger bodies get 413 PAYLOAD_TOO_LARGE (1 MiB: 1000 URLs of 1 KB each still fit). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface RouteContext {
  org: string;
  keyId: string;
  scopes: Scope[];
  requestId: string;
  family: Family;
  route: Route;
  deps: Container;
  /** Request time, fixed once per request. */
  now: Date;
}

export interface RouteResult<B = unknown> {
  status?: number;
  body: B;
  headers?: Record<string, string>;
  /** JSON.stringify(body), when the route keeps it with cached data (render.ts serializedOnce). */
  serialized?: string;
}

export type RouteImpl<Op extends OperationId> = (
  request: RequestOf<Op>,
  context: RouteContext,
) => Promise<RouteResult> | RouteResult;

interface PipelineState {
  route: Route;
  requestId: string;
  startedAt: number;
  deps?: Container;
  principal?: { org: string; keyId: string; scopes: Scope[] };
  input?: { body: unknown; query: unknown; params: unknown };
  extraHeaders: Record<string, string>;
  /** A start operation's valid Idempotency-Key header, when sent. */
  idempotencyKey?: string;
  /**
   * The usage write, started as soon as the caller is known and awaited before responding;
   * absent when the meter has nothing to wait for (write-behind).
   */
  metering?: Promise<void>;
}

type PipelineRequest = middy.Request<APIGatewayProxyEventV2, HttpResult, Error, Context> & { state: PipelineState };

const routeByOperation = new Map(ROUTES.map((route) => [route.operationId, route]));

export function routeOf(operationId: string): Route {
  const route = routeByOperation.get(operationId);
  if (!route) throw new Error(`No route with operationId ${operationId} in lambdas/topology/routes.ts`);
  return route;
}

/** The principal of a public route (no key). */
const ANONYMOUS: Principal = Object.freeze({ org: '', keyId: '', scopes: [] as Scope[] });

// ---- per-process cache of organization rate-limit overrides (rarely changed, read per call) ----
const ORG_CACHE_MS = 30_000;
const ORG_CACHE_MAX = 10_000;
const orgPolicies = new Map<string, { policy: RateLimitPolicy | undefined; until: number }>();

/** The organization's policy when the cache has it, else undefined (then policyFor reads it). */
function cachedPolicy(deps: Container, org: string, nowMs: number): RateLimitPolicy | undefined {
  const cached = orgPolicies.get(org);
  return cached && cached.until > nowMs ? (cached.policy ?? deps.config.rateLimit) : undefined;
}

async function policyFor(deps: Container, org: string, nowMs: number): Promise<RateLimitPolicy> {
  const cached = cachedPolicy(deps, org, nowMs);
  if (cached) return cached;
  const organization = await deps.accounts.getOrganization(org);
  if (orgPolicies.size >= ORG_CACHE_MAX) orgPolicies.clear();
  orgPolicies.set(org, { policy: organization?.rateLimit, until: nowMs + ORG_CACHE_MS });
  return organization?.rateLimit ?? deps.config.rateLimit;
}

/** Forgets cached per-organization rate limits (after an override changes). */
export const clearOrganizationCache = () => orgPolicies.clear();

// ---- request parts ----
export function presentedKey(headers: APIGatewayProxyEventV2['headers']): string | undefined {
  const apiKey = headers?.['x-api-key']?.trim();
  if (apiKey) return apiKey;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(headers?.authorization ?? '');
  return match?.[1];
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

function readBody(event: APIGatewayProxyEventV2): unknown {
  const raw =
    event.body === undefined || event.body === null
      ? Buffer.alloc(0)
      : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (raw.length > BODY_LIMIT_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${BODY_LIMIT_BYTES} bytes`);
  }
  const text = raw.toString('utf8');
  if (!text.trim()) return {};
  const contentType = event.headers?.['content-type'] ?? '';
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be application/json${contentType ? `, got ${contentType.split(';')[0].trim()}` : ''}`,
    );
  }
  // Recursive steps (JSON.parse, zod, renderers) must never meet unbounded nesting.
  if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new AppError('INVALID_PARAMETER', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    // "__proto__" keys are dropped: later copies ({...body}, records) must not reach a prototype.
    return text.includes('"__proto__"') ? JSON.parse(text, dropProtoKeys) : JSON.parse(text);
  } catch (error) {
    // Our words, not the parser's: only the position is taken from it.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new AppError('INVALID_PARAMETER', `Malformed JSON in request body${at ? ` at character ${at}` : ''}`);
  }
}

/** Deepest array/object nesting allowed in a JSON body; real requests use 4 or 5 levels. */
export const MAX_JSON_DEPTH = 64;

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

function dropProtoKeys(key: string, value: unknown): unknown {
  return key === '__proto__' ? undefined : value;
}

function describeIssue(issue: z.core.$ZodIssue, where: string): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined && path) {
    return `${path} is required`;
  }
  if (!path) return where === 'body' ? issue.message : `${where}: ${issue.message}`;
  const root = String(issue.path[0]);
  // Our contract messages already name the field ("page_size must be ..."); zod's defaults do not.
  return issue.message.includes(root) ? issue.message : `${path}: ${issue.message}`;
}

function validate(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return {};
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  const message = describeIssue(parsed.error.issues[0], where);
  const parameter = parsed.error.issues[0].path.map(String).join('.') || undefined;
  throw new AppError('INVALID_PARAMETER', message, parameter ? { parameter } : {});
}

/** Valid queries remembered per route; past this many the memo starts again. */
const QUERY_MEMO_MAX = 256;

/** The query's parameters as one string (names and values, in their order). */
function queryKey(raw: Record<string, string | undefined> | undefined): string {
  let key = '';
  if (raw) for (const name of Object.keys(raw)) key += `${name}\u0000${raw[name] ?? ''}\u0001`;
  return key;
}

/**
 * The query validated by `schema`, remembered per route by its parameters: the contracts' query
 * schemas are pure (static defaults, no clock), so a query seen before is not parsed again. Only
 * valid queries whose values are all primitives are kept; each call gets its own copy.
 */
function validQuery(
  schema: z.ZodType | undefined,
  raw: Record<string, string | undefined> | undefined,
  memo: Map<string, Record<string, unknown>>,
): unknown {
  if (!schema) return {};
  const key = queryKey(raw);
  const known = memo.get(key);
  if (known) return { ...known };
  const value = validate(schema, raw ?? {}, 'query') as Record<string, unknown>;
  if (value && typeof value === 'object' && Object.values(value).every((v) => v === null || typeof v !== 'object')) {
    if (memo.size >= QUERY_MEMO_MAX) memo.clear();
    memo.set(key, value);
    return { ...value };
  }
  return value;
}

// ---- middlewares ----
const finalize = (): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult, Error, Context> => {
  const finish = async (
    request: PipelineRequest,
    result: HttpResult,
    failure?: { error: unknown; appError: AppError },
  ) => {
    const { state } = request;
    // Awaited (a Lambda may freeze after returning) but a metering failure never fails the request.
    if (state.metering) await state.metering;
    const unexpected = failure && !(failure.error instanceof AppError);
    recordRequest(state.deps?.metrics, state.route.family, result.statusCode, Date.now() - state.startedAt);
    const level = result.statusCode >= 500 ? 'error' : result.statusCode >= 400 ? 'warn' : 'info';
    if (!requestLogWanted(level)) return;
    logRequest({
      level,
      requestId: state.requestId,
      operationId: state.route.operationId,
      method: request.event.requestContext?.http?.method ?? state.route.method,
      path: request.event.rawPath ?? state.route.path,
      status: result.statusCode,
      ms: Date.now() - state.startedAt,
      ...(state.principal ? { org: state.principal.org } : {}),
      ...(failure ? { code: failure.appError.code } : {}),
      ...(unexpected
        ? {
            error:
              failure.error instanceof Error
                ? `${failure.error.name}: ${failure.error.message}`
                : String(failure.error),
          }
        : {}),
    });
  };
  return {
    after: async (request) => {
      const r = request as PipelineRequest;
      if (r.response) await finish(r, r.response);
    },
    onError: async (request) => {
      const r = request as PipelineRequest;
      const appError = toAppError(r.error);
      const response = errorResult(r.state.route.family, appError, r.state.requestId, r.state.extraHeaders);
      r.response = response;
      await finish(r, response, { error: r.error, appError });
    },
  };
};

/** The caller is known (or refused): count the call, check the scope. */
function admitPrincipal(state: PipelineState, principal: Principal | null): void {
  if (!principal) throw new AppError('UNAUTHORIZED', INVALID_KEY_MESSAGE);
  const { route, deps } = state;
  state.principal = principal;
  if (activeTracer()) annotate({ [ANNOTATIONS.organization]: principal.org });
  // Every authenticated call counts once, whatever its outcome; the write runs alongside the
  // rest of the request and is awaited before the response (see finalize). Written behind the
  // response (a long-lived process), there is nothing to wait for.
  const writing = deps!.meter.record(principal.org, route.path, new Date());
  if (writing) state.metering = writing.catch((error) => logWarning(state.requestId, 'usage metering failed', error));
  if (route.scope && !principal.scopes.includes(route.scope)) {
    throw new AppError(
      'FORBIDDEN',
      `This API key lacks the "${route.scope}" scope required by ${route.method} ${route.path}`,
    );
  }
}

// The request steps below answer synchronously when what they need is cached (a known key, its
// organization's policy, a leased token), so a steady caller's request waits on no promise there.
const authenticate = (): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult, Error, Context> => ({
  before: (request) => {
    const { state, event } = request as PipelineRequest;
    if (state.route.scope === null) return;
    const key = presentedKey(event.headers);
    if (!key) throw new AppError('UNAUTHORIZED', AUTH_REQUIRED_MESSAGE);
    const deps = (state.deps ??= getContainer());
    const known = knownPrincipal(deps.accounts, key);
    if (known !== undefined) return admitPrincipal(state, known);
    return authenticateKey(deps.accounts, key).then((principal) => admitPrincipal(state, principal));
  },
});

function judge(state: PipelineState, policy: RateLimitPolicy, decision: RateDecision): void {
  if (decision.allowed) return;
  state.extraHeaders['retry-after'] = String(decision.retryAfterSeconds);
  throw new AppError(
    'RATE_LIMITED',
    `Rate limit exceeded (${policy.ratePerSecond} requests/s, burst ${policy.burst}); retry after ${decision.retryAfterSeconds} s`,
    {},
    `Retry after ${decision.retryAfterSeconds} seconds`,
  );
}

function takeToken(state: PipelineState, policy: RateLimitPolicy): void | Promise<void> {
  // Read the clock right before the bucket update: a stale time would look like a burst.
  const decision = state.deps!.rateLimits.take(state.principal!.keyId, policy, Date.now());
  if (decision instanceof Promise) return decision.then((d) => judge(state, policy, d));
  judge(state, policy, decision);
}

const rateLimit = (): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult, Error, Context> => ({
  before: (request) => {
    const { state } = request as PipelineRequest;
    if (!state.principal || !state.deps) return;
    const policy = cachedPolicy(state.deps, state.principal.org, Date.now());
    if (policy) return takeToken(state, policy);
    return policyFor(state.deps, state.principal.org, Date.now()).then((read) => takeToken(state, read));
  },
});

const parseAndValidate = (
  contract: OperationContract,
  validQueries: Map<string, Record<string, unknown>>,
): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult, Error, Context> => ({
  before: (request) => {
    const { state, event } = request as PipelineRequest;
    if (IDEMPOTENT_OPERATIONS.has(state.route.operationId)) {
      const key = event.headers?.[IDEMPOTENCY_HEADER];
      if (key !== undefined) {
        const problem = idempotencyKeyProblem(key);
        if (problem) throw new AppError('INVALID_PARAMETER', problem, { parameter: 'Idempotency-Key' });
        state.idempotencyKey = key;
      }
    }
    const body = contract.body ? validate(contract.body, readBody(event), 'body') : {};
    state.input = {
      params: validate(contract.params, event.pathParameters ?? {}, 'path'),
      query: validQuery(contract.query, event.queryStringParameters, validQueries),
      body,
    };
  },
});

/** The Lambda handler of one operation: the pipeline around `impl`. */
export function defineRoute<Op extends OperationId>(operationId: Op, impl: RouteImpl<Op>): APIGatewayProxyHandlerV2 {
  const route = routeOf(operationId);
  const contract: OperationContract = CONTRACTS[operationId];

  const core = async (event: APIGatewayProxyEventV2, lambdaContext: Context): Promise<HttpResult> => {
    const { state } = current.get(event)!;
    const deps = (state.deps ??= getContainer());
    // A call counts itself: usage read by this very call already includes it. Other routes do
    // not wait for the write here; finalize awaits it before answering.
    if (route.scope === 'usage' && state.metering) await state.metering;
    const principal = state.principal ?? ANONYMOUS;
    const context: RouteContext = {
      org: principal.org,
      keyId: principal.keyId,
      scopes: principal.scopes,
      requestId: state.requestId,
      family: route.family,
      route,
      deps,
      now: new Date(state.startedAt),
    };
    // A start with an Idempotency-Key runs once per organization and key; a repeat replays it.
    if (state.idempotencyKey !== undefined && state.principal !== undefined) {
      let serialized: string | undefined;
      const result = await deps.idempotency.run(
        { org: principal.org, key: state.idempotencyKey, operation: operationId, body: state.input?.body ?? {} },
        async () => {
          const made = await impl(state.input as RequestOf<Op>, context);
          serialized = made.serialized;
          return { status: made.status ?? contract.success.status, body: made.body, headers: made.headers };
        },
        lambdaContext?.getRemainingTimeInMillis?.(),
      );
      return jsonResult(
        result.status,
        result.body,
        state.requestId,
        { ...state.extraHeaders, ...result.headers, ...(result.replayed ? { [REPLAYED_HEADER]: 'true' } : {}) },
        // A replay answers the stored body, not the text made by this call.
        result.replayed ? undefined : serialized,
      );
    }
    const result = await impl(state.input as RequestOf<Op>, context);
    return jsonResult(
      result.status ?? contract.success.status,
      result.body,
      state.requestId,
      result.headers ? { ...state.extraHeaders, ...result.headers } : state.extraHeaders,
      result.serialized,
    );
  };

  // The middy request object is not passed to the base handler; find the state by event.
  const current = new WeakMap<object, { state: PipelineState }>();
  const handler = middy<APIGatewayProxyEventV2, HttpResult, Error, Context>(core, {
    requestStart: (request: middy.Request) => {
      const state: PipelineState = {
        route,
        requestId: request.event?.requestContext?.requestId || randomUUID(),
        startedAt: Date.now(),
        extraHeaders: {},
      };
      (request as PipelineRequest).state = state;
      current.set(request.event, { state });
    },
  } as middy.PluginObject)
    .use(finalize())
    .use(authenticate())
    .use(rateLimit())
    .use(parseAndValidate(contract, new Map()));

  // On Lambda each request runs in an X-Ray subsegment carrying the operation, the execution id
  // of status/cancel paths and (after auth) the organization; locally tracing is off.
  // (A start operation's new id is read from its response.) A config error surfaces in the pipeline.
  const tracedHandler = async (event: APIGatewayProxyEventV2, lambdaContext: Context) => {
    let untraced = false;
    try {
      // Untraced (the local service): the pipeline alone, no subsegment machinery per request.
      untraced = !activeTracer() && !getContainer().config.tracing;
      if (!untraced) await prepareTracing(getContainer());
    } catch {}
    if (untraced) return handler(event, lambdaContext);
    const annotations = {
      [ANNOTATIONS.operation]: operationId,
      [ANNOTATIONS.executionId]: event.pathParameters?.execution_id,
    };
    return traced(`## ${operationId}`, annotations, async () => {
      const result = await handler(event, lambdaContext);
      // Only with tracing on: scanning every body costs the untraced local service for nothing.
      if (activeTracer()) annotate({ [ANNOTATIONS.executionId]: executionIdInBody(result?.body) });
      return result;
    });
  };
  return tracedHandler as unknown as APIGatewayProxyHandlerV2;
}
