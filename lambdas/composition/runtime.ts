// Composition root of the workflow plumbing (Step Functions, task callbacks, SQS senders):
// built lazily once per cold start from loadConfig() + createClients(), like platform.ts.
import { loadConfig, type Config } from '../config';
import { createClients, type AwsClients } from '../adapters/clients';
import { createStepFunctionsTaskCallbacks, createStepFunctionsWorkflowEngine } from '../adapters/stepfunctions';
import { createSqsSender, type MessageSender } from '../adapters/sqs';
import type { TaskCallbacks, WorkflowEngine } from '../ports/workflow';

export interface RuntimeDeps {
  config: Config;
  clients: AwsClients;
  workflows: WorkflowEngine;
  taskCallbacks: TaskCallbacks;
  /** Sender for a queue by logical name (QueueSpec.name). */
  queue(name: string): MessageSender;
}

export function createRuntimeDeps(config: Config, clients: AwsClients = createClients(config)): RuntimeDeps {
  const senders = new Map<string, MessageSender>();
  return {
    config,
    clients,
    workflows: createStepFunctionsWorkflowEngine(clients.sfn, config.stateMachineArns),
    taskCallbacks: createStepFunctionsTaskCallbacks(clients.sfn),
    queue(name) {
      let sender = senders.get(name);
      if (!sender) {
        const url = config.queueUrls[name];
        if (!url) throw new Error(`No URL configured for queue "${name}"`);
        sender = createSqsSender(clients.sqs, url);
        senders.set(name, sender);
      }
      return sender;
    },
  };
}

let cached: RuntimeDeps | undefined;

export function getRuntimeDeps(): RuntimeDeps {
  cached ??= createRuntimeDeps(loadConfig());
  return cached;
}

/** Forgets the cached deps so the next call re-reads the config (tests, local runtime restarts). */
export function resetRuntimeDeps(): void {
  if (cached) {
    cached.clients.sfn.destroy();
    cached.clients.sqs.destroy();
    cached.clients.dynamodb.destroy();
  }
  cached = undefined;
}
