// Step Functions behind the WorkflowEngine and TaskCallbacks ports. The same code talks to AWS
// and to the embedded service (lambdas/local/stepfunctions); only the client's endpoint differs.
import {
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import type { TaskCallbacks, WorkflowEngine } from '../ports/workflow';

/** Limits of StopExecution/SendTaskFailure fields; longer values are a ValidationException. */
const ERROR_MAX = 256;
const CAUSE_MAX = 32_768;

const nameOf = (error: unknown): string | undefined => (error as { name?: string } | undefined)?.name;

export function executionArnFor(stateMachineArn: string, executionId: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionId}`;
}

/** `arns`: workflow name (WorkflowSpec.name) -> state machine ARN (Config.stateMachineArns). */
export function createStepFunctionsWorkflowEngine(sfn: SFNClient, arns: Record<string, string>): WorkflowEngine {
  const arnOf = (workflow: string): string => {
    const arn = arns[workflow];
    if (!arn) throw new Error(`No state machine ARN configured for workflow "${workflow}"`);
    return arn;
  };
  return {
    async start(workflow, executionId, input) {
      try {
        await sfn.send(
          new StartExecutionCommand({
            stateMachineArn: arnOf(workflow),
            name: executionId,
            input: JSON.stringify(input),
          }),
        );
      } catch (error) {
        // Execution names are unique: a second start of the same id is a retry of the first.
        if (nameOf(error) !== 'ExecutionAlreadyExists') throw error;
      }
    },
    async stop(workflow, executionId, cause) {
      try {
        await sfn.send(
          new StopExecutionCommand({
            executionArn: executionArnFor(arnOf(workflow), executionId),
            error: 'Cancelled',
            cause: cause.slice(0, CAUSE_MAX),
          }),
        );
      } catch (error) {
        // Already ended, or never started / lost with a local restart: nothing left to stop.
        if (nameOf(error) !== 'ExecutionDoesNotExist') throw error;
      }
    },
  };
}

/**
 * Callbacks for `.waitForTaskToken` tasks. A token whose task already ended (the execution was
 * stopped, failed elsewhere or timed out) is not the worker's failure: those calls are no-ops.
 */
export function createStepFunctionsTaskCallbacks(sfn: SFNClient): TaskCallbacks {
  const tolerateEndedTask = (error: unknown): void => {
    const name = nameOf(error);
    if (name !== 'TaskDoesNotExist' && name !== 'TaskTimedOut') throw error;
  };
  return {
    async succeed(taskToken, output) {
      await sfn
        .send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }))
        .catch(tolerateEndedTask);
    },
    async fail(taskToken, error, cause) {
      await sfn
        .send(
          new SendTaskFailureCommand({ taskToken, error: error.slice(0, ERROR_MAX), cause: cause.slice(0, CAUSE_MAX) }),
        )
        .catch(tolerateEndedTask);
    },
  };
}
