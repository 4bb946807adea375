// Fuzzes every operation of the served /openapi.json over real HTTP against the whole local
// runtime: wrong types, missing and extra fields, huge strings, deep nesting, `__proto__` keys,
// odd content types, malformed and oversize bodies, odd path and query parameters, missing and
// made-up keys. Every answer must be below 500 and match its operation's documented responses
// (each error in its family's shape). Bounded in cases and time; prints the count of cases.
import '../../lambdas/local/polyfills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../lambdas/local/service';
import { setRequestLogSink } from '../../lambdas/http/log';
import { validateResponse } from './helpers/openapi-validator';

const KEY = 'fuzz-key-0123456789abcdefghij';
const MAX_CASES = 4000;
const TIME_BUDGET_MS = 150_000;
const FUZZ_HOST = 'fuzz.example';

type Schema = Record<string, any>;
let service: LocalService;
let doc: Schema;
/** Executions that exist and have ended (the fuzz host refuses every connection), for the path parameters. */
const seeded = { extract: '', crawl: '' };

/** A loopback port nobody listens on: every outbound fetch of the fuzz host is refused at once. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  setRequestLogSink(() => undefined);
  service = await startLocalService({
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'pds-fuzz-')),
    env: {
      PDS_RESOLVE: `${FUZZ_HOST}=127.0.0.1:${await closedPort()}`,
      PDS_CRAWL_DELAY_MS: '0',
      PDS_RATE_LIMIT: '100000:1000000',
    },
    bootstrapKeys: `${KEY}:org-fuzz`,
    log: () => undefined,
  });
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Schema;
  // State for the reads to reach past their 404s: an ended extraction (its results pages) and
  // crawl, and the fuzz host granted to the organization (its change feed).
  seeded.extract = await ended('/v2/extract', { urls: [`https://${FUZZ_HOST}/products/p-1`] });
  seeded.crawl = await ended('/v2/crawl', { vendor: FUZZ_HOST });
}, 90_000);

/** Starts an execution and waits (bounded) until it has ended; its id. */
async function ended(path: string, body: unknown): Promise<string> {
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const started = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const { execution_id: id } = (await started.json()) as { execution_id: string };
  for (let poll = 0; poll < 200; poll++) {
    const { status } = (await (await fetch(`${service.url}${path}/${id}`, { headers })).json()) as { status: string };
    if (status === 'completed' || status === 'failed') return id;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} ${id} did not end`);
}

afterAll(async () => {
  setRequestLogSink(null);
  await service?.stop(1000);
});

const resolveRef = (schema: Schema | undefined): Schema | undefined => {
  if (!schema?.$ref) return schema;
  return resolveRef(
    String(schema.$ref)
      .replace(/^#\//, '')
      .split('/')
      .reduce<any>((node, part) => node?.[part], doc),
  );
};

/** A value the schema accepts (the baseline every variation starts from). */
function sample(schemaIn: Schema | undefined, name = ''): unknown {
  const schema = resolveRef(schemaIn) ?? {};
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const alternative = schema.anyOf ?? schema.oneOf;
  if (alternative)
    return sample(alternative.find((s: Schema) => resolveRef(s)?.type !== 'null') ?? alternative[0], name);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (/url|domain/i.test(name)) return `https://${FUZZ_HOST}/products/p-1`;
      if (/vendor/i.test(name)) return FUZZ_HOST;
      return 'red shoes';
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, Math.min(schema.maximum ?? 1, 1));
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items, name));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const property of schema.required ?? []) out[property] = sample(schema.properties?.[property], property);
      return out;
    }
    default:
      return /url/i.test(name) ? [`https://${FUZZ_HOST}/products/p-1`] : 'x';
  }
}

/** A parameter's accepted extremes: its bounds, or times long past and to come. */
function edgesOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const bounds = [schema.minimum, schema.maximum].filter((v) => typeof v === 'number').map(String);
  const times = schema.format === 'date-time' ? ['1970-01-01T00:00:00Z', '2099-12-31T23:59:59Z'] : [];
  return [...bounds, ...times];
}

const deepArray = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const WRONG_VALUES: Array<[string, unknown]> = [
  ['number', 12345],
  ['negative', -1],
  ['float', 1.5],
  ['huge number', 1e308],
  ['string', 'not-what-you-expect'],
  ['empty string', ''],
  ['boolean', true],
  ['null', null],
  ['array', []],
  ['array of numbers', [1, 2, 3]],
  ['object', { a: 1 }],
  ['huge string', 'x'.repeat(100_000)],
  ['unicode', '\u0000\ud83d\ude00\u202e\uffff'],
];

