// The local API Gateway stand-in: the payload 2.0 event it builds, the Lambda context, and how
// it writes results (headers, cookies, base64 bodies), checked with a capturing handler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { startHttpServer, type LocalHandler, type RunningHttpServer } from '../../lambdas/local/http-server';

const LONG_BODY = JSON.stringify({
  data: Array.from({ length: 80 }, (_, i) => ({ vendor: `shop-${i}.example`, name: 'é€😀' })),
});
const seen: Array<{ event: APIGatewayProxyEventV2; remaining: number; requestId: string }> = [];
let server: RunningHttpServer;

beforeAll(async () => {
  server = await startHttpServer({
    port: 0,
    loadHandler: async (route) =>
      (async (event: APIGatewayProxyEventV2, context: Context) => {
        seen.push({ event, remaining: context.getRemainingTimeInMillis(), requestId: context.awsRequestId });
        if (event.rawPath === '/v2/listings') {
          // A long body (sent from its kept encoded copy) with characters of every UTF-8 width.
          return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: LONG_BODY };
        }
        if (event.rawPath === '/v2/usage') {
          return {
            statusCode: 200,
            headers: { 'content-type': 'image/png' },
            cookies: ['a=1', 'b=2'],
            body: Buffer.from([0, 1, 2, 255]).toString('base64'),
            isBase64Encoded: true,
          };
        }
        return { statusCode: route ? 200 : 404, headers: { 'x-route': route?.operationId ?? 'fallback' }, body: 'ok' };
      }) as LocalHandler,
  });
});
afterAll(async () => server?.close());

describe('local http server', () => {
  it('builds an API Gateway v2 event from the route table', async () => {
    const response = await fetch(`${server.url}/v2/extract/extract-urls-1?page=2&tag=a&tag=b`, {
      headers: { 'X-Custom': 'Yes', cookie: 'c=3; d=4' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-route')).toBe('v2ExtractStatus');
    const { event, remaining, requestId } = seen.at(-1)!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /v2/extract/{execution_id}',
      rawPath: '/v2/extract/extract-urls-1',
      rawQueryString: 'page=2&tag=a&tag=b',
      queryStringParameters: { page: '2', tag: 'a,b' },
      pathParameters: { execution_id: 'extract-urls-1' },
      cookies: ['c=3', 'd=4'],
      requestContext: {
        http: { method: 'GET', path: '/v2/extract/extract-urls-1' },
        routeKey: 'GET /v2/extract/{execution_id}',
        requestId,
      },
    });
    expect(event.headers['x-custom']).toBe('Yes');
    expect(remaining).toBeGreaterThan(20_000);
  });

  it('sends binary bodies base64-encoded and text bodies as text', async () => {
    await fetch(`${server.url}/v2/extract`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from([1, 2, 3]),
    });
    expect(seen.at(-1)!.event).toMatchObject({
      body: Buffer.from([1, 2, 3]).toString('base64'),
      isBase64Encoded: true,
    });
    await fetch(`${server.url}/v2/extract`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":"é"}',
    });
    expect(seen.at(-1)!.event).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false });
  });

  it('writes cookies and base64 results, and routes unmatched requests to the fallback', async () => {
    const binary = await fetch(`${server.url}/v2/usage`);
    expect(Buffer.from(await binary.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(binary.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const unmatched = await fetch(`${server.url}/v2/vendors`, { method: 'PUT' });
    expect(unmatched.headers.get('x-route')).toBe('fallback');
    expect(seen.at(-1)!.event.routeKey).toBe('$default');
  });

  it('sends long bodies byte for byte, the same on every response', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/v2/listings`);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.equals(Buffer.from(LONG_BODY, 'utf8'))).toBe(true);
      expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(LONG_BODY)));
      expect(response.headers.get('content-type')).toBe('application/json');
    }
  });

  it('refuses bodies over the event cap without buffering them', async () => {
    const response = await fetch(`${server.url}/v1/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(7 * 1024 * 1024),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});
