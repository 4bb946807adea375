// The workflow engine and the task callbacks over one Step Functions client, loaded by the
// container on their first call (the 'stepFunctions' capability of lambdas/topology/capabilities.ts).
import type { Config } from '../config';
import type { AwsClients } from '../adapters/clients';
import { createSfnClient } from '../adapters/sfn-client';
import { createStepFunctionsTaskCallbacks, createStepFunctionsWorkflowEngine } from '../adapters/stepfunctions';
import type { TaskCallbacks, WorkflowEngine } from '../ports/workflow';

export interface StepFunctions {
  workflows: WorkflowEngine;
  taskCallbacks: TaskCallbacks;
}

export function createStepFunctions(config: Config, clients: AwsClients): StepFunctions {
  const sfn = createSfnClient(config, clients);
  return {
    workflows: createStepFunctionsWorkflowEngine(sfn, config.stateMachineArns),
    taskCallbacks: createStepFunctionsTaskCallbacks(sfn),
  };
}