interface Case {
  label: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  key?: string | null;
}

function casesFor(template: string, method: string, operation: Schema): Case[] {
  const cases: Case[] = [];
  const parameters: Schema[] = operation.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  // An execution id of the path's kind that exists (a made-up one for other kinds).
  const real = /\/crawl\//.test(template)
    ? seeded.crawl
    : /\/(extract|products)\//.test(template)
      ? seeded.extract
      : 'extract-urls-00000000-0000-4000-8000-000000000000';
  const fill = (values: Record<string, string>) =>
    template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(values[name] ?? real));
  const baseQuery: Record<string, string> = Object.fromEntries(
    queryParams.filter((p) => p.required).map((p) => [p.name, String(sample(p.schema, p.name))]),
  );
  const qs = (query: Record<string, string>) => {
    const text = new URLSearchParams(query).toString();
    return text ? `?${text}` : '';
  };
  const path = fill({}) + qs(baseQuery);
  const bodySchema = resolveRef(operation.requestBody?.content?.['application/json']?.schema);
  const baseBody = bodySchema ? (sample(bodySchema) as Record<string, unknown>) : undefined;
  const json = (value: unknown) => JSON.stringify(value);
  const add = (label: string, c: Omit<Case, 'label' | 'method'>) =>
    cases.push({ label: `${method.toUpperCase()} ${template} ${label}`, method: method.toUpperCase(), ...c });

  add('baseline', { path, body: baseBody === undefined ? undefined : json(baseBody) });
  add('no key', { path, body: baseBody === undefined ? undefined : json(baseBody), key: null });
  add('made-up key', {
    path,
    body: baseBody === undefined ? undefined : json(baseBody),
    key: 'made-up-key-0123456789abcdef',
  });

  for (const param of pathParams) {
    for (const value of [
      '__proto__',
      'constructor',
      'x'.repeat(5000),
      '../../etc/passwd',
      '%00',
      'crawl-a-b',
      'agentic-00000000-0000-4000-8000-000000000000',
      ' ',
      '😀',
    ]) {
      add(`path ${param.name}=${value.slice(0, 20)}`, {
        path: fill({ [param.name]: value }) + qs(baseQuery),
        body: baseBody === undefined ? undefined : json(baseBody),
      });
    }
  }
  for (const param of queryParams) {
    for (const value of [
      '',
      'abc',
      '-1',
      '0',
      '1e309',
      '1.5',
      'x'.repeat(9000),
      '[]',
      '{"a":1}',
      'true',
      '__proto__',
      ...edgesOf(resolveRef(param.schema)),
    ]) {
      add(`query ${param.name}=${value.slice(0, 20)}`, {
        path: fill({}) + qs({ ...baseQuery, [param.name]: value }),
        body: baseBody === undefined ? undefined : json(baseBody),
      });
    }
    if (param.required)
      add(`query without ${param.name}`, {
        path: fill({}) + qs(Object.fromEntries(Object.entries(baseQuery).filter(([k]) => k !== param.name))),
      });
  }
  add('query __proto__ and constructor', {
    path: `${fill({})}?__proto__=1&constructor=x&toString=y&${new URLSearchParams(baseQuery).toString()}`,
  });
  add('query repeated', {
    path: `${fill({})}${qs(baseQuery)}${Object.keys(baseQuery).length ? '&' : '?'}page=1&page=2&page_size=1&page_size=2`,
  });

  if (bodySchema && baseBody && typeof baseBody === 'object') {
    const properties = Object.keys(bodySchema.properties ?? {});
    for (const property of properties) {
      for (const [kind, value] of WRONG_VALUES)
        add(`body ${property} as ${kind}`, { path, body: json({ ...baseBody, [property]: value }) });
      add(`body ${property} nested 5000 deep`, { path, body: `{"${property}": ${deepArray(5000)}}` });
      add(`body ${property} with __proto__`, {
        path,
        body: `{"${property}": {"__proto__": {"polluted": "yes"}}, "__proto__": {"polluted": "yes"}}`,
      });
    }
    for (const property of bodySchema.required ?? []) {
      const { [property]: _dropped, ...rest } = baseBody as Record<string, unknown>;
      add(`body without ${property}`, { path, body: json(rest) });
    }
    add('body extra field', { path, body: json({ ...baseBody, unexpected_field: { nested: [1, 2] } }) });
    add('body __proto__ at the top', {
      path,
      body: `{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, ${json(baseBody).slice(1)}`,
    });
  }
  if (method === 'post' || method === 'delete') {
    for (const [label, body] of [
      ['array', '[]'],
      ['string', '"text"'],
      ['null', 'null'],
      ['number', '123'],
      ['malformed', '{'],
      ['malformed value', '{"a":}'],
      ['nul byte', '\u0000'],
      ['bom', `\ufeff${json(baseBody ?? {})}`],
      ['deep 100,000', deepArray(100_000)],
      ['deep objects', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
      ['oversize 1.1 MiB', json({ ...(baseBody ?? {}), pad: 'x'.repeat(1_150_000) })],
    ] as const) {
      add(`raw body ${label}`, { path, body });
    }
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/xml',
      'application/octet-stream',
      'application/merge-patch+json',
      '',
    ]) {
      add(`content-type "${contentType}"`, { path, body: json(baseBody ?? {}), contentType });
    }
  }
  return cases;
}

