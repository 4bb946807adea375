// The workflow engine and the task callbacks over one Step Functions client: a function that
// never starts, stops or answers an execution does not import this module (nor @aws-sdk/client-sfn).
import { createSfnClient } from '../adapters/sfn-client';
import { createStepFunctionsTaskCallbacks, createStepFunctionsWorkflowEngine } from '../adapters/stepfunctions';
import type { TaskCallbacks, WorkflowEngine } from '../ports/workflow';
import { capability } from './container';

export interface StepFunctions {
  workflows: WorkflowEngine;
  taskCallbacks: TaskCallbacks;
}

export const stepFunctionsOf = capability((base): StepFunctions => {
  const sfn = createSfnClient(base.config, base.clients);
  return {
    workflows: createStepFunctionsWorkflowEngine(sfn, base.config.stateMachineArns),
    taskCallbacks: createStepFunctionsTaskCallbacks(sfn),
  };
});
