// The OpenAPI 3.1 document of every operation in the route table (+ /health, /openapi.json), built from the
// same zod schemas the pipeline validates with, so the document cannot drift from the code.
import * as z from 'zod';
import { ROUTES, type Route } from '../topology/routes';
import { AuthErrorBody, LegacyErrorBody, V2ErrorBody } from './common';
import { CONTRACTS, type OperationContract } from './operations';
import {
  IDEMPOTENCY_CONFLICT,
  IDEMPOTENCY_PARAMETER,
  IDEMPOTENCY_RESPONSE_HEADER,
  IDEMPOTENT_OPERATIONS,
} from './idempotency';
import { webhooksObject } from './webhooks';

type JsonSchema = Record<string, unknown>;

const DESCRIPTION = `Product data for retail: search, catalog browsing, crawl and extraction jobs, affiliate links, vendors and usage, in three path families (legacy /api, /v1, /v2).

Choices where the specification leaves gaps (DECISIONS):
- Authentication: \`x-api-key\` or \`Authorization: Bearer <key>\`. Missing key: 401 {"error":"API key required (x-api-key header or Authorization: Bearer)","status":401}; invalid key: 401 {"error":"Invalid API key","status":401}. Keys are stored only as SHA-256 hashes and carry scopes (search, catalog, extract, crawl, affiliate, usage; a key created without scopes has all six). A missing scope is 403 FORBIDDEN in the family's error shape.
- Error bodies: legacy and v1 \`{error, details?, code}\`; v2 \`{error: {code, message, request_id}, ...context}\`. Codes beyond the spec: CONFLICT (409), PAYLOAD_TOO_LARGE (413, bodies over 1 MiB, on every route), UNSUPPORTED_MEDIA_TYPE (415, a POST body that is not application/json, on every POST), METHOD_NOT_ALLOWED (405, with Allow). Malformed JSON, wrong types, missing fields and out-of-range paging are 400 INVALID_PARAMETER naming the field. 5xx bodies never carry internals.
- Every response carries a \`Request-ID\` header; v2 errors repeat it as \`error.request_id\`.
- Rate limits: a token bucket per API key, default 20 requests/s with a burst of 40, settable per organization and by PDS_RATE_LIMIT. Over it: 429 RATE_LIMITED with \`Retry-After\` in seconds.
- Usage: every authenticated call, successful or not, counts once for its organization under \`path\` = the operation's route template (e.g. /v2/extract/{execution_id}). Periods 24h, 7d, 30d, 90d, all (default 30d) end now; records are ordered by total_calls, highest first.
- Vendors: the vendor key is the store's lower-case hostname without a leading www.; /api/vendors and /v1/vendors return every vendor, /v2/vendors pages them (ordered by vendor key).
- Executions belong to the organization of the key that started them, in every family: another organization gets 404.
- Timestamps are UTC ISO 8601 with milliseconds; first_seen_by_service and last_updated_by_service carry +00:00, all others end in Z.`;

/** Collects named ($defs) schemas into components.schemas and rewrites their references. */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const suffix = io === 'input' ? 'Input' : '';
    const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.$schema;
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
          out.$ref = `#/components/schemas/${value.slice('#/$defs/'.length)}${suffix}`;
        } else if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) {
          // zod's safe-integer bounds say nothing to a reader.
        } else {
          out[key] = rewrite(value);
        }
      }
      return out;
    };
    for (const [name, def] of Object.entries(defs)) this.components[`${name}${suffix}`] = rewrite(def) as JsonSchema;
    return rewrite(json) as JsonSchema;
  }
}

const jsonContent = (schema: JsonSchema) => ({ 'application/json': { schema } });