function familyShapeProblem(path: string, status: number, body: any): string | null {
  if (status < 400) return null;
  if (status === 401)
    return body && typeof body.error === 'string' && body.status === 401 ? null : 'not the auth error shape';
  if (path.startsWith('/v2/'))
    return typeof body?.error?.code === 'string' &&
      typeof body.error.message === 'string' &&
      typeof body.error.request_id === 'string'
      ? null
      : 'not the v2 error shape';
  return typeof body?.error === 'string' && typeof body.code === 'string' ? null : 'not the legacy/v1 error shape';
}

describe('fuzzing every operation of the served OpenAPI document', () => {
  it('never answers 5xx and every answer matches its documented response', async () => {
    const cases: Case[] = [];
    let operations = 0;
    for (const [template, methods] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!['get', 'post', 'delete'].includes(method)) continue;
        operations++;
        cases.push(...casesFor(template, method, operation));
      }
    }
    expect(operations).toBe(52); // the 50 operations (41 + 3 webhook operations + the Merchant Center feed + the change feed and its 4 subscription operations) plus /health and /openapi.json
    const started = Date.now();
    const failures: string[] = [];
    let tried = 0;
    const statuses: Record<number, number> = {};
    let next = 0;
    // Eight at a time: enough to overlap, bounded in count and time.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < Math.min(cases.length, MAX_CASES) && Date.now() - started < TIME_BUDGET_MS) {
          const c = cases[next++]!;
          const headers: Record<string, string> = {};
          if (c.key !== null) headers['x-api-key'] = c.key ?? KEY;
          if (c.body !== undefined) headers['content-type'] = c.contentType ?? 'application/json';
          if (c.contentType === '') delete headers['content-type'];
          let status = 0;
          let body: any;
          let text = '';
          try {
            const response = await fetch(`${service.url}${c.path}`, { method: c.method, headers, body: c.body });
            status = response.status;
            text = await response.text();
            body = text ? JSON.parse(text) : null;
            const problems = validateResponse(doc, {
              method: c.method,
              path: c.path,
              status,
              headers: response.headers,
              body,
            });
            const shape = familyShapeProblem(c.path.split('?')[0]!, status, body);
            if (status >= 500) failures.push(`${c.label}: ${status} ${text.slice(0, 200)}`);
            else if (problems.length) failures.push(`${c.label}: ${problems.slice(0, 2).join('; ').slice(0, 300)}`);
            else if (shape) failures.push(`${c.label}: ${status} ${shape}: ${text.slice(0, 200)}`);
          } catch (error) {
            failures.push(`${c.label}: ${status || 'no answer'} ${(error as Error).message} ${text.slice(0, 100)}`);
          }
          statuses[status] = (statuses[status] ?? 0) + 1;
          tried++;
        }
      }),
    );
    console.log(
      `fuzz: ${tried} cases over ${operations} operations in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(statuses)}`,
    );
    expect(failures.slice(0, 30)).toEqual([]);
    expect(tried).toBeGreaterThan(1000);
    // `__proto__` keys in bodies and queries reached no prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    // The service still answers normally.
    expect((await fetch(`${service.url}/v2/vendors`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
  }, 240_000);
});
