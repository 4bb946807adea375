// Errors the embedded Step Functions service answers with, named as AWS names them so the
// SDK raises the same exception classes locally and on AWS.
export type SfnErrorType =
  | 'ExecutionDoesNotExist'
  | 'ExecutionAlreadyExists'
  | 'StateMachineDoesNotExist'
  | 'InvalidName'
  | 'InvalidArn'
  | 'InvalidExecutionInput'
  | 'InvalidOutput'
  | 'InvalidToken'
  | 'TaskDoesNotExist'
  | 'TaskTimedOut'
  | 'ValidationException'
  | 'UnknownOperationException'
  | 'SerializationException'
  | 'InternalFailure';

export class SfnServiceError extends Error {
  constructor(
    readonly type: SfnErrorType,
    message: string,
    readonly status = type === 'InternalFailure' ? 500 : 400,
  ) {
    super(message);
    this.name = type;
  }
}

/** An error with an ASL error name (what Retry/Catch match) and cause. */
export function statesError(name: string, cause: string): Error {
  const error = new Error(cause);
  error.name = name;
  return error;
}
