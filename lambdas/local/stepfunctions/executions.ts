// Runs executions of the registered state machines with aws-local-stepfunctions and keeps
// their status in memory. Every Task is overridden by state name: Lambda Tasks call the worker
// module's handler in process; SQS Tasks send through the SQS API, and the
// `.waitForTaskToken` ones wait for the callback that reaches this service's API.
import '../polyfills';
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { StateMachine } from 'aws-local-stepfunctions';
import { createLambdaContext, jsonRoundTrip, loadWorkerHandler } from '../workers';
import {
  allStates,
  executionArn as executionArnOf,
  prepareMachine,
  type MachineRegistration,
  type PreparedMachine,
  type TaskBinding,
} from './definitions';
import { SfnServiceError, statesError } from './errors';
import { TaskTokens } from './task-tokens';
import { ExecutionHistory, type InterpreterEvent } from './history';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  /** The interpreter's events so far (GetExecutionHistory); absent before it runs and once forgotten. */
  history?: ExecutionHistory;
  /** Settles when the interpreter's event log has been read to its end. */
  historyRead?: Promise<void>;
}

export interface ExecutionsOptions {
  machines: MachineRegistration[];
  /** queue logical name -> URL, for the `${<QueueKey>QueueUrl}` placeholders. */
  queueUrls: Record<string, string>;
  sqs: SQSClient;
  region?: string;
  /**
   * Definitions already validated (by their PreparedMachine.sourceKey). A machine found here is
   * built without running asl-validator again (most of the interpreter's set-up time); the others
   * are validated when the interpreter loads and added. Without it every definition is validated.
   */
  validated?: ValidationMemo;
  /** Replaces every Retry interval (ms), so local runs and tests do not sleep for minutes. */
  retryIntervalMs?: number;
  log?: (line: string) => void;
}

/** Placeholder injected as $$.Task.Token; each callback Task swaps it for a fresh token. */
const TOKEN_PLACEHOLDER = '__pds_local_task_token__';
/** AWS's payload limit for execution input/output, state data and task output. */
export const PAYLOAD_LIMIT_BYTES = 262_144;
/** Ended executions kept for Describe/List; older ones are forgotten first. */
const ENDED_EXECUTIONS_KEPT = 10_000;
/**
 * Ended executions whose state-by-state history is kept, and the events they may hold together
 * (memory); older ones keep their start and end only.
 */
const ENDED_HISTORIES_KEPT = 200;
const ENDED_HISTORY_EVENTS_KEPT = 100_000;

/** Remembered validations of state machine definitions (the local runtime keeps them in a file). */
export interface ValidationMemo {
  has(key: string): boolean;
  add(key: string): void;
}

type Interpreter = typeof import('aws-local-stepfunctions');

/**
 * Validates the definitions `memo` does not know yet (asl-validator through the interpreter
 * library, loaded only then) and remembers them; throws on the first invalid one.
 */
export async function validateDefinitions(machines: PreparedMachine[], memo: ValidationMemo): Promise<void> {
  const unknown = machines.filter((machine) => !memo.has(machine.sourceKey));
  if (unknown.length === 0) return;
  const library: Interpreter = await import('aws-local-stepfunctions');
  for (const machine of unknown) {
    new library.StateMachine(machine.definition as never);
    memo.add(machine.sourceKey);
  }
}

interface Machine {
  prepared: PreparedMachine;
  createdAt: Date;
  /** Built when the interpreter library is loaded (load()), validated unless remembered as valid. */
  interpreter?: StateMachine;
  retryIntervalOverrides: Record<string, number>;
}

interface Running {
  record: ExecutionRecord;
  abort(): void;
}

export class Executions {
  readonly tokens = new TaskTokens();
  private readonly machines = new Map<string, Machine>();
  private readonly executions = new Map<string, ExecutionRecord>();
  private readonly running = new Map<string, Running>();
  /** Ended executions with a history, oldest first. */
  private readonly endedHistories: ExecutionRecord[] = [];
  private endedHistoryEvents = 0;
  private readonly log: (line: string) => void;
  private library?: Interpreter;
  private loading?: Promise<Interpreter>;

