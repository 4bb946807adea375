// What the executions service tells the rest of the service as executions move: the webhooks
// listen here. Only `subscribe` may fail its caller (a new execution is then not stored); the
// others never throw into the change that called them.
import type { Execution } from '../domain/executions/model';
import type { WebhookSpec } from '../domain/webhooks/model';

export interface ExecutionEvents {
  /** Before a new execution is stored: stores its webhook subscription, so every later event sees it. */
  subscribe(execution: Execution, webhook: WebhookSpec): Promise<void>;
  /** After a new execution with a webhook was stored. */
  created(execution: Execution): Promise<void>;
  /** After every successful state change (the caller's transition won). */
  transitioned(execution: Execution): Promise<void>;
  /** After progress counters were added (once per batch id). */
  progressed(executionId: string): Promise<void>;
}
