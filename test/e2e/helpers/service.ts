// Reusable end-to-end harness: embedded engines (in memory) + one container built from a Config
// (settings in environment form, never written into process.env) + the local HTTP server on
// port 0, driven over real HTTP. Other suites add settings (PDS_RESOLVE, state machine ARNs,
// ...) and start their own runtime pieces through `extras`.
import { startEngines, type Engines } from '../../../lambdas/local/engines';
import { startHttpServer, type HttpServerOptions } from '../../../lambdas/local/http-server';
import {
  createContainer,
  getContainer,
  installContainer,
  type Container,
} from '../../../lambdas/composition/container';
import { loadConfig } from '../../../lambdas/config';
import { QUEUES } from '../../../lambdas/topology/queues';
import { clearOrganizationCache } from '../../../lambdas/http/pipeline';
import { setRequestLogSink, type RequestLogLine } from '../../../lambdas/http/log';
import { createKey } from '../../../lambdas/domain/accounts/service';
import { ENV } from '../../../lambdas/topology/env';
import type { Scope } from '../../../lambdas/topology/routes';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the raw text. */
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is (no JSON encoding), e.g. malformed JSON or a huge payload. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Convenience: sent as x-api-key. */
  apiKey?: string;
}

export interface ExtrasContext {
  engines: Engines;
  /** The settings in environment form; after changing them call `reload()`. */
  env: Record<string, string>;
  /** Rebuilds and installs the process's container from `env`. */
  reload(): void;
}

export interface TestServiceOptions {
  /** Extra environment for lambdas/config.ts (e.g. PDS_RESOLVE, PDS_RATE_LIMIT). */
  env?: Record<string, string>;
  /** Start more of the runtime (pollers, state machines) once engines and env are set. */
  extras?: (context: ExtrasContext) => Promise<{ close(): Promise<void> } | void>;
  loadHandler?: HttpServerOptions['loadHandler'];
}

export interface TestService {
  url: string;
  engines: Engines;
  env: Record<string, string>;
  /** Request log lines written by the pipeline since start. */
  logs: RequestLogLine[];
  deps(): Container;
  /** A fresh API key (all scopes unless given) for `org` (default "test-org"). */
  apiKey(scopes?: Scope[], org?: string): Promise<string>;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const engines = await startEngines();
  const env: Record<string, string> = {
    [ENV.tableName]: engines.tableName,
    [ENV.dynamodbEndpoint]: engines.dynamodbEndpoint,
    [ENV.sqsEndpoint]: engines.sqsEndpoint,
    ...Object.fromEntries(
      QUEUES.filter((queue) => engines.queueUrls[queue.name]).map((queue) => [
        queue.envVar,
        engines.queueUrls[queue.name]!,
      ]),
    ),
    [ENV.crawlDelayMs]: '0',
    AWS_REGION: 'us-east-1',
    ...options.env,
  };
  const reload = () => installContainer(createContainer(loadConfig(env)));
  reload();
  clearOrganizationCache();
  const logs: RequestLogLine[] = [];
  setRequestLogSink((line) => {
    if (logs.length < 100_000) logs.push(line);
  });

  const extra = options.extras ? await options.extras({ engines, env, reload }) : undefined;
  const server = await startHttpServer({ port: 0, loadHandler: options.loadHandler });

  return {
    url: server.url,
    engines,
    env,
    logs,
    deps: getContainer,
    async apiKey(scopes, org = 'test-org') {
      return (await createKey(getContainer().accounts, { org, scopes })).key;
    },
    async request(method, path, { body, rawBody, headers = {}, apiKey } = {}) {
      const sent: Record<string, string> = { ...headers };
      if (apiKey) sent['x-api-key'] = apiKey;
      let payload: string | Buffer | undefined = rawBody;
      if (body !== undefined && rawBody === undefined) {
        payload = JSON.stringify(body);
        sent['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${server.url}${path}`, { method, headers: sent, body: payload });
      const text = await response.text();
      let parsed: unknown = text;
      if ((response.headers.get('content-type') ?? '').includes('json')) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      return { status: response.status, headers: response.headers, body: parsed as any, text };
    },
    async close() {
      await server.close();
      await extra?.close();
      installContainer(undefined);
      setRequestLogSink(null);
      await engines.stop();
    },
  };
}
