// Pipeline behaviour that needs no store: public routes, unexpected failures, rendering.
import AWSXRay from 'aws-xray-sdk-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { defineRoute, presentedKey } from '../../lambdas/http/pipeline';
import { errorBody } from '../../lambdas/http/render';
import { setRequestLogSink, type RequestLogLine } from '../../lambdas/http/log';
import { AppError } from '../../lambdas/domain/errors';
import { storeFailure } from '../../lambdas/adapters/dynamodb/keys';
import { routesForPath, matchRoute } from '../../lambdas/http/match';
import { handler as fallback } from '../../lambdas/http/public/fallback';
import { enableTracing } from '../../lambdas/observability/tracing';

const event = (path: string, method = 'GET', extra: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: { requestId: 'req-123', http: { method, path } },
    ...extra,
  }) as unknown as APIGatewayProxyEventV2;
const context = {} as Context;
const invoke = async (h: unknown, e: APIGatewayProxyEventV2) =>
  (h as (e: APIGatewayProxyEventV2, c: Context) => Promise<any>)(e, context);

afterEach(() => setRequestLogSink(null));

describe('pipeline', () => {
  it('turns an unexpected failure into a generic 500 and logs the cause', async () => {
    const logs: RequestLogLine[] = [];
    setRequestLogSink((line) => logs.push(line));
    const broken = defineRoute('health', () => {
      throw new Error('connect ECONNREFUSED 10.1.2.3:8000 password=hunter2');
    });
    const result = await invoke(broken, event('/health'));
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body)).toEqual({ error: 'Internal server error', code: 'INTERNAL_ERROR' });
    expect(result.body).not.toContain('hunter2');
    expect(result.headers['request-id']).toBe('req-123');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ requestId: 'req-123', operationId: 'health', status: 500, code: 'INTERNAL_ERROR' });
    expect(logs[0].error).toContain('ECONNREFUSED');
  });

  it("logs a store failure's underlying error with its 500, and never answers it", async () => {
    const logs: RequestLogLine[] = [];
    setRequestLogSink((line) => logs.push(line));
    const refused = Object.assign(new Error('Invalid KeyConditionExpression: table pds-secret'), {
      name: 'ValidationException',
    });
    const failing = defineRoute('health', () => {
      throw storeFailure(refused);
    });
    const result = await invoke(failing, event('/health'));
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('pds-secret');
    expect(logs[0]).toMatchObject({
      status: 500,
      code: 'DB_ERROR',
      error: 'ValidationException: Invalid KeyConditionExpression: table pds-secret',
    });
    // A client error keeps no cause in its line (nothing unexpected happened).
    const invalid = defineRoute('health', () => {
      throw Object.assign(new AppError('INVALID_PARAMETER', 'bad'), { cause: refused });
    });
    await invoke(invalid, event('/health'));
    expect(logs[1]).toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
    expect(logs[1].error).toBeUndefined();
  });

  it('answers public routes without a key and sets JSON headers', async () => {
    const ok = defineRoute('health', () => ({ body: { status: 'ok' as const } }));
    const result = await invoke(ok, event('/health'));
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(result.body)).toEqual({ status: 'ok' });
  });

  it('reads the key from x-api-key or a Bearer authorization header', () => {
    expect(presentedKey({ 'x-api-key': ' abc ' })).toBe('abc');
    expect(presentedKey({ authorization: 'Bearer xyz' })).toBe('xyz');
    expect(presentedKey({ authorization: 'bearer  xyz ' })).toBe('xyz');
    expect(presentedKey({ authorization: 'Basic xyz' })).toBeUndefined();
    expect(presentedKey({})).toBeUndefined();
  });
});

describe('rendering', () => {
  const error = new AppError('INVALID_PARAMETER', 'urls.2 is not a URL', { invalid_urls: [{ index: 2 }] }, 'see docs');
  it('uses the family shapes', () => {
    expect(errorBody('legacy', error, 'r1')).toEqual({
      error: 'urls.2 is not a URL',
      details: 'see docs',
      code: 'INVALID_PARAMETER',
    });
    expect(errorBody('v1', error, 'r1')).toEqual({
      error: 'urls.2 is not a URL',
      details: 'see docs',
      code: 'INVALID_PARAMETER',
    });
    expect(errorBody('v2', error, 'r1')).toEqual({
      error: { code: 'INVALID_PARAMETER', message: 'urls.2 is not a URL', request_id: 'r1' },
      invalid_urls: [{ index: 2 }],
    });
    expect(errorBody('v2', new AppError('UNAUTHORIZED', 'Invalid API key'), 'r1')).toEqual({
      error: 'Invalid API key',
      status: 401,
    });
  });
});

describe('route matching and fallback', () => {
  it('prefers literal segments and decodes parameters', () => {
    expect(matchRoute('GET', '/v1/products')?.route.operationId).toBe('v1ProductsList');
    expect(matchRoute('GET', '/v1/products/a%20b')).toMatchObject({
      route: { operationId: 'v1ProductsStatus' },
      pathParameters: { execution_id: 'a b' },
    });
    expect(matchRoute('POST', '/v1/products/x')).toBeNull();
    expect(
      routesForPath('/v2/extract/x')
        .map((m) => m.route.method)
        .sort(),
    ).toEqual(['DELETE', 'GET']);
  });

  it('answers 404 and 405 by path prefix', async () => {
    setRequestLogSink(() => undefined);
    const notFound = await invoke(fallback, event('/v2/nope'));
    expect(notFound.statusCode).toBe(404);
    expect(JSON.parse(notFound.body).error.code).toBe('NOT_FOUND');
    const wrongMethod = await invoke(fallback, event('/api/usage', 'POST'));
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET');
    expect(JSON.parse(wrongMethod.body)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });
});

describe('tracing on Lambda', () => {
  it("runs each request in Powertools' handler subsegment, annotated; refusals are answers, failures faults", async () => {
    setRequestLogSink(() => undefined);
    // Powertools Tracer stays dormant outside a Lambda execution environment.
    process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs22.x';
    try {
      const tracer = (await enableTracing(true))!;
      const started = defineRoute('health', () => ({ body: { execution_id: 'extract-urls-7' } as never }));
      const refused = defineRoute('health', () => {
        throw new AppError('NOT_FOUND', 'No execution extract-urls-8');
      });
      const broken = defineRoute('health', () => {
        throw new Error('boom');
      });
      await AWSXRay.getNamespace().runPromise(async () => {
        const parent = new AWSXRay.Segment('function');
        tracer.setSegment(parent);
        expect((await invoke(started, event('/health'))).statusCode).toBe(200);
        expect((await invoke(refused, event('/health'))).statusCode).toBe(404);
        expect((await invoke(broken, event('/health'))).statusCode).toBe(500);
        expect(tracer.getSegment()).toBe(parent);
        const [ok, notFound, failed] = parent.subsegments as unknown as Array<{
          annotations: Record<string, unknown>;
          fault?: boolean;
          error?: boolean;
          in_progress?: boolean;
        }>;
        expect(ok.annotations).toMatchObject({ operation: 'health', execution_id: 'extract-urls-7' });
        expect(ok.in_progress).toBeFalsy();
        expect(notFound.annotations).toMatchObject({ operation: 'health' });
        expect(notFound.fault || notFound.error).toBeFalsy();
        expect(notFound.in_progress).toBeFalsy();
        expect(failed.fault || failed.error).toBe(true);
        expect(failed.in_progress).toBeFalsy();
      });
    } finally {
      delete process.env.AWS_EXECUTION_ENV;
    }
  });
});
