// Checks real responses against the served OpenAPI document: a small JSON Schema (2020-12
// subset that zod emits) validator plus the operation lookup (path template, method, status).
import { matchRoute } from '../../../lambdas/http/match';

type Schema = Record<string, any>;

export function validateSchema(schema: Schema | boolean, value: unknown, root: Schema, at = '$'): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${at}: no value allowed`];
  if (schema.$ref) {
    const target = String(schema.$ref)
      .replace(/^#\//, '')
      .split('/')
      .reduce<any>((node, part) => node?.[part], root);
    if (!target) return [`${at}: unresolved ${schema.$ref}`];
    return validateSchema(target, value, root, at);
  }
  const errors: string[] = [];
  if (schema.anyOf && !schema.anyOf.some((s: Schema) => validateSchema(s, value, root, at).length === 0)) {
    errors.push(`${at}: matches none of anyOf`);
  }
  if (
    schema.oneOf &&
    schema.oneOf.filter((s: Schema) => validateSchema(s, value, root, at).length === 0).length !== 1
  ) {
    errors.push(`${at}: must match exactly one of oneOf`);
  }
  for (const sub of schema.allOf ?? []) errors.push(...validateSchema(sub, value, root, at));
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
    errors.push(`${at}: expected ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value)))
    errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (schema.type) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'array'
          : Number.isInteger(value)
            ? 'integer'
            : typeof value === 'number'
              ? 'number'
              : typeof value;
    const ok = types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
    if (!ok) return [...errors, `${at}: expected ${types.join('|')}, got ${actual}`];
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: below minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${at}: above maximum ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      errors.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      errors.push(`${at}: longer than ${schema.maxLength}`);
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value))
      errors.push(`${at}: does not match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      errors.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items)
      value.forEach((item, i) => errors.push(...validateSchema(schema.items, item, root, `${at}[${i}]`)));
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) errors.push(`${at}: missing ${name}`);
    const properties: Record<string, Schema> = schema.properties ?? {};
    for (const [name, item] of Object.entries(object)) {
      if (properties[name]) errors.push(...validateSchema(properties[name], item, root, `${at}.${name}`));
      else if (schema.additionalProperties !== undefined)
        errors.push(...validateSchema(schema.additionalProperties, item, root, `${at}.${name}`));
      if (schema.propertyNames) errors.push(...validateSchema(schema.propertyNames, name, root, `${at}{${name}}`));
    }
  }
  return errors;
}

export interface ResponseToCheck {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * Errors of a response against the document: the operation must declare the status, the body
 * must match its schema, declared headers (Request-ID, Retry-After) must be present. Requests
 * that match no operation (404/405 from the fallback) are checked against the family's error.
 */
export function validateResponse(doc: Schema, response: ResponseToCheck): string[] {
  const pathOnly = response.path.split('?')[0];
  const match = matchRoute(response.method, pathOnly);
  const where = `${response.method} ${response.path} -> ${response.status}`;
  if (!match) {
    const family = pathOnly.startsWith('/v2/') ? 'V2Error' : 'LegacyError';
    if (![404, 405, 413].includes(response.status)) return [`${where}: no operation and not a fallback status`];
    return validateSchema({ $ref: `#/components/schemas/${family}` }, response.body, doc).map((e) => `${where}: ${e}`);
  }
  const operation = doc.paths?.[match.route.path]?.[match.route.method.toLowerCase()];
  if (!operation) return [`${where}: operation ${match.route.operationId} missing from the document`];
  const declared = operation.responses?.[String(response.status)];
  if (!declared) return [`${where}: status not declared for ${match.route.operationId}`];
  const errors: string[] = [];
  for (const [header, spec] of Object.entries<{ required?: boolean }>(declared.headers ?? {})) {
    // Headers are expected unless declared optional (`required: false`, e.g. Idempotent-Replayed).
    if (!response.headers.has(header) && spec?.required !== false) errors.push(`${where}: missing header ${header}`);
  }
  const schema = declared.content?.['application/json']?.schema;
  if (schema) errors.push(...validateSchema(schema, response.body, doc).map((e) => `${where}: ${e}`));
  return errors;
}
