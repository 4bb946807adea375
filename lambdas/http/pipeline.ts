// The shared HTTP pipeline, a middy chain configured per route from the route table:
//   request state -> tracing (Powertools) -> request line -> family-shaped errors -> auth
//   (x-api-key | Bearer) and scope -> rate limit -> Idempotency-Key -> JSON body (our limits,
//   then @middy/http-json-body-parser; without a body contract the limits only) -> validation
//   (zod contract) -> the route's implementation,
// with usage metering of every authenticated call and one JSON log line per request.
import { randomUUID } from 'node:crypto';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyHandlerV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { AppError } from '../domain/errors';
import { authenticateKey, type Principal } from '../domain/accounts/service';
import type { RateLimitPolicy } from '../domain/ratelimit/policy';
import { ROUTES, type Family, type Route, type Scope } from '../topology/routes';
import { requestOf, type OperationId, type OperationRequest, type RequestOf } from '../contracts/requests';
import { getContainer, type Container } from '../composition/container';
import { logRequest, logWarning, requestLogWanted } from './log';
import { ignoredBody, jsonBody, malformedJson } from './body';
import { ANNOTATIONS, activeTracer, annotate, executionIdInBody, prepareTracing } from '../observability/tracing';
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

/** What the middlewares learn about one request; the handler reads it from its Lambda context. */
interface RequestState {
  route: Route;
  requestId: string;
  startedAt: number;
  deps?: Container;
  principal?: Principal;
  input?: { body: unknown; query: unknown; params: unknown };
  /** Headers of an error response (a refused call's retry-after). */
  errorHeaders: Record<string, string>;
  /** A start operation's valid Idempotency-Key header, when sent. */
  idempotencyKey?: string;
  /**
   * The usage write, started as soon as the caller is known and awaited before responding;
   * absent when the meter has nothing to wait for (write-behind).
   */
  metering?: Promise<void>;
}

type PipelineContext = Context & { pipeline: RequestState };
type PipelineRequest = middy.Request<APIGatewayProxyEventV2, HttpResult, Error, PipelineContext>;
type Middleware = middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult, Error, PipelineContext>;

const routeByOperation = new Map(ROUTES.map((route) => [route.operationId, route]));

export function routeOf(operationId: string): Route {
  const route = routeByOperation.get(operationId);
  if (!route) throw new Error(`No route with operationId ${operationId} in lambdas/topology/routes.ts`);
  return route;
}

// ---- per-process cache of organization rate-limit overrides (rarely changed, read per call) ----
const ORG_CACHE_MS = 30_000;
const ORG_CACHE_MAX = 10_000;
const orgPolicies = new Map<string, { policy: RateLimitPolicy | undefined; until: number }>();

async function policyFor(deps: Container, org: string, nowMs: number): Promise<RateLimitPolicy> {
  const cached = orgPolicies.get(org);
  if (cached && cached.until > nowMs) return cached.policy ?? deps.config.rateLimit;
  const organization = await deps.accounts.getOrganization(org);
  if (orgPolicies.size >= ORG_CACHE_MAX) orgPolicies.clear();
  orgPolicies.set(org, { policy: organization?.rateLimit, until: nowMs + ORG_CACHE_MS });
  return organization?.rateLimit ?? deps.config.rateLimit;
}

/** Forgets cached per-organization rate limits (after an override changes). */
export const clearOrganizationCache = () => orgPolicies.clear();

export function presentedKey(headers: APIGatewayProxyEventV2['headers']): string | undefined {
  const apiKey = headers?.['x-api-key']?.trim();
  if (apiKey) return apiKey;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(headers?.authorization ?? '');
  return match?.[1];
}

// ---- middlewares, in the order of the chain ----

/** The request's id, start time and state, on the Lambda context every later step reads. */
const requestState = (route: Route): Middleware => ({
  before: (request) => {
    request.context.pipeline = {
      route,
      requestId: request.event?.requestContext?.requestId || randomUUID(),
      startedAt: Date.now(),
      errorHeaders: {},
    };
  },
});

/** The tracer when tracing is on (loading it then); a config error surfaces later in the pipeline. */
async function tracerIfOn() {
  try {
    if (!activeTracer() && !getContainer().config.tracing) return undefined;
    await prepareTracing(getContainer());
  } catch {}
  return activeTracer();
}

/**
 * On Lambda each request runs in Powertools' handler subsegment (captureLambdaHandler) annotated
 * with the operation, the execution id (path, or a start's response) and, after auth, the
 * organization; refusals (AppError) are answers, not faults. Off Lambda nothing is loaded.
 */
