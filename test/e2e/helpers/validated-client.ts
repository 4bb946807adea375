// A JSON client for e2e suites running on the local service: real HTTP with an API key, and
// every response checked against the served OpenAPI document.
import { expect } from 'vitest';
import { validateResponse } from './openapi-validator';

export interface Reply {
  status: number;
  body: any;
}

export interface ValidatedClient {
  call(method: string, path: string, body?: unknown, key?: string): Promise<Reply>;
}

/** `baseUrl` and `doc` are read at call time, so suites can create the client before boot. */
export function validatedClient(
  target: () => { baseUrl: string; doc: Record<string, any> },
  defaultKey: string,
): ValidatedClient {
  return {
    async call(method, path, body, key = defaultKey) {
      const { baseUrl, doc } = target();
      const headers: Record<string, string> = { 'x-api-key': key };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const parsed = await response.json();
      expect(
        validateResponse(doc, { method, path, status: response.status, headers: response.headers, body: parsed }),
      ).toEqual([]);
      return { status: response.status, body: parsed };
    },
  };
}