  constructor(private readonly options: ExecutionsOptions) {
    this.log = options.log ?? (() => undefined);
    for (const registration of options.machines) this.register(registration);
  }

  /**
   * Adds (or replaces) a state machine; returns its ARN. Placeholders and task bindings are
   * checked here; the definition itself when the interpreter is built (at once if loaded).
   */
  register(registration: MachineRegistration): string {
    const prepared = prepareMachine(registration, this.options.queueUrls, this.options.region);
    const retryIntervalOverrides: Record<string, number> = {};
    if (this.options.retryIntervalMs !== undefined) {
      for (const [name, state] of allStates(prepared.definition))
        if (state.Retry) retryIntervalOverrides[name] = this.options.retryIntervalMs;
    }
    const machine: Machine = { prepared, createdAt: new Date(), retryIntervalOverrides };
    if (this.library) machine.interpreter = this.build(this.library, prepared);
    this.machines.set(prepared.arn, machine);
    return prepared.arn;
  }

  /** Whether the interpreter library is loaded (the machines' interpreters are built). */
  get loaded(): boolean {
    return this.library !== undefined;
  }

  /** True when every registered definition is remembered as valid: load() cannot fail on one. */
  get allValidated(): boolean {
    return [...this.machines.values()].every((m) => this.options.validated?.has(m.prepared.sourceKey));
  }

