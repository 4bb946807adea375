// Every route of the table has its handler module (the CDK stack bundles exactly these files)
// and a contract (the OpenAPI document and validation come from it).
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '../../lambdas/topology/routes';
import { CONTRACTS } from '../../lambdas/contracts/operations';

describe('route table coverage', () => {
  it('has 50 operations (41 + 3 webhook operations + the Merchant Center feed + the change feed and its 4 subscription operations) plus /health and /openapi.json, each with a contract', () => {
    expect(ROUTES).toHaveLength(52);
    for (const route of ROUTES) expect(CONTRACTS, route.operationId).toHaveProperty(route.operationId);
    expect(Object.keys(CONTRACTS).sort()).toEqual(ROUTES.map((r) => r.operationId).sort());
  });

  it.each(ROUTES.map((r) => [r.handler, r]))('lambdas/http/%s.ts exports a handler', async (_name, route) => {
    expect(existsSync(join('lambdas/http', `${route.handler}.ts`))).toBe(true);
    const module = await import(`../../lambdas/http/${route.handler}`);
    expect(typeof module.handler).toBe('function');
  });

  it('has the $default fallback handler', async () => {
    expect(typeof (await import('../../lambdas/http/public/fallback')).handler).toBe('function');
  });
});
