// Turns an ASL file with CDK-style substitution placeholders into a definition the embedded
// interpreter can run, and binds every Task state (by name) to what it does locally.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowSpec } from '../../topology/workflows';
import { LOCAL_ACCOUNT, localLambdaArn } from '../workers';

export const STATEMACHINES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../statemachines');

/** A state machine to serve: the topology entry plus where its files live. */
export interface MachineRegistration {
  spec: Pick<WorkflowSpec, 'name' | 'aslFile' | 'tasks' | 'queues'> & Partial<Pick<WorkflowSpec, 'timeoutSeconds'>>;
  /** Directory of `spec.aslFile`; default statemachines/. */
  aslDir?: string;
  /** Directory of the `spec.tasks` worker modules; default lambdas/workers/. */
  workersDir?: string;
}

export type TaskBinding =
  | {
      kind: 'lambda';
      stateName: string;
      functionName: string;
      module: string;
      workersDir?: string;
      viaInvoke: boolean;
      timeoutMs: number;
    }
  | {
      kind: 'sqs';
      stateName: string;
      queueUrl: string;
      waitForTaskToken: boolean;
      timeoutSeconds?: number;
      heartbeatSeconds?: number;
    };

export interface PreparedMachine {
  name: string;
  arn: string;
  definition: AslDefinition;
  tasks: Map<string, TaskBinding>;
  /** Hash of what the definition is made from (ASL text, topology entry, region): the key of a remembered validation. */
  sourceKey: string;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  TimeoutSeconds?: number;
  [key: string]: unknown;
}
type AslState = Record<string, unknown> & { Type: string };

/** setTimeout's ceiling; stands in for AWS's "no timeout" on callback tasks. */
export const MAX_TIMER_SECONDS = 2_147_483;
/** Lambda's own ceiling, which bounds a Lambda Task without TimeoutSeconds on AWS. */
const LAMBDA_MAX_SECONDS = 900;

const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';
const SQS_SEND = 'arn:aws:states:::sqs:sendMessage';
const SQS_SEND_WAIT = 'arn:aws:states:::sqs:sendMessage.waitForTaskToken';

export function stateMachineArn(name: string, region = 'us-east-1'): string {
  return `arn:aws:states:${region}:${LOCAL_ACCOUNT}:stateMachine:${name}`;
}

export function executionArn(machineArn: string, executionName: string): string {
  return `${machineArn.replace(':stateMachine:', ':execution:')}:${executionName}`;
}

export function prepareMachine(
  registration: MachineRegistration,
  queueUrls: Record<string, string>,
  region = 'us-east-1',
): PreparedMachine {
  const { spec } = registration;
  const file = join(registration.aslDir ?? STATEMACHINES_DIR, spec.aslFile);
  const text = readFileSync(file, 'utf8');
  const raw = JSON.parse(text) as AslDefinition;
  const sourceKey = createHash('sha256')
    .update(JSON.stringify([text, spec.name, spec.tasks, spec.queues, spec.timeoutSeconds ?? null, region]))
    .digest('hex');

  const values: Record<string, string> = {};
  const moduleOfArn = new Map<string, string>();
  for (const [fnKey, module] of Object.entries(spec.tasks)) {
    const arn = localLambdaArn(`${spec.name}-${fnKey}`, region);
    values[`${fnKey}FnArn`] = arn;
    moduleOfArn.set(arn, module);
  }
  for (const [queueKey, queueName] of Object.entries(spec.queues)) {
    const url = queueUrls[queueName];
    if (!url) throw new Error(`${spec.name}: no local queue "${queueName}" for \${${queueKey}QueueUrl}`);
    values[`${queueKey}QueueUrl`] = url;
  }
  const definition = substitute(raw, values, `${spec.name} (${file})`) as AslDefinition;
  // The execution deadline, as the CDK stack sets it on the deployed definition.
  if (spec.timeoutSeconds !== undefined) definition.TimeoutSeconds = Math.min(spec.timeoutSeconds, MAX_TIMER_SECONDS);

  const tasks = new Map<string, TaskBinding>();
  for (const [stateName, state] of allStates(definition)) {
    if (state.Type !== 'Task') continue;
    tasks.set(stateName, bindTask(stateName, state, moduleOfArn, registration.workersDir, spec.name));
  }
  return { name: spec.name, arn: stateMachineArn(spec.name, region), definition, tasks, sourceKey };
}