const tracing = (operationId: string): Middleware => {
  let capture: Middleware | undefined;
  const close = (request: PipelineRequest) => {
    if (!capture) return;
    annotate({ [ANNOTATIONS.executionId]: executionIdInBody(request.response?.body) });
    return request.error && !(request.error instanceof AppError) ? capture.onError!(request) : capture.after!(request);
  };
  return {
    before: async (request) => {
      const tracer = await tracerIfOn();
      if (!tracer) return;
      capture ??= captureLambdaHandler(tracer, { captureResponse: false }) as Middleware;
      await capture.before!(request);
      annotate({
        [ANNOTATIONS.operation]: operationId,
        [ANNOTATIONS.executionId]: request.event.pathParameters?.execution_id,
      });
    },
    after: (request) => close(request as PipelineRequest),
    onError: (request) => close(request as PipelineRequest),
  };
};

/** After the answer: the metering awaited, the request counted in metrics and logged. */
const requestLine = (): Middleware => {
  const finish = async (request: PipelineRequest) => {
    const state = request.context.pipeline;
    const status = request.response?.statusCode ?? 500;
    // Awaited (a Lambda may freeze after returning) but a metering failure never fails the request.
    if (state.metering) await state.metering;
    recordRequest(state.deps?.metrics, state.route.family, status, Date.now() - state.startedAt);
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    if (!requestLogWanted(level)) return;
    const { error } = request;
    const cause = logCause(error);
    logRequest({
      level,
      requestId: state.requestId,
      operationId: state.route.operationId,
      method: request.event.requestContext?.http?.method ?? state.route.method,
      path: request.event.rawPath ?? state.route.path,
      status,
      ms: Date.now() - state.startedAt,
      ...(state.principal ? { org: state.principal.org } : {}),
      ...(error ? { code: answeredError(error).code } : {}),
      ...(cause ? { error: cause } : {}),
    });
  };
  return { after: finish, onError: finish };
};

/** What the log line says of a failure's real cause: an unexpected error's, or a server error's underlying one (a store failure's). */
function logCause(error: unknown): string | undefined {
  if (!error || malformedJson(error)) return undefined;
  const cause = error instanceof AppError ? (error.status >= 500 ? error.cause : undefined) : error;
  if (cause === undefined) return undefined;
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}

/** Any failure as the AppError the client is told about. */
const answeredError = (error: unknown): AppError => malformedJson(error) ?? toAppError(error);

/** Failures as the family's error body (render.ts); internals never reach the client. */
const familyErrors = (): Middleware => ({
  onError: (request) => {
    const state = request.context.pipeline;
    request.response = errorResult(
      state.route.family,
      answeredError(request.error),
      state.requestId,
      state.errorHeaders,
    );
  },
});

/** The caller from x-api-key or Bearer, counted once whatever the outcome, then its scope checked. */
const authenticate = (): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const { route } = state;
    if (route.scope === null) return;
    const key = presentedKey(request.event.headers);
    if (!key) throw new AppError('UNAUTHORIZED', AUTH_REQUIRED_MESSAGE);
    const deps = (state.deps ??= getContainer());
    const principal = await authenticateKey(deps.accounts, key);
    if (!principal) throw new AppError('UNAUTHORIZED', INVALID_KEY_MESSAGE);
    state.principal = principal;
    annotate({ [ANNOTATIONS.organization]: principal.org });
    // The usage write runs alongside the rest of the request and is awaited before the answer
    // (requestLine); written behind the response (a long-lived process), there is nothing to wait for.
    const writing = deps.meter.record(principal.org, route.path, new Date());
    if (writing) state.metering = writing.catch((error) => logWarning(state.requestId, 'usage metering failed', error));
    if (!principal.scopes.includes(route.scope)) {
      throw new AppError(
        'FORBIDDEN',
        `This API key lacks the "${route.scope}" scope required by ${route.method} ${route.path}`,
      );
    }
  },
});

/** One token of the key's bucket, under its organization's policy (leased tokens come back at once). */
const rateLimit = (): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    if (!state.principal || !state.deps) return;
    const policy = await policyFor(state.deps, state.principal.org, Date.now());
    // Read the clock right before the bucket update: a stale time would look like a burst.
    const decision = await state.deps.rateLimits.take(state.principal.keyId, policy, Date.now());
    if (decision.allowed) return;
    state.errorHeaders['retry-after'] = String(decision.retryAfterSeconds);
    throw new AppError(
      'RATE_LIMITED',
      `Rate limit exceeded (${policy.ratePerSecond} requests/s, burst ${policy.burst}); retry after ${decision.retryAfterSeconds} s`,
      {},
      `Retry after ${decision.retryAfterSeconds} seconds`,
    );
  },
});