  /**
   * Loads the interpreter library (aws-local-stepfunctions, a quarter of a second to import) and
   * builds every machine's interpreter, validating those not remembered as valid (throws on the
   * first invalid one). Executions started before it ends run once it has.
   */
  load(): Promise<Interpreter> {
    this.loading ??= import('aws-local-stepfunctions').then(
      (library) => {
        for (const machine of this.machines.values()) machine.interpreter ??= this.build(library, machine.prepared);
        this.library = library;
        return library;
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  private build(library: Interpreter, prepared: PreparedMachine): StateMachine {
    const known = this.options.validated?.has(prepared.sourceKey) ?? false;
    // Validates the definition the way the library does (asl-validator, ARNs and paths checked).
    const interpreter = new library.StateMachine(
      prepared.definition as never,
      known ? { validationOptions: { noValidate: true } } : undefined,
    );
    if (!known) this.options.validated?.add(prepared.sourceKey);
    return interpreter;
  }

  get stateMachineArns(): Record<string, string> {
    return Object.fromEntries([...this.machines.values()].map((m) => [m.prepared.name, m.prepared.arn]));
  }

  start(stateMachineArn: string, name: string | undefined, input: string | undefined): ExecutionRecord {
    if (!STATE_MACHINE_ARN.test(stateMachineArn))
      throw new SfnServiceError('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
    const machine = this.machines.get(stateMachineArn);
    if (!machine)
      throw new SfnServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    const executionName = name ?? randomUUID();
    validateName(executionName);
    const inputText = input ?? '{}';
    const parsedInput = parseJson(inputText, 'InvalidExecutionInput');
    if (Buffer.byteLength(inputText) > PAYLOAD_LIMIT_BYTES)
      throw new SfnServiceError('InvalidExecutionInput', 'Input exceeds 262144 bytes');

    const arn = executionArnOf(stateMachineArn, executionName);
    const existing = this.executions.get(arn);
    if (existing) {
      // AWS: same name + same input while running is idempotent; anything else conflicts.
      if (existing.status === 'RUNNING' && existing.input === inputText) return existing;
      throw new SfnServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }

    const record: ExecutionRecord = {
      executionArn: arn,
      stateMachineArn,
      name: executionName,
      input: inputText,
      status: 'RUNNING',
      startDate: new Date(),
    };
    this.executions.set(arn, record);
    if (machine.interpreter) this.launch(machine, machine.interpreter, record, parsedInput);
    else {
      // The interpreter is still loading: the execution runs once it is (StartExecution answers at once on AWS too).
      let aborted = false;
      this.running.set(arn, { record, abort: () => (aborted = true) });
      this.load().then(
        () => {
          if (!aborted && record.status === 'RUNNING') this.launch(machine, machine.interpreter!, record, parsedInput);
        },
        (error: unknown) => this.end(record, 'FAILED', { error: 'States.Runtime', cause: (error as Error).message }),
      );
    }
    this.log(`execution started ${arn}`);
    return record;
  }

  private launch(machine: Machine, interpreter: StateMachine, record: ExecutionRecord, parsedInput: unknown): void {
    const { executionArn: arn, stateMachineArn, name: executionName } = record;
    const execution = interpreter.run(parsedInput as never, {
      overrides: {
        taskResourceLocalHandlers: this.taskHandlers(machine.prepared, record) as never,
        retryIntervalOverrides: machine.retryIntervalOverrides,
      },
      context: {
        Execution: { Id: arn, Name: executionName, StartTime: record.startDate.toISOString() },
        StateMachine: { Id: stateMachineArn, Name: machine.prepared.name },
        Task: { Token: TOKEN_PLACEHOLDER },
      },
    });
    this.running.set(arn, { record, abort: execution.abort });
    record.history = new ExecutionHistory(machine.prepared.tasks, this.options.region ?? 'us-east-1');
    record.historyRead = this.watchEvents(record, record.history, execution.eventLogs);
    execution.result.then(
      (output) => {
        const text = JSON.stringify(output ?? null);
        if (Buffer.byteLength(text) > PAYLOAD_LIMIT_BYTES)
          this.end(record, 'FAILED', {
            error: 'States.DataLimitExceeded',
            cause: 'Execution output exceeds 262144 bytes',
          });
        else this.end(record, 'SUCCEEDED', { output: text });
      },
      (error: unknown) => this.end(record, ...classify(this.library!, error)),
    );
  }

  stop(arn: string, error?: string, cause?: string): ExecutionRecord {
    const record = this.describe(arn);
    if (record.status !== 'RUNNING') return record;
    const run = this.running.get(arn);
    this.end(record, 'ABORTED', { error, cause });
    run?.abort();
    return record;
  }

  describe(arn: string): ExecutionRecord {
    if (!EXECUTION_ARN.test(arn)) throw new SfnServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    const record = this.executions.get(arn);
    if (!record) throw new SfnServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return record;
  }

  /** Newest first, as AWS lists them. */
  list(stateMachineArn: string, status?: ExecutionStatus): ExecutionRecord[] {
    if (!this.machines.has(stateMachineArn))
      throw new SfnServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    return [...this.executions.values()]
      .filter((e) => e.stateMachineArn === stateMachineArn && (!status || e.status === status))
      .sort((a, b) => b.startDate.getTime() - a.startDate.getTime());
  }

  /** Aborts everything still running (service shutdown). */
  stopAll(cause: string): void {
    for (const { record } of [...this.running.values()]) this.stop(record.executionArn, 'States.Runtime', cause);
  }

  get runningCount(): number {
    return this.running.size;
  }

  private end(record: ExecutionRecord, status: ExecutionStatus, fields: Partial<ExecutionRecord>): void {
    if (record.status !== 'RUNNING') return;
    Object.assign(record, fields, { status, stopDate: new Date() });
    this.running.delete(record.executionArn);
    this.tokens.dropExecution(record.executionArn);
    this.log(`execution ${status.toLowerCase()} ${record.executionArn}${record.error ? ` (${record.error})` : ''}`);
    this.keepHistory(record);
    this.forgetOldest();
  }

  private keepHistory(record: ExecutionRecord): void {
    if (!record.history) return;
    this.endedHistories.push(record);
    this.endedHistoryEvents += record.history.entries.length;
    while (
      this.endedHistories.length > ENDED_HISTORIES_KEPT ||
      (this.endedHistories.length > 1 && this.endedHistoryEvents > ENDED_HISTORY_EVENTS_KEPT)
    ) {
      const oldest = this.endedHistories.shift()!;
      this.endedHistoryEvents -= oldest.history?.entries.length ?? 0;
      oldest.history = undefined;
    }
  }

  /** The state machine an ARN names (DescribeStateMachine), or StateMachineDoesNotExist. */
  machine(stateMachineArn: string): PreparedMachine & { createdAt: Date } {
    if (!STATE_MACHINE_ARN.test(stateMachineArn))
      throw new SfnServiceError('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
    const machine = this.machines.get(stateMachineArn);
    if (!machine)
      throw new SfnServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    return { ...machine.prepared, createdAt: machine.createdAt };
  }

  /** Every state machine served, by name. */
  machineList(): Array<PreparedMachine & { createdAt: Date }> {
    return [...this.machines.keys()].map((arn) => this.machine(arn)).sort((a, b) => a.name.localeCompare(b.name));
  }

  private forgetOldest(): void {
    const excess = this.executions.size - this.running.size - ENDED_EXECUTIONS_KEPT;
    if (excess <= 0) return;
    let removed = 0;
    for (const [arn, record] of this.executions) {
      if (removed >= excess) break;
      if (record.status === 'RUNNING') continue;
      this.executions.delete(arn);
      removed++;
    }
  }

  /**
   * Reads the event log to its end (it buffers otherwise): each event goes to the history, and
   * AWS's state payload limit is enforced while the execution runs.
   */
  private async watchEvents(
    record: ExecutionRecord,
    history: ExecutionHistory,
    events: AsyncGenerator<unknown>,
  ): Promise<void> {
    try {
      for await (const event of events as AsyncGenerator<InterpreterEvent>) {
        history.record(event);
        if (record.status !== 'RUNNING' || event.type !== 'StateExited' || !event.state) continue;
        const size = Buffer.byteLength(JSON.stringify(event.state.output ?? null));
        if (size > PAYLOAD_LIMIT_BYTES) {
          const run = this.running.get(record.executionArn);
          this.end(record, 'FAILED', {
            error: 'States.DataLimitExceeded',
            cause: `The state/task '${event.state.name}' returned a result with a size exceeding the maximum number of bytes service limit.`,
          });
          run?.abort();
        }
      }
    } catch (error) {
      this.log(`event log of ${record.executionArn} failed: ${(error as Error).message}`);
    }
  }

  private taskHandlers(machine: PreparedMachine, record: ExecutionRecord) {
    const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const [stateName, binding] of machine.tasks) {
      handlers[stateName] = async (input) => {
        // A stopped execution's queued Map iterations still enter their first state: refuse.
        if (record.status !== 'RUNNING') throw statesError('States.Runtime', 'Execution stopped');
        const output =
          binding.kind === 'lambda'
            ? await this.invokeLambda(binding, input)
            : await this.sendToQueue(binding, input, record);
        if (Buffer.byteLength(JSON.stringify(output ?? null)) > PAYLOAD_LIMIT_BYTES) {
          throw statesError(
            'States.DataLimitExceeded',
            `The state/task '${stateName}' returned a result exceeding 262144 bytes`,
          );
        }
        return output;
      };
    }
    return handlers;
  }

  private async invokeLambda(binding: Extract<TaskBinding, { kind: 'lambda' }>, input: unknown): Promise<unknown> {
    const event = jsonRoundTrip(binding.viaInvoke ? (input as { Payload?: unknown }).Payload : input);
    let result: unknown;
    try {
      const handler = await loadWorkerHandler(binding.module, binding.workersDir);
      result = await handler(
        event,
        createLambdaContext({
          functionName: binding.functionName,
          timeoutMs: binding.timeoutMs,
          region: this.options.region,
        }),
      );
    } catch (error) {
      throw lambdaError(error);
    }
    const payload = jsonRoundTrip(result);
    return binding.viaInvoke ? { ExecutedVersion: '$LATEST', Payload: payload, StatusCode: 200 } : payload;
  }

  private async sendToQueue(
    binding: Extract<TaskBinding, { kind: 'sqs' }>,
    input: unknown,
    record: ExecutionRecord,
  ): Promise<unknown> {
    const params = (input ?? {}) as {
      MessageBody?: unknown;
      DelaySeconds?: number;
      MessageAttributes?: Record<string, never>;
      MessageGroupId?: string;
      MessageDeduplicationId?: string;
    };
    let body = params.MessageBody;
    let waiting: Promise<unknown> | undefined;
    let token: string | undefined;
    if (binding.waitForTaskToken) {
      const minted = this.tokens.mint(record.executionArn, binding.stateName, binding);
      token = minted.token;
      waiting = minted.promise;
      // Callers may never see the promise if sending fails: keep that rejection handled.
      waiting.catch(() => undefined);
      const replaced = replaceToken(body, token);
      if (!replaced.found) {
        this.tokens.discard(token);
        throw statesError('States.Runtime', `Task "${binding.stateName}": MessageBody does not carry $$.Task.Token`);
      }
      body = replaced.value;
    }
    try {
      const sent = await this.options.sqs.send(
        new SendMessageCommand({
          QueueUrl: binding.queueUrl,
          MessageBody: typeof body === 'string' ? body : JSON.stringify(body ?? null),
          DelaySeconds: params.DelaySeconds,
          MessageAttributes: params.MessageAttributes,
          MessageGroupId: params.MessageGroupId,
          MessageDeduplicationId: params.MessageDeduplicationId,
        }),
      );
      if (!waiting) return { MessageId: sent.MessageId, MD5OfMessageBody: sent.MD5OfMessageBody };
    } catch (error) {
      if (token) this.tokens.discard(token);
      throw statesError(`SQS.${(error as Error).name || 'SdkClientException'}`, (error as Error).message);
    }
    return waiting;
  }
}

function classify(
  { ExecutionError, ExecutionTimeoutError }: Interpreter,
  error: unknown,
): [ExecutionStatus, Partial<ExecutionRecord>] {
  if (error instanceof ExecutionTimeoutError)
    return ['TIMED_OUT', { error: 'States.Timeout', cause: 'Execution timed out (TimeoutSeconds)' }];
  const cause = error instanceof ExecutionError ? (error.cause as Error) : (error as Error);
  return ['FAILED', { error: cause?.name ?? 'States.Runtime', cause: cause?.message ?? String(error) }];
}

/** What Step Functions reports for a Lambda that threw: the error type, and a JSON cause. */
function lambdaError(error: unknown): Error {
  const e = error instanceof Error ? error : new Error(String(error));
  const errorType = e.name || 'Error';
  return statesError(
    errorType,
    JSON.stringify({ errorType, errorMessage: e.message, trace: (e.stack ?? '').split('\n') }),
  );
}

function replaceToken(value: unknown, token: string): { value: unknown; found: boolean } {
  let found = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!v.includes(TOKEN_PLACEHOLDER)) return v;
      found = true;
      return v.split(TOKEN_PLACEHOLDER).join(token);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { value: walk(value), found };
}

const EXECUTION_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:execution:[^:]+:[^:]+$/;
const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[^:]+$/;
const FORBIDDEN_NAME = /[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]/;

function validateName(name: string): void {
  if (typeof name !== 'string' || name.length < 1 || name.length > 80 || FORBIDDEN_NAME.test(name)) {
    throw new SfnServiceError('InvalidName', `Invalid Name: '${name}'`);
  }
}

export function parseJson(text: string, errorType: 'InvalidExecutionInput' | 'InvalidOutput'): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SfnServiceError(errorType, `Invalid JSON: ${text.slice(0, 100)}`);
  }
}
