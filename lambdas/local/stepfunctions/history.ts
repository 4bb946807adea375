// An execution's history as GetExecutionHistory answers it on AWS, made from the interpreter's
// own event log (aws-local-stepfunctions' `eventLogs`: states entered, exited, failed, retried and
// caught, map iterations started, succeeded and failed) and the execution's start and end. A
// Task state's events also give the task's own ones as AWS reports them: scheduled and started
// on entry and on each retry, failed on a failed attempt, succeeded before a normal exit.
import type { TaskBinding } from './definitions';
import { LOCAL_ACCOUNT } from '../workers';

/** AWS's own ceiling on the events of one execution. */
export const MAX_HISTORY_EVENTS = 25_000;
/** Inputs and outputs longer than this are cut in the history (their details say `truncated`). */
export const MAX_HISTORY_PAYLOAD_CHARS = 8_192;

/** What the interpreter's event log yields (the fields read here). */
export interface InterpreterEvent {
  type: string;
  timestamp: number;
  state?: { name: string; type: string; input?: unknown; output?: unknown };
  parentState?: { name: string };
  index?: number;
  Error?: string;
  Cause?: unknown;
}

/** One stored event: its type, time, the field its details go in on the wire, and whether it belongs to a map iteration. */
export interface HistoryEntry {
  type: string;
  at: number;
  detailsKey?: string;
  details?: Record<string, unknown>;
  iteration?: boolean;
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** A payload field and its `<field>Details` as AWS gives them. */
function payload(field: 'input' | 'output', value: unknown): Record<string, unknown> {
  const full = text(value);
  const truncated = full.length > MAX_HISTORY_PAYLOAD_CHARS;
  return { [field]: truncated ? full.slice(0, MAX_HISTORY_PAYLOAD_CHARS) : full, [`${field}Details`]: { truncated } };
}

const cause = (value: unknown) => (value instanceof Error ? value.message : text(value));

/** The `resourceType`/`resource` pair AWS reports for a Task (lambda invoke, sqs sendMessage...). */
function resourceOf(binding: TaskBinding | undefined): { resourceType: string; resource: string } {
  if (binding?.kind === 'sqs')
    return { resourceType: 'sqs', resource: binding.waitForTaskToken ? 'sendMessage.waitForTaskToken' : 'sendMessage' };
  return { resourceType: 'lambda', resource: 'invoke' };
}

/** The events of one execution, recorded from its interpreter's event log as they arrive. */
export class ExecutionHistory {
  readonly entries: HistoryEntry[] = [];
  /** Task states (by iteration and name) whose last attempt failed: no TaskSucceeded at their exit. */
  private readonly failedAttempt = new Set<string>();

  constructor(
    private readonly tasks: ReadonlyMap<string, TaskBinding>,
    private readonly region: string,
  ) {}

  private push(entry: HistoryEntry): void {
    if (this.entries.length < MAX_HISTORY_EVENTS) this.entries.push(entry);
  }

  private task(event: InterpreterEvent, type: string, details: Record<string, unknown> = {}): void {
    const key = type.replace(/^Task/, 'task').concat('EventDetails');
    const resource = resourceOf(this.tasks.get(event.state!.name));
    this.push({
      type,
      at: event.timestamp,
      detailsKey: key,
      details: { ...resource, ...details },
      iteration: event.index !== undefined,
    });
  }

  private scheduled(event: InterpreterEvent): void {
    this.task(event, 'TaskScheduled', { region: this.region, parameters: text(event.state!.input) });
    this.task(event, 'TaskStarted');
  }

