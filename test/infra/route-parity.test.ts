// Parity between the topology tables, the files on disk and the deployed API: a route, worker
// or workflow cannot be in one and missing from another.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectLayout } from '../../lib/source-layout';
import { QUEUES } from '../../lambdas/topology/queues';
import { ROUTES } from '../../lambdas/topology/routes';
import { WORKFLOWS } from '../../lambdas/topology/workflows';
import { fixtureStack, ROOT, realStack } from './helpers';
import { resourcesOf } from './template-queries';

const layout = projectLayout(ROOT);
const missing = (files: string[]): string[] =>
  files.filter((file) => !existsSync(file)).map((file) => path.relative(ROOT, file));

describe('files named by the topology exist', () => {
  it('a handler module for every route and the $default fallback', () => {
    expect(missing([...ROUTES.map((route) => layout.httpHandler(route.handler)), layout.fallbackHandler])).toEqual([]);
  });

  it('a worker module for every queue, dead-letter queue and workflow task', () => {
    const workers = [
      ...QUEUES.flatMap((spec) => [spec.worker, ...(spec.dlqWorker ? [spec.dlqWorker] : [])]),
      ...WORKFLOWS.flatMap((workflow) => Object.values(workflow.tasks)),
    ];
    expect(missing(workers.map(layout.worker))).toEqual([]);
  });

  it('an ASL file for every workflow, and every queue a workflow names is in QUEUES', () => {
    expect(missing(WORKFLOWS.map((workflow) => layout.stateMachine(workflow.aslFile)))).toEqual([]);
    const queueNames = new Set(QUEUES.map((spec) => spec.name));
    expect(
      WORKFLOWS.flatMap((workflow) => Object.values(workflow.queues)).filter((name) => !queueNames.has(name)),
    ).toEqual([]);
  });
});

describe('the API carries the route table', () => {
  // The real route table over fixture entries: independent of which handlers are written yet.
  const { template } = fixtureStack();
  const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route'));
  const integrations = resourcesOf(template, 'AWS::ApiGatewayV2::Integration');
  const integrationOf = (routeKey: string) => {
    const route = routes.find((r) => r.Properties!.RouteKey === routeKey);
    const target = route?.Properties?.Target['Fn::Join'][1][1].Ref as string | undefined;
    return target ? integrations[target] : undefined;
  };

  it.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route.operationId]))(
    '%s (%s) has its own Lambda integration',
    (routeKey) => {
      const integration = integrationOf(routeKey);
      expect(integration, routeKey).toBeDefined();
      expect(integration!.Properties!.IntegrationType).toBe('AWS_PROXY');
      const others = ROUTES.map((r) => `${r.method} ${r.path}`)
        .filter((key) => key !== routeKey)
        .map((key) => JSON.stringify(integrationOf(key)?.Properties?.IntegrationUri));
      expect(others).not.toContain(JSON.stringify(integration!.Properties!.IntegrationUri));
    },
  );

  it('has a $default route for everything else', () => {
    expect(integrationOf('$default')?.Properties?.IntegrationType).toBe('AWS_PROXY');
  });

  it('has no route that is not in the table', () => {
    const expected = new Set([...ROUTES.map((route) => `${route.method} ${route.path}`), '$default']);
    expect(routes.map((route) => route.Properties!.RouteKey).filter((key) => !expected.has(key))).toEqual([]);
  });
});

describe('the real stack', () => {
  it('synthesizes from the repository sources', () => {
    const { template } = realStack();
    const routeKeys = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties!.RouteKey,
    );
    expect(routeKeys).toHaveLength(ROUTES.length + 1);
    expect(Object.keys(resourcesOf(template, 'AWS::StepFunctions::StateMachine'))).toHaveLength(WORKFLOWS.length);
  });
});
