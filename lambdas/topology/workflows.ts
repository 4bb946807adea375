// Step Functions state machines: ASL under statemachines/, each Task mapped to a handler module
// under lambdas/workers/ (exports `handler`). On AWS each Task resource is `${<Name>FnArn}`;
// locally the runner overrides the Task by its state name with the same handler.
export interface WorkflowSpec {
  name: string;
  aslFile: string;
  /** State name of each Task -> worker handler module. */
  tasks: Record<string, string>;
  /** State name of each sqs:sendMessage.waitForTaskToken Task -> queue name. */
  queueTasks: Record<string, string>;
  envVar: string;
  timeoutSeconds: number;
}

export const WORKFLOWS: readonly WorkflowSpec[] = [];