  record(event: InterpreterEvent): void {
    const { state } = event;
    const iteration = event.index !== undefined;
    const key = `${event.index ?? ''}|${state?.name}`;
    if (event.type.startsWith('MapIteration')) {
      const detailsKey = `${event.type[0].toLowerCase()}${event.type.slice(1)}EventDetails`;
      const details = { name: event.parentState?.name, index: event.index };
      this.push({ type: event.type, at: event.timestamp, detailsKey, details, iteration: true });
      return;
    }
    if (!state) return;
    const isTask = state.type === 'Task';
    if (event.type === 'StateEntered') {
      this.failedAttempt.delete(key);
      this.push({
        type: `${state.type}StateEntered`,
        at: event.timestamp,
        detailsKey: 'stateEnteredEventDetails',
        details: { name: state.name, ...payload('input', state.input) },
        iteration,
      });
      if (isTask) this.scheduled(event);
    } else if (event.type === 'StateExited') {
      if (isTask && !this.failedAttempt.has(key)) this.task(event, 'TaskSucceeded', payload('output', state.output));
      this.failedAttempt.delete(key);
      this.push({
        type: `${state.type}StateExited`,
        at: event.timestamp,
        detailsKey: 'stateExitedEventDetails',
        details: { name: state.name, ...payload('output', state.output) },
        iteration,
      });
    } else if (event.type === 'StateFailed' && isTask) {
      this.failedAttempt.add(key);
      this.task(event, 'TaskFailed', { error: event.Error ?? 'States.TaskFailed', cause: cause(event.Cause) });
    } else if (event.type === 'StateRetried' && isTask) {
      this.failedAttempt.delete(key);
      this.scheduled(event);
    }
  }
}

/**
 * The recorded events in order. They arrive in order except a map's iterations, which the
 * interpreter forwards from each nested run on its own, a few turns late: each comes before its
 * map's exit, and the iterations' events are merged by time (each iteration's own stay in order).
 */
export function ordered(entries: readonly HistoryEntry[]): HistoryEntry[] {
  const out = iterationsInsideTheirMap(entries);
  for (let start = 0; start < out.length; start++) {
    if (!out[start].iteration) continue;
    let end = start;
    while (end < out.length && out[end].iteration) end++;
    // A stable sort: events of one millisecond keep the order they came in.
    out.splice(start, end - start, ...out.slice(start, end).sort((a, b) => a.at - b.at));
    start = end;
  }
  return out;
}

function iterationsInsideTheirMap(entries: readonly HistoryEntry[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  let mapExit = -1;
  for (const entry of entries) {
    if (entry.iteration && mapExit >= 0) {
      out.splice(mapExit, 0, entry);
      mapExit++;
      continue;
    }
    if (!entry.iteration && entry.type === 'MapStateExited') mapExit = out.length;
    else if (!entry.iteration && entry.type === 'MapStateEntered') mapExit = -1;
    out.push(entry);
  }
  return out;
}

export const LOCAL_ROLE_ARN = `arn:aws:iam::${LOCAL_ACCOUNT}:role/pds-local-stepfunctions`;

/** An execution's start and end as history events (the interpreter's own are left out: the service decides the end). */
export function executionStarted(input: string, at: Date): HistoryEntry {
  return {
    type: 'ExecutionStarted',
    at: at.getTime(),
    detailsKey: 'executionStartedEventDetails',
    details: { ...payload('input', input), roleArn: LOCAL_ROLE_ARN },
  };
}

export function executionEnded(record: {
  status: string;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
}): HistoryEntry | null {
  if (record.status === 'RUNNING' || !record.stopDate) return null;
  const at = record.stopDate.getTime();
  const failure = {
    ...(record.error ? { error: record.error } : {}),
    ...(record.cause ? { cause: record.cause } : {}),
  };
  switch (record.status) {
    case 'SUCCEEDED':
      return {
        type: 'ExecutionSucceeded',
        at,
        detailsKey: 'executionSucceededEventDetails',
        details: payload('output', record.output ?? 'null'),
      };
    case 'ABORTED':
      return { type: 'ExecutionAborted', at, detailsKey: 'executionAbortedEventDetails', details: failure };
    case 'TIMED_OUT':
      return { type: 'ExecutionTimedOut', at, detailsKey: 'executionTimedOutEventDetails', details: failure };
    default:
      return { type: 'ExecutionFailed', at, detailsKey: 'executionFailedEventDetails', details: failure };
  }
}
