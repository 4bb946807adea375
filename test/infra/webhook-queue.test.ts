// The webhook delivery queue from the real queue table: its DLQ and consumers, and SendMessage
// for every function that may move an execution (authenticated routes, workers, schedules).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import type { ProductDataStack } from '../../lib/product-data-stack';
import { QUEUES } from '../../lambdas/topology/queues';
import { ROUTES } from '../../lambdas/topology/routes';
import { realStack } from './helpers';
import { actionsOf, mentions, resourcesOf, roleOfFunction, statementsOfRole } from './template-queries';

let stack: ProductDataStack;
let template: Template;
const webhookQueue = QUEUES.find((q) => q.name === 'webhook-deliveries')!;

beforeAll(() => {
  ({ stack, template } = realStack());
});

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as never);

function sends(fn: { node: { defaultChild?: unknown } }, queueId: string): boolean {
  const functions = resourcesOf(template, 'AWS::Lambda::Function');
  const roleId = roleOfFunction(functions[logicalIdOf(fn)]);
  return statementsOfRole(template, roleId).some(
    (s) => actionsOf(s).includes('sqs:SendMessage') && mentions(s.Resource, queueId),
  );
}

describe('webhook deliveries queue', () => {
  it('is in the queue table with a dead-letter queue and both consumers', () => {
    expect(webhookQueue).toMatchObject({
      worker: 'webhook-deliver',
      dlqWorker: 'webhook-dlq',
      sentByEveryFunction: true,
    });
    const queue = resourcesOf(template, 'AWS::SQS::Queue')[logicalIdOf(stack.queues.get(webhookQueue.name)!)];
    expect(queue.Properties!.RedrivePolicy.maxReceiveCount).toBe(webhookQueue.maxReceiveCount);
    expect(stack.workers.has('webhook-deliver')).toBe(true);
    expect(stack.workers.has('webhook-dlq')).toBe(true);
  });

  it('every authenticated route, worker and schedule may send to it; the other queues stay private', () => {
    const queueId = logicalIdOf(stack.queues.get(webhookQueue.name)!);
    const extractId = logicalIdOf(stack.queues.get('extract-work')!);
    for (const route of ROUTES) {
      const fn = stack.routeFunctions.get(route.operationId)!;
      expect(sends(fn, queueId), route.operationId).toBe(route.scope !== null);
      expect(sends(fn, extractId), route.operationId).toBe(false);
    }
    for (const [name, fn] of [...stack.workers, ...stack.scheduled]) expect(sends(fn, queueId), name).toBe(true);
  });
});