/** A start operation's Idempotency-Key header, when sent, must be valid. */
const idempotencyKey = (): Middleware => ({
  before: (request) => {
    const key = request.event.headers?.[IDEMPOTENCY_HEADER];
    if (key === undefined) return;
    const problem = idempotencyKeyProblem(key);
    if (problem) throw new AppError('INVALID_PARAMETER', problem, { parameter: 'Idempotency-Key' });
    request.context.pipeline.idempotencyKey = key;
  },
});

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

/** The body (parsed by jsonBody), path and query against the operation's zod contract. */
const validation = (contract: OperationRequest): Middleware => ({
  before: (request) => {
    const { event } = request;
    const body = contract.body ? validate(contract.body, event.body as unknown, 'body') : {};
    request.context.pipeline.input = {
      params: validate(contract.params, event.pathParameters ?? {}, 'path'),
      query: validate(contract.query, event.queryStringParameters ?? {}, 'query'),
      body,
    };
  },
});

// ---- the handler ----

/** A start with an Idempotency-Key runs once per organization and key; a repeat replays it. */
async function runOnce(
  state: RequestState,
  key: string,
  run: () => Promise<RouteResult & { status: number }>,
  lambdaContext: Context,
): Promise<HttpResult> {
  let serialized: string | undefined;
  const result = await state.deps!.idempotency.run(
    { org: state.principal!.org, key, operation: state.route.operationId, body: state.input?.body ?? {} },
    async () => {
      const made = await run();
      serialized = made.serialized;
      return { status: made.status, body: made.body, headers: made.headers };
    },
    lambdaContext.getRemainingTimeInMillis?.(),
  );
  return jsonResult(
    result.status,
    result.body,
    state.requestId,
    { ...result.headers, ...(result.replayed ? { [REPLAYED_HEADER]: 'true' } : {}) },
    // A replay answers the stored body, not the text made by this call.
    result.replayed ? undefined : serialized,
  );
}

function routeHandler<Op extends OperationId>(impl: RouteImpl<Op>) {
  return async (_event: APIGatewayProxyEventV2, lambdaContext: PipelineContext): Promise<HttpResult> => {
    const state = lambdaContext.pipeline;
    const deps = (state.deps ??= getContainer());
    // A call counts itself: usage read by this very call already includes it. Other routes do
    // not wait for the write here; requestLine awaits it before answering.
    if (state.route.scope === 'usage' && state.metering) await state.metering;
    const principal = state.principal ?? { org: '', keyId: '', scopes: [] };
    const context: RouteContext = {
      org: principal.org,
      keyId: principal.keyId,
      scopes: principal.scopes,
      requestId: state.requestId,
      family: state.route.family,
      route: state.route,
      deps,
      now: new Date(state.startedAt),
    };
    const run = async () => {
      const made = await impl(state.input as RequestOf<Op>, context);
      // A start answering 202 says so (its contract documents it); every other success is 200.
      return { ...made, status: made.status ?? 200 };
    };
    if (state.idempotencyKey !== undefined && state.principal) {
      return runOnce(state, state.idempotencyKey, run, lambdaContext);
    }
    const result = await run();
    return jsonResult(result.status, result.body, state.requestId, result.headers, result.serialized);
  };
}

/** The Lambda handler of one operation: the pipeline around `impl`. */
export function defineRoute<Op extends OperationId>(operationId: Op, impl: RouteImpl<Op>): APIGatewayProxyHandlerV2 {
  const route = routeOf(operationId);
  const contract: OperationRequest = requestOf(operationId);
  const handler = middy<APIGatewayProxyEventV2, HttpResult, Error, PipelineContext>()
    .use(requestState(route))
    .use(tracing(operationId))
    .use(requestLine())
    .use(familyErrors())
    .use(authenticate())
    .use(rateLimit())
    .use(IDEMPOTENT_OPERATIONS.has(operationId) ? [idempotencyKey()] : [])
    .use(contract.body ? (jsonBody() as Middleware[]) : (ignoredBody(route.method) as Middleware))
    .use(validation(contract))
    .handler(routeHandler(impl));
  return handler as unknown as APIGatewayProxyHandlerV2;
}
