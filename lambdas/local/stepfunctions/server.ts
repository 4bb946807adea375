// The embedded Step Functions service: the AWS JSON 1.0 protocol on loopback, so the same
// @aws-sdk/client-sfn calls work here and on AWS (the client only gets another endpoint).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MachineRegistration, PreparedMachine } from './definitions';
import { executionEnded, executionStarted, LOCAL_ROLE_ARN, ordered, type HistoryEntry } from './history';
import { SfnServiceError } from './errors';
import {
  Executions,
  parseJson,
  PAYLOAD_LIMIT_BYTES,
  type ExecutionRecord,
  type ExecutionsOptions,
  type ExecutionStatus,
} from './executions';

export interface StepFunctionsServiceOptions extends ExecutionsOptions {
  port?: number;
  host?: string;
}

export interface StepFunctionsService {
  /** http://127.0.0.1:<port>, for Config.endpoints.stepFunctions. */
  endpoint: string;
  /** workflow name -> state machine ARN. */
  readonly stateMachineArns: Record<string, string>;
  executions: Executions;
  /**
   * Loads the interpreter library and builds the machines' interpreters. Done before the service
   * is returned unless every definition is remembered as valid (options.validated); then it is
   * left to the caller (after start-up), and an execution started before waits for it.
   */
  load(): Promise<void>;
  /** Serves one more state machine (tests register fixtures); returns its ARN. */
  register(registration: MachineRegistration): string;
  /** Aborts running executions (they do not survive a restart) and closes the server. */
  stop(): Promise<void>;
}

