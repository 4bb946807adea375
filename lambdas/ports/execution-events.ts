// What the executions service tells the rest of the service as executions move: the webhooks
// listen here. An implementation never throws into the transition that called it.
import type { Execution } from '../domain/executions/model';

export interface ExecutionEvents {
  /** After every successful state change (the caller's transition won). */
  transitioned(execution: Execution): Promise<void>;
  /** After progress counters were added (once per batch id). */
  progressed(executionId: string): Promise<void>;
}
