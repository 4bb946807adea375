// The workflow engine as the domain sees it: Step Functions on AWS, the embedded
// Step-Functions-compatible service locally (same SDK calls, different endpoint).
export interface WorkflowEngine {
  /** Starts `workflow` with execution name = executionId (operators find it by that id). */
  start(workflow: string, executionId: string, input: Record<string, unknown>): Promise<void>;
  /** Stops a running execution; a no-op if it already ended. */
  stop(workflow: string, executionId: string, cause: string): Promise<void>;
}

/** How a worker reports back to a `.waitForTaskToken` Task. */
export interface TaskCallbacks {
  succeed(taskToken: string, output: Record<string, unknown>): Promise<void>;
  fail(taskToken: string, error: string, cause: string): Promise<void>;
}
