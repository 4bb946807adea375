// Headroom under CloudFormation's 500 resources per stack, with the real topology tables and
// with one more capability of the size of crawl (a workflow of 5 tasks, a work queue with its DLQ
// worker, 4 routes): the stack must take it and stay under 450.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Topology } from '../../lib/product-data-stack';
import { QUEUES, type QueueSpec } from '../../lambdas/topology/queues';
import { ROUTES, type Route } from '../../lambdas/topology/routes';
import { SCHEDULES } from '../../lambdas/topology/schedules';
import { WORKFLOWS, type WorkflowSpec } from '../../lambdas/topology/workflows';
import { FIXTURES, ROOT, fixtureLayout, realStack, synthStack } from './helpers';

const LIMIT = 450;

// Handlers resolve to the fixture (no bundling here); real ASL files where they exist.
const layout = fixtureLayout({
  stateMachine: (aslFile) => {
    const real = path.join(ROOT, 'statemachines', aslFile);
    return existsSync(real) ? real : path.join(FIXTURES, 'statemachines', aslFile);
  },
});

const count = (topology: Partial<Topology>): number => {
  const { template } = synthStack({ sources: layout, topology });
  return Object.keys(template.toJSON().Resources).length;
};

const realTopology: Topology = { routes: ROUTES, queues: QUEUES, workflows: WORKFLOWS, schedules: SCHEDULES };

const extraQueue: QueueSpec = {
  name: 'enrich-work',
  worker: 'enrich-worker',
  dlqWorker: 'enrich-dlq',
  batchSize: 1,
  visibilityTimeoutSeconds: 120,
  maxReceiveCount: 3,
  envVar: 'PDS_ENRICH_QUEUE_URL',
};
const extraWorkflow: WorkflowSpec = {
  name: 'enrich',
  aslFile: 'fan-out.asl.json',
  tasks: { Prepare: 'enrich-prepare', Finish: 'enrich-finish' },
  queues: { Work: 'enrich-work' },
  envVar: 'PDS_ENRICH_STATE_MACHINE_ARN',
  timeoutSeconds: 3600,
};
const extraRoutes: Route[] = ['start', 'list', 'status', 'cancel'].map((step, i) => ({
  operationId: `v2Enrich${step}`,
  method: (['POST', 'GET', 'GET', 'DELETE'] as const)[i],
  path: i >= 2 ? `/v2/enrich/{execution_id}` : '/v2/enrich',
  handler: `v2/enrich-${step}`,
  family: 'v2',
  scope: 'extract',
}));

describe('template headroom', () => {
  it(`the real topology stays under ${LIMIT} resources`, () => {
    const resources = Object.keys(realStack().template.toJSON().Resources).length;
    console.log(`resources with the real topology: ${resources} of 500`);
    expect(resources).toBeLessThan(LIMIT);
  }, 120_000);

  it(`one more capability of crawl's size still fits under ${LIMIT}`, () => {
    const resources = count({
      ...realTopology,
      routes: [...ROUTES, ...extraRoutes],
      queues: [...QUEUES, extraQueue],
      workflows: [...WORKFLOWS, extraWorkflow],
    });
    console.log(`resources with one more capability: ${resources} of 500`);
    expect(resources).toBeLessThan(LIMIT);
  }, 120_000);
});