function bindTask(
  stateName: string,
  state: AslState,
  moduleOfArn: Map<string, string>,
  workersDir: string | undefined,
  machine: string,
): TaskBinding {
  const resource = String(state.Resource ?? '');
  const params = (state.Parameters ?? {}) as Record<string, unknown>;
  const timeoutSeconds = typeof state.TimeoutSeconds === 'number' ? state.TimeoutSeconds : undefined;
  const heartbeatSeconds = typeof state.HeartbeatSeconds === 'number' ? state.HeartbeatSeconds : undefined;
  const where = `${machine}: Task "${stateName}"`;

  if (resource.startsWith('arn:aws:lambda:') || resource === LAMBDA_INVOKE) {
    const viaInvoke = resource === LAMBDA_INVOKE;
    const arn = viaInvoke ? params.FunctionName : resource;
    const module = typeof arn === 'string' ? moduleOfArn.get(arn.replace(/:(\$LATEST|\d+)$/, '')) : undefined;
    if (!module) throw new Error(`${where}: Lambda target must be a \${<FnKey>FnArn} placeholder of this workflow`);
    // Lambda Tasks default to the function's own limit, not the interpreter's 60 s.
    if (timeoutSeconds === undefined && state.TimeoutSecondsPath === undefined)
      state.TimeoutSeconds = LAMBDA_MAX_SECONDS;
    const functionName = (arn as string).split(':function:')[1]!.split(':')[0]!;
    return {
      kind: 'lambda',
      stateName,
      functionName,
      module,
      workersDir,
      viaInvoke,
      timeoutMs: Math.min(timeoutSeconds ?? LAMBDA_MAX_SECONDS, LAMBDA_MAX_SECONDS) * 1000,
    };
  }
  if (resource === SQS_SEND || resource === SQS_SEND_WAIT) {
    if (typeof params.QueueUrl !== 'string')
      throw new Error(`${where}: QueueUrl must be a \${<QueueKey>QueueUrl} placeholder`);
    const waitForTaskToken = resource === SQS_SEND_WAIT;
    if (waitForTaskToken && !JSON.stringify(params).includes('$$.Task.Token')) {
      throw new Error(`${where}: a .waitForTaskToken task must pass $$.Task.Token in its Parameters`);
    }
    // AWS waits up to a year for a callback; the interpreter's default would be 60 s.
    if (timeoutSeconds === undefined && state.TimeoutSecondsPath === undefined)
      state.TimeoutSeconds = MAX_TIMER_SECONDS;
    else if (timeoutSeconds !== undefined && timeoutSeconds > MAX_TIMER_SECONDS)
      state.TimeoutSeconds = MAX_TIMER_SECONDS;
    return { kind: 'sqs', stateName, queueUrl: params.QueueUrl, waitForTaskToken, timeoutSeconds, heartbeatSeconds };
  }
  throw new Error(`${where}: resource ${resource} has no local implementation (Lambda and SQS tasks only)`);
}

/** Every state, including those inside Map and Parallel (names are unique machine-wide in ASL). */
export function* allStates(definition: { States: Record<string, AslState> }): Generator<[string, AslState]> {
  for (const [name, state] of Object.entries(definition.States)) {
    yield [name, state];
    const processor = (state.ItemProcessor ?? state.Iterator) as AslDefinition | undefined;
    if (state.Type === 'Map' && processor) yield* allStates(processor);
    if (state.Type === 'Parallel') for (const branch of state.Branches as AslDefinition[]) yield* allStates(branch);
  }
}

function substitute(value: unknown, values: Record<string, string>, where: string): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z0-9_]+)\}/g, (_, key: string) => {
      if (!(key in values)) throw new Error(`${where}: unknown substitution \${${key}}`);
      return values[key]!;
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, values, where));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, values, where)]));
  }
  return value;
}