function parametersOf(collector: SchemaCollector, schema: z.ZodObject | undefined, where: 'query' | 'path') {
  if (!schema) return [];
  const json = collector.convert(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function operationObject(
  route: Route,
  contract: OperationContract,
  collector: SchemaCollector,
  errorRefs: Record<string, JsonSchema>,
) {
  const family = route.family;
  const v2 = family === 'v2';
  const requestIdHeader = {
    'Request-ID': {
      description: 'Identifier of this request (also error.request_id in v2 errors)',
      schema: { type: 'string' },
    },
  };
  const familyError = v2 ? errorRefs.v2 : errorRefs.legacy;
  const error = (description: string, extraHeaders: Record<string, unknown> = {}) => ({
    description,
    headers: { ...requestIdHeader, ...extraHeaders },
    content: jsonContent(familyError),
  });

  const responses: Record<string, unknown> = {
    [String(contract.success.status)]: {
      description: contract.success.description ?? (contract.success.status === 202 ? 'Accepted' : 'OK'),
      headers: IDEMPOTENT_OPERATIONS.has(route.operationId)
        ? { ...requestIdHeader, ...IDEMPOTENCY_RESPONSE_HEADER }
        : requestIdHeader,
      content: jsonContent(collector.convert(contract.success.schema, 'output')),
    },
  };
  if (route.scope !== null) {
    const hasInput = contract.body || contract.query || contract.params;
    if (hasInput)
      responses['400'] = error(
        'INVALID_PARAMETER: malformed JSON, a wrong type, a missing field or an out-of-range value; the message names the field',
      );
    responses['401'] = {
      description: 'Missing or invalid API key',
      headers: requestIdHeader,
      content: jsonContent(errorRefs.auth),
    };
    responses['403'] = error(`FORBIDDEN: the key lacks the "${route.scope}" scope`);
    if (contract.errors?.includes(404))
      responses['404'] = error('NOT_FOUND: unknown execution id, or one of another organization');
    if (contract.errors?.includes(409))
      responses['409'] = error('CONFLICT: the execution already finished, or waits on a crawl');
    if (IDEMPOTENT_OPERATIONS.has(route.operationId)) responses['409'] = error(IDEMPOTENCY_CONFLICT);
    // Every route refuses an oversized body, and every POST one that is not JSON (even a POST
    // that takes no body: lambdas/http/body.ts).
    responses['413'] = error('PAYLOAD_TOO_LARGE: request body over 1 MiB');
    if (route.method === 'POST') responses['415'] = error('UNSUPPORTED_MEDIA_TYPE: the body is not application/json');
    responses['429'] = error('RATE_LIMITED: over the per-key token bucket', {
      'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
    });
    responses['500'] = error('INTERNAL_ERROR (legacy vendors also DB_ERROR); never carries internals');
    if (contract.errors?.includes(504))
      responses['504'] = error('TIMEOUT or DB_TIMEOUT: the store did not answer in time');
  }

  return {
    operationId: route.operationId,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    tags: [family],
    ...(family === 'legacy' ? { deprecated: true } : {}),
    ...(route.scope === null ? { security: [] } : { 'x-required-scope': route.scope }),
    parameters: [
      ...parametersOf(collector, contract.params, 'path'),
      ...parametersOf(collector, contract.query, 'query'),
      ...(IDEMPOTENT_OPERATIONS.has(route.operationId) ? [IDEMPOTENCY_PARAMETER] : []),
    ],
    ...(contract.body
      ? { requestBody: { required: true, content: jsonContent(collector.convert(contract.body, 'input')) } }
      : {}),
    responses,
  };
}

let cached: Record<string, unknown> | undefined;

export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const collector = new SchemaCollector();
  const errorRefs = {
    auth: collector.convert(AuthErrorBody, 'output'),
    legacy: collector.convert(LegacyErrorBody, 'output'),
    v2: collector.convert(V2ErrorBody, 'output'),
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const contract = (CONTRACTS as Record<string, OperationContract>)[route.operationId];
    if (!contract) throw new Error(`No contract for ${route.operationId}`);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route, contract, collector, errorRefs);
  }
  cached = {
    // No jsonSchemaDialect: the default (the OAS 3.1 base dialect) is JSON Schema 2020-12 plus
    // OpenAPI's keywords, which is what the schemas are; Swagger UI warns on any other value.
    openapi: '3.1.0',
    info: { title: 'Product Data Service', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: '/' }],
    tags: [
      { name: 'legacy', description: 'Legacy /api family (deprecated, kept for compatibility)' },
      { name: 'v1', description: 'v1 family' },
      { name: 'v2', description: 'v2 family: data/pagination/meta envelope, structured errors' },
      { name: 'public', description: 'Unauthenticated' },
    ],
    security: [{ apiKey: [] }, { bearer: [] }],
    paths,
    webhooks: webhooksObject((schema) => collector.convert(schema, 'output')),
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
      },
      schemas: collector.components,
    },
  };
  return cached;
}