const MAX_REQUEST_BYTES = 1_048_576;
/** How long GetExecutionHistory of an ended execution waits for the rest of its event log. */
const HISTORY_READ_WAIT_MS = 2_000;
const STATUSES: ExecutionStatus[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'];

type Body = Record<string, unknown>;

export async function startStepFunctionsService(options: StepFunctionsServiceOptions): Promise<StepFunctionsService> {
  const executions = new Executions(options);
  // An invalid definition fails the start, before anything listens.
  if (!executions.allValidated) await executions.load();
  const operations: Record<string, (body: Body) => unknown> = {
    ...operatorOperations(executions),
    StartExecution(body) {
      const record = executions.start(str(body, 'stateMachineArn', true)!, str(body, 'name'), str(body, 'input'));
      return { executionArn: record.executionArn, startDate: epoch(record.startDate) };
    },
    StopExecution(body) {
      const record = executions.stop(str(body, 'executionArn', true)!, str(body, 'error'), str(body, 'cause'));
      return { stopDate: epoch(record.stopDate!) };
    },
    DescribeExecution(body) {
      return describe(executions.describe(str(body, 'executionArn', true)!));
    },
    ListExecutions(body) {
      const status = str(body, 'statusFilter') as ExecutionStatus | undefined;
      if (status && !STATUSES.includes(status))
        throw new SfnServiceError('ValidationException', `Invalid statusFilter: ${status}`);
      const all = executions.list(str(body, 'stateMachineArn', true)!, status);
      const { page, nextToken } = pageOf(all, body);
      return {
        executions: page.map((e) => ({
          executionArn: e.executionArn,
          stateMachineArn: e.stateMachineArn,
          name: e.name,
          status: e.status,
          startDate: epoch(e.startDate),
          ...(e.stopDate ? { stopDate: epoch(e.stopDate) } : {}),
        })),
        ...(nextToken ? { nextToken } : {}),
      };
    },
    SendTaskSuccess(body) {
      const output = str(body, 'output', true)!;
      if (Buffer.byteLength(output) > PAYLOAD_LIMIT_BYTES)
        throw new SfnServiceError('ValidationException', 'output exceeds 262144 bytes');
      const parsed = parseJson(output, 'InvalidOutput');
      executions.tokens.succeed(str(body, 'taskToken', true)!, parsed);
      return {};
    },
    SendTaskFailure(body) {
      const error = str(body, 'error');
      const cause = str(body, 'cause');
      if (error && error.length > 256) throw new SfnServiceError('ValidationException', 'error exceeds 256 characters');
      if (cause && cause.length > 32_768)
        throw new SfnServiceError('ValidationException', 'cause exceeds 32768 characters');
      executions.tokens.fail(str(body, 'taskToken', true)!, error, cause);
      return {};
    },
    SendTaskHeartbeat(body) {
      executions.tokens.heartbeat(str(body, 'taskToken', true)!);
      return {};
    },
  };

  const internalFailure = (error: unknown): Answer => {
    options.log?.(`stepfunctions: ${(error as Error).stack ?? error}`);
    return errorAnswer(new SfnServiceError('InternalFailure', 'Internal failure'));
  };
  const server = createServer((req, res) => {
    // biome-ignore format: one chain
    readBody(req)
      .then((text) => (text === null ? tooLarge() : answer(operations, req.method, req.headers['x-amz-target'], text)))
      .catch(internalFailure)
      .then((reply) => {
        if (!res.headersSent) send(res, reply);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;

  return {
    endpoint,
    get stateMachineArns() {
      return executions.stateMachineArns;
    },
    executions,
    load: async () => {
      await executions.load();
    },
    register: (registration) => executions.register(registration),
    async stop() {
      executions.stopAll('Service stopped');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A reply of the JSON 1.0 protocol: its status and its JSON payload. */
interface Answer {
  status: number;
  payload: unknown;
}

/** The request's body as text, or null past MAX_REQUEST_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = (): Answer => errorAnswer(new SfnServiceError('ValidationException', 'Request too large'), 413);

/** One request: the operation its target names, on its JSON body. */
async function answer(
  operations: Record<string, (body: Body) => unknown>,
  method: string | undefined,
  targetHeader: string | string[] | undefined,
  text: string,
): Promise<Answer> {
  const target = String(targetHeader ?? '');
  const [prefix, name] = target.split('.');
  const operation = prefix === 'AWSStepFunctions' && name ? operations[name] : undefined;
  if (method !== 'POST' || !operation)
    return errorAnswer(new SfnServiceError('UnknownOperationException', `Unknown operation ${target}`));
  let body: Body;
  try {
    body = text ? (JSON.parse(text) as Body) : {};
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
  } catch {
    return errorAnswer(new SfnServiceError('SerializationException', 'Request body is not a JSON object'));
  }
  try {
    return { status: 200, payload: await operation(body) };
  } catch (error) {
    if (error instanceof SfnServiceError) return errorAnswer(error);
    throw error;
  }
}

function describe(e: ExecutionRecord) {
  return {
    executionArn: e.executionArn,
    stateMachineArn: e.stateMachineArn,
    name: e.name,
    status: e.status,
    startDate: epoch(e.startDate),
    input: e.input,
    inputDetails: { included: true },
    ...(e.stopDate ? { stopDate: epoch(e.stopDate) } : {}),
    ...(e.output !== undefined ? { output: e.output, outputDetails: { included: true } } : {}),
    ...(e.error !== undefined ? { error: e.error } : {}),
    ...(e.cause !== undefined ? { cause: e.cause } : {}),
  };
}

/** The JSON protocols carry timestamps as epoch seconds. */
const epoch = (date: Date): number => date.getTime() / 1000;

function str(body: Body, field: string, required = false): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    if (required)
      throw new SfnServiceError('ValidationException', `1 validation error detected: '${field}' must not be null`);
    return undefined;
  }
  if (typeof value !== 'string') throw new SfnServiceError('SerializationException', `'${field}' must be a string`);
  return value;
}

const responseHeaders = (text: string) => ({
  'content-type': 'application/x-amz-json-1.0',
  'content-length': String(Buffer.byteLength(text)),
  'x-amzn-requestid': crypto.randomUUID(),
});

function send(res: ServerResponse, reply: Answer): void {
  const text = JSON.stringify(reply.payload);
  res.writeHead(reply.status, responseHeaders(text));
  res.end(text);
}

const errorAnswer = (error: SfnServiceError, status = error.status): Answer => ({
  status,
  payload: { __type: error.type, message: error.message },
});

/** One page of `all` by the request's maxResults (default 100, at most 1000) and nextToken (an offset). */
function pageOf<T>(all: readonly T[], body: Body): { page: T[]; nextToken?: string } {
  const maxResults = typeof body.maxResults === 'number' && body.maxResults > 0 ? Math.min(body.maxResults, 1000) : 100;
  const offset = body.nextToken === undefined || body.nextToken === null ? 0 : Number(body.nextToken);
  if (!Number.isInteger(offset) || offset < 0) throw new SfnServiceError('InvalidToken', 'Invalid nextToken');
  const page = all.slice(offset, offset + maxResults);
  return offset + maxResults < all.length ? { page, nextToken: String(offset + maxResults) } : { page };
}

/** A state machine as DescribeStateMachine gives it (the definition with its placeholders filled in). */
const machineDescription = (machine: PreparedMachine & { createdAt: Date }) => ({
  stateMachineArn: machine.arn,
  name: machine.name,
  definition: JSON.stringify(machine.definition, null, 2),
  roleArn: LOCAL_ROLE_ARN,
});

/** An execution's events in order, each with its id and the previous one's, as AWS numbers them. */
async function historyOf(record: ExecutionRecord, includeData: boolean) {
  if (record.status !== 'RUNNING' && record.historyRead) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      record.historyRead,
      new Promise((resolve) => (timer = setTimeout(resolve, HISTORY_READ_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }
  const ended = executionEnded(record);
  const entries: HistoryEntry[] = [
    executionStarted(record.input, record.startDate),
    ...ordered(record.history?.entries ?? []),
    ...(ended ? [ended] : []),
  ];
  return entries.map((entry, i) => {
    let details = entry.details;
    if (details && !includeData) {
      const { input: _input, output: _output, ...rest } = details;
      details = rest;
    }
    return {
      timestamp: epoch(new Date(entry.at)),
      type: entry.type,
      id: i + 1,
      previousEventId: i,
      ...(entry.detailsKey && details ? { [entry.detailsKey]: details } : {}),
    };
  });
}

/** What an operator reads in the console on AWS: the state machines, their definitions, an execution's history. */
function operatorOperations(executions: Executions): Record<string, (body: Body) => unknown> {
  return {
    ListStateMachines(body) {
      const { page, nextToken } = pageOf(executions.machineList(), body);
      return {
        stateMachines: page.map((m) => ({
          stateMachineArn: m.arn,
          name: m.name,
          type: 'STANDARD',
          creationDate: epoch(m.createdAt),
        })),
        ...(nextToken ? { nextToken } : {}),
      };
    },
    DescribeStateMachine(body) {
      const machine = executions.machine(str(body, 'stateMachineArn', true)!);
      return {
        ...machineDescription(machine),
        status: 'ACTIVE',
        type: 'STANDARD',
        creationDate: epoch(machine.createdAt),
      };
    },
    DescribeStateMachineForExecution(body) {
      const record = executions.describe(str(body, 'executionArn', true)!);
      const machine = executions.machine(record.stateMachineArn);
      return { ...machineDescription(machine), updateDate: epoch(machine.createdAt) };
    },
    async GetExecutionHistory(body) {
      const record = executions.describe(str(body, 'executionArn', true)!);
      const events = await historyOf(record, body.includeExecutionData !== false);
      if (body.reverseOrder === true) events.reverse();
      const { page, nextToken } = pageOf(events, body);
      return { events: page, ...(nextToken ? { nextToken } : {}) };
    },
  };
}
