// The executions core (every workflow's status item): the webhooks listen to its events, and
// cancel and resume stop and start state machines.
import { dynamoExecutionStore } from '../adapters/dynamodb/executions';
import { createExecutions, type Executions } from '../domain/executions/service';
import { capability } from './container';
import { stepFunctionsOf } from './step-functions';
import { webhooksOf } from './webhooks';

// The webhooks read executions only when they deliver, so building them here does not recurse.
export const executionsOf = capability(
  (base): Executions =>
    createExecutions({
      store: dynamoExecutionStore(base.clients.documents, base.config.tableName),
      workflows: stepFunctionsOf(base).workflows,
      now: base.clock.now,
      metrics: base.metrics,
      events: webhooksOf(base).events,
    }),
);
