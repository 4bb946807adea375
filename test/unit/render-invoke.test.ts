// The renderer that asks the render function (lambdas/adapters/render-invoke.ts): the SDK's Lambda
// client pointed at a loopback server that stands in for the Lambda service and records each
// Invoke (path, invocation type, payload). The wire format both ends share, and every way an
// invoke can go wrong ending as a FetchFailure the engine maps like a failed render.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createInvokeRenderer } from '../../lambdas/adapters/render-invoke';
import { decodeRendered, encodeRendered, parseRenderRequest } from '../../lambdas/adapters/render-invoke-wire';
import { FetchFailure, type FetchedPage } from '../../lambdas/ports/fetcher';

interface Recorded {
  method: string;
  path: string;
  invocationType: string | undefined;
  payload: unknown;
}

let server: Server;
let endpoint: string;
const recorded: Recorded[] = [];
let answer: (res: ServerResponse) => void = () => undefined;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      recorded.push({
        method: req.method!,
        path: req.url!,
        invocationType: req.headers['x-amz-invocation-type'] as string | undefined,
        payload: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
      });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  recorded.length = 0;
});

const client = () =>
  new LambdaClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });

const PAGE: FetchedPage = {
  requestedUrl: 'https://shop.test/p/1',
  finalUrl: 'https://shop.test/p/1',
  status: 200,
  headers: { 'content-type': 'text/html' },
  contentType: 'text/html; charset=utf-8',
  body: `<html><body><h1>Café — ${'x'.repeat(10_000)}</h1></body></html>`,
};

const json =
  (body: unknown, headers: Record<string, string> = {}) =>
  (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

async function failureOf(promise: Promise<unknown>): Promise<FetchFailure> {
  const error = await promise.then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(FetchFailure);
  return error as FetchFailure;
}

describe('invoking the render function', () => {
  it('sends one RequestResponse Invoke of the function with the URL and country, and returns the page it answers', async () => {
    answer = json(encodeRendered({ page: PAGE }));
    const renderer = createInvokeRenderer({ client: client(), functionName: 'pds-render-direct', pageBudgetMs: 5000 });
    const page = await renderer.render({ url: PAGE.requestedUrl, countryCode: 'de', deadline: Date.now() + 20_000 });
    expect(page).toEqual(PAGE);
    expect(recorded).toEqual([
      {
        method: 'POST',
        path: '/2015-03-31/functions/pds-render-direct/invocations',
        invocationType: 'RequestResponse',
        payload: { url: PAGE.requestedUrl, countryCode: 'de' },
      },
    ]);
  });

  it("ends with the render's own failure, kind and final URL kept", async () => {
    answer = json(
      encodeRendered({
        error: new FetchFailure('timeout', 'the page did not settle', { finalUrl: 'https://shop.test/x' }),
      }),
    );
    const renderer = createInvokeRenderer({ client: client(), functionName: 'render', pageBudgetMs: 5000 });
    const failure = await failureOf(renderer.render({ url: PAGE.requestedUrl }));
    expect(failure.kind).toBe('timeout');
    expect(failure.details.finalUrl).toBe('https://shop.test/x');
  });

  it('a function error (the function threw or timed out) is a network failure of the page', async () => {
    answer = json({ errorMessage: 'Task timed out after 40.00 seconds' }, { 'x-amz-function-error': 'Unhandled' });
    const renderer = createInvokeRenderer({ client: client(), functionName: 'render', pageBudgetMs: 5000 });
    const failure = await failureOf(renderer.render({ url: PAGE.requestedUrl }));
    expect(failure.kind).toBe('network');
    expect(failure.message).toMatch(/Task timed out/);
  });

  it('a throttle from the service is a network failure of the page, never a throw of something else', async () => {
    answer = (res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
      res.end(
        JSON.stringify({ message: 'Rate exceeded', Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' }),
      );
    };
    const renderer = createInvokeRenderer({ client: client(), functionName: 'render', pageBudgetMs: 5000 });
    const failure = await failureOf(renderer.render({ url: PAGE.requestedUrl }));
    expect(failure.kind).toBe('network');
    expect(failure.message).toMatch(/TooManyRequests/);
  });

  it('stops waiting at the page budget plus the launch allowance: a timeout, however long the function takes', async () => {
    answer = () => undefined; // never answers
    const renderer = createInvokeRenderer({
      client: client(),
      functionName: 'render',
      pageBudgetMs: 600,
      launchMs: 200,
      minimumMs: 100,
    });
    const started = Date.now();
    const failure = await failureOf(renderer.render({ url: PAGE.requestedUrl }));
    expect(failure.kind).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("stops waiting at the request's deadline when it comes first", async () => {
    answer = () => undefined;
    const renderer = createInvokeRenderer({
      client: client(),
      functionName: 'render',
      pageBudgetMs: 20_000,
      minimumMs: 100,
    });
    const started = Date.now();
    const failure = await failureOf(renderer.render({ url: PAGE.requestedUrl, deadline: started + 500 }));
    expect(failure.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('asks nothing when the request has less time left than the minimum', async () => {
    const renderer = createInvokeRenderer({ client: client(), functionName: 'render', pageBudgetMs: 20_000 });
    const failure = await failureOf(renderer.render({ url: PAGE.requestedUrl, deadline: Date.now() + 1500 }));
    expect(failure.kind).toBe('timeout');
    expect(recorded).toEqual([]);
  });
});

describe('the wire format', () => {
  it('carries the body gzipped: a page of several MB travels under the 6 MB response limit', () => {
    const big = { ...PAGE, body: `<html><body>${'<div class="p">product</div>'.repeat(400_000)}</body></html>` };
    expect(big.body.length).toBeGreaterThan(10_000_000);
    const encoded = encodeRendered({ page: big });
    expect(JSON.stringify(encoded).length).toBeLessThan(6 * 1024 * 1024);
    expect(decodeRendered(JSON.parse(JSON.stringify(encoded)))).toEqual(big);
  });

  it('an answer that is neither page nor known failure is a network failure', () => {
    expect(() => decodeRendered({ failure: { kind: 'exploded', message: 'x' } })).toThrow(FetchFailure);
    expect(() => decodeRendered({ page: { finalUrl: 'https://a.test/' } })).toThrow(/something else than a page/);
    expect(() => decodeRendered(null)).toThrow(FetchFailure);
  });

  it('the direct entry accepts a URL and an optional country, nothing else', () => {
    expect(parseRenderRequest({ url: 'https://a.test/p', countryCode: 'fr' })).toEqual({
      url: 'https://a.test/p',
      countryCode: 'fr',
    });
    expect(parseRenderRequest({ url: 'https://a.test/p' })).toEqual({ url: 'https://a.test/p' });
    expect(parseRenderRequest({ Records: [] })).toBeNull();
    expect(parseRenderRequest({ url: 'https://a.test/p', countryCode: 7 })).toBeNull();
    expect(parseRenderRequest(undefined)).toBeNull();
  });
});
