// The whole service in one process (`npm start`, e2e tests, benchmarks): embedded DynamoDB and
// SQS, the embedded Step Functions service running statemachines/*.asl.json, the SQS pollers
// feeding the workers, and the HTTP server calling the route handlers. The service builds one
// Config (the environment's settings plus the embedded engines' endpoints) and installs the one
// container every handler and worker of this process uses; it never writes into process.env.
import './polyfills';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { QUEUES } from '../topology/queues';
import { WORKFLOWS } from '../topology/workflows';
import { SCHEDULES } from '../topology/schedules';
import { loadConfig, type Config } from '../config';
import { createContainer, installContainer, type Container } from '../composition/container';
import { executionsOf } from '../composition/executions';
import { merchantsOf } from '../composition/merchants';
import { stepFunctionsOf } from '../composition/step-functions';
import { webhooksOf } from '../composition/webhooks';
import { bootstrapKeys, ensureDevelopmentKey } from '../domain/accounts/service';
import { createClients } from '../adapters/clients';
import { startEngines, type Engines } from './engines';
import { startStepFunctionsService, type StepFunctionsService } from './stepfunctions/server';
import { validateDefinitions, type ValidationMemo } from './stepfunctions/executions';
import { prepareMachine } from './stepfunctions/definitions';
import { startSqsPollers } from './sqs-poller';
import { WORKERS_DIR } from './workers';
import { startSchedule } from './schedules';
import { resumeUnfinished } from '../domain/executions/resume';
import { GROUP_OF, type Execution } from '../domain/executions/model';
import type { ExtractResultStore } from '../ports/extract-results';
import { dynamoExecutionStore } from '../adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../adapters/dynamodb/extract-results';
import { claimDataDir, dynamodbPath, ownStartTicks, releaseDataDir, writeRuntimeFile } from './runtime-file';

export interface LocalServiceOptions {
  /** HTTP port; 0 picks a free one. Default 3000. */
  port?: number;
  host?: string;
  /** Persistent data (DynamoDB on LevelDB, runtime.json). Default .pds-data. */
  dataDir?: string;
  /**
   * Settings in environment form (PDS_RESOLVE, PDS_CRAWL_DELAY_MS, PDS_RATE_LIMIT, ...) over
   * those of process.env, parsed once into the process's Config.
   */
  env?: Record<string, string>;
  /** PDS_BOOTSTRAP_KEYS format; without it the first start mints a development key. */
  bootstrapKeys?: string;
  /** Seconds before a failed SQS message is retried locally (AWS: the queue's visibility timeout). */
  queueRetrySeconds?: number;
  /** SQS batches handled at once per queue; default 2. */
  workerConcurrency?: number;
  /**
   * Where start-up work is remembered between runs of this checkout (state machine definitions
   * already validated, by content hash). Default: nothing remembered, every start validates.
   */
  cacheDir?: string;
  /** Also log Step Functions execution events. */
  debug?: boolean;
  log?: (line: string) => void;
}

export interface LocalService {
  url: string;
  port: number;
  dataDir: string;
  tableName: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  stepFunctionsEndpoint: string;
  /** queue logical name -> URL (DLQs `<name>-dlq`). */
  queueUrls: Record<string, string>;
  /** workflow name -> state machine ARN. */
  stateMachineArns: Record<string, string>;
  /** Printed once: the development key minted on the very first start without bootstrap keys. */
  developmentKey?: string;
  /** Keys created from the bootstrap spec (ids only; the keys themselves were given). */
  bootstrappedKeyIds: string[];
  /** Unfinished executions of a previous run started again at this start. */
  resumed: string[];
  /** Milliseconds from the call to ready. */
  startupMs: number;
  /** Milliseconds per start-up phase, in order (engines, stepfunctions, container, ...). */
  phases: Record<string, number>;
  sfn: StepFunctionsService;
  /** This process's Config. */
  config: Config;
  /** Rebuilds the process's container with some settings changed (tests and benchmarks, e.g. injected faults). */
  configure(patch: Partial<Config>): void;
  /** Stops pollers (in-flight batches get graceMs), servers and engines; removes runtime.json. */
  stop(graceMs?: number): Promise<void>;
}

/** The region of every local ARN and queue; the embedded engines are one region. */
const LOCAL_REGION = 'us-east-1';
/** Stand-ins for the queue URLs while definitions are validated before the queues exist. */
const PLACEHOLDER_QUEUE_URLS: Record<string, string> = Object.fromEntries(
  QUEUES.flatMap((queue) => [queue.name, `${queue.name}-dlq`]).map((name) => [
    name,
    `http://127.0.0.1/${'0'.repeat(12)}/${name}`,
  ]),
);
/** After ready, when the parts left for later are loaded if no request has needed them yet. */
const WARM_UP_MS = 1000;

export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const dataDir = resolve(options.dataDir ?? '.pds-data');
  const port = options.port ?? 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port must be 0..65535, got ${port}`);
  // Fail on bad settings (PDS_RATE_LIMIT, PDS_RESOLVE, ...) before anything starts.
  const settings = loadConfig({ ...process.env, ...options.env });
  claimDataDir(dataDir);
  const cleanups = cleanupStack(log);
  cleanups.push(() => releaseDataDir(dataDir));
  const { phases, phase } = phaseClock();
  try {
    const { engines, pollerSqs, sfn } = await startBackends(options, dataDir, settings, { cleanups, phase, log });

    // Search keeps its index snapshot under the data directory, beside the embedded DynamoDB.
    let config: Config = { ...localConfig(settings, engines, sfn), dataDir };
    const container = createContainer(config);
    // A bad merchant file stops the start here, not at the first request that links a merchant.
    merchantsOf(container);
    installContainer(container);
    cleanups.push(() => installContainer(undefined));
    // Usage counts written behind responses are stored before the engines stop (runs after the
    // HTTP server closed and the pollers stopped: cleanups run in reverse).
    cleanups.push(() => container.meter.flush());
    phase('container');

    warnOfMissingWorkers(log);
    const pollers = await startSqsPollers({
      sqs: pollerSqs,
      queues: QUEUES,
      queueUrls: engines.queueUrls,
      visibilityTimeoutSeconds: options.queueRetrySeconds,
      concurrency: options.workerConcurrency,
      region: LOCAL_REGION,
      log,
    });
    // Cleanups run in reverse: the HTTP server closes, then the pollers stop (batches in flight
    // get the grace period and can still reach Step Functions and DynamoDB), then the engines.
    let pollerGraceMs = 5000;
    cleanups.push(() => pollers.stop(pollerGraceMs));
    phase('pollers');

    const opened = await openForRequests(container, { ...options, port }, cleanups, log);
    phase('resume+http+keys');
    startBackgroundWork(sfn, cleanups, log);
    writeRuntimeFile(dataDir, {
      pid: process.pid,
      pidStart: ownStartTicks(),
      url: opened.http.url,
      dynamodbEndpoint: engines.dynamodbEndpoint,
      tableName: engines.tableName,
      sqsEndpoint: engines.sqsEndpoint,
      stepFunctionsEndpoint: sfn.endpoint,
      startedAt: new Date().toISOString(),
    });

    return {
      url: opened.http.url,
      port: opened.http.port,
      dataDir,
      tableName: engines.tableName,
      dynamodbEndpoint: engines.dynamodbEndpoint,
      sqsEndpoint: engines.sqsEndpoint,
      stepFunctionsEndpoint: sfn.endpoint,
      queueUrls: engines.queueUrls,
      stateMachineArns: sfn.stateMachineArns,
      developmentKey: opened.developmentKey,
      bootstrappedKeyIds: opened.bootstrappedKeyIds,
      resumed: opened.resumed,
      startupMs: Date.now() - started,
      phases,
      sfn,
      get config() {
        return config;
      },
      configure(patch) {
        config = { ...config, ...patch };
        installContainer(createContainer(config));
      },
      async stop(graceMs = 5000) {
        pollerGraceMs = graceMs;
        await cleanups.stopAll();
      },
    };
  } catch (error) {
    await cleanups.stopAll();
    throw error;
  }
}

interface CleanupStack {
  push(cleanup: () => Promise<void> | void): void;
  /** Runs every cleanup, the last pushed first; a failing one is logged and the others still run. */
  stopAll(): Promise<void>;
}

function cleanupStack(log: (line: string) => void): CleanupStack {
  const cleanups: Array<() => Promise<void> | void> = [];
  return {
    push: (cleanup) => void cleanups.push(cleanup),
    async stopAll() {
      for (const cleanup of cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          log(`stop: ${(error as Error).message}`);
        }
      }
    },
  };
}

/** Milliseconds per start-up phase: `phase(name)` ends the phase begun when the previous one ended. */
function phaseClock() {
  const phases: Record<string, number> = {};
  let phaseStart = Date.now();
  const phase = (name: string) => {
    const now = Date.now();
    phases[name] = now - phaseStart;
    phaseStart = now;
  };
  return { phases, phase };
}

/** The embedded engines and the Step Functions service, and the pollers' SQS client. */
async function startBackends(
  options: LocalServiceOptions,
  dataDir: string,
  settings: Config,
  { cleanups, phase, log }: { cleanups: CleanupStack; phase: (name: string) => void; log: (line: string) => void },
) {
  const validated = options.cacheDir ? validationMemo(options.cacheDir) : undefined;
  // Definitions not yet remembered as valid (a first start) are validated while the engines start;
  // validation needs their shape, not the real queue URLs.
  const validating = validated
    ? validateDefinitions(
        WORKFLOWS.map((spec) => prepareMachine({ spec }, PLACEHOLDER_QUEUE_URLS, LOCAL_REGION)),
        validated,
      )
    : Promise.resolve();
  validating.catch(() => undefined); // awaited below, after the engines
  const engines: Engines = await startEngines({ dataDir: dynamodbPath(dataDir) });
  cleanups.push(() => engines.stop());
  phase('engines');
  await validating;
  phase('validation');
  const pollerClients = createClients({ ...settings, region: LOCAL_REGION, endpoints: { sqs: engines.sqsEndpoint } });
  cleanups.push(() => pollerClients.sqs.destroy());

  // Definitions validated by an earlier start are not validated again: the interpreter library then
  // loads on the first execution (or WARM_UP_MS after ready) instead of before ready.
  const sfn = await startStepFunctionsService({
    machines: WORKFLOWS.map((spec) => ({ spec })),
    queueUrls: engines.queueUrls,
    sqs: pollerClients.sqs,
    region: LOCAL_REGION,
    validated,
    log: (line) => (options.debug ? log(line) : undefined),
  });
  cleanups.push(() => sfn.stop());
  phase('stepfunctions');
  return { engines, pollerSqs: pollerClients.sqs, sfn };
}

function warnOfMissingWorkers(log: (line: string) => void): void {
  for (const queue of QUEUES) {
    for (const worker of [queue.worker, queue.dlqWorker].filter(Boolean) as string[]) {
      if (!['.ts', '.js'].some((ext) => existsSync(join(WORKERS_DIR, worker + ext)))) {
        log(
          `warning: queue ${queue.name}: worker lambdas/workers/${worker} not found; its messages will be retried until it exists`,
        );
      }
    }
  }
}

/**
 * What ready waits for, side by side (independent of each other): executions a previous run on
 * this data dir left unfinished (its state machines lived in its memory) started again from their
 * first step, or failed at once when they cannot be; the HTTP server; the keys. Then webhook
 * attempts a previous run left queued (its queues lived in its memory) are queued again.
 */
async function openForRequests(
  container: Container,
  options: LocalServiceOptions & { port: number },
  cleanups: CleanupStack,
  log: (line: string) => void,
) {
  const { tableName } = container.config;
  const resuming = resumeUnfinished({
    store: dynamoExecutionStore(container.clients.documents, tableName),
    executions: executionsOf(container),
    workflows: stepFunctionsOf(container).workflows,
    restartable: Object.fromEntries(
      WORKFLOWS.filter((w) => w.resume).map((w) => [w.name, (id: string) => ({ [w.resume!.inputField]: id })]),
    ),
    canResume: (execution) =>
      extractEntriesComplete(dynamoExtractResultStore(container.clients.documents, tableName), execution),
  });
  const httpStarting = import('./http-server').then(({ startHttpServer }) =>
    startHttpServer({ port: options.port, host: options.host ?? '127.0.0.1' }),
  );
  const bootstrapSpec = options.bootstrapKeys;
  const keys = bootstrapSpec?.trim()
    ? bootstrapKeys(container.accounts, bootstrapSpec, container.clock.now()).then((created) => ({
        developmentKey: undefined,
        bootstrappedKeyIds: created.map((k) => k.keyId),
      }))
    : ensureDevelopmentKey(container.accounts, container.clock.now()).then((minted) => ({
        developmentKey: minted?.key,
        bootstrappedKeyIds: [] as string[],
      }));
  const redeliveries = webhooksOf(container)
    .resumeUnsettled()
    .catch((error: Error) => {
      log(`webhook deliveries could not be resumed: ${error.message}`);
      return 0;
    });
  const [restartDone, httpDone, keysDone] = await Promise.allSettled([resuming, httpStarting, keys]);
  if (httpDone.status === 'fulfilled') cleanups.push(() => httpDone.value.close());
  for (const done of [restartDone, httpDone, keysDone]) if (done.status === 'rejected') throw done.reason;
  const restart = (restartDone as PromiseFulfilledResult<Awaited<typeof resuming>>).value;
  const http = (httpDone as PromiseFulfilledResult<Awaited<typeof httpStarting>>).value;
  const { developmentKey, bootstrappedKeyIds } = (keysDone as PromiseFulfilledResult<Awaited<typeof keys>>).value;
  if (restart.failed.length)
    log(`${restart.failed.length} unfinished execution(s) could not be resumed and were failed`);
  const redelivering = await redeliveries;
  if (redelivering) log(`${redelivering} unsettled webhook deliver${redelivering === 1 ? 'y' : 'ies'} queued again`);
  return { http, developmentKey, bootstrappedKeyIds, resumed: restart.resumed };
}

/** The schedules, as the CDK stack runs them (their first runs right after ready), and the deferred interpreter load. */
function startBackgroundWork(sfn: StepFunctionsService, cleanups: CleanupStack, log: (line: string) => void): void {
  for (const spec of SCHEDULES) {
    const schedule = startSchedule({
      worker: spec.worker,
      everyMs: spec.everyMinutes * 60_000,
      timeoutMs: spec.timeoutSeconds * 1000,
      log,
    });
    cleanups.push(() => schedule.stop());
  }
  // The interpreter library, if its load was left for later: loaded while nobody waits on it.
  const warmUp = setTimeout(
    () => sfn.load().catch((error: Error) => log(`stepfunctions: ${error.message}`)),
    WARM_UP_MS,
  );
  warmUp.unref();
  cleanups.push(() => clearTimeout(warmUp));
}

/** The process's Config: the settings, pointed at the embedded engines as the CDK stack points a Lambda at AWS. */
function localConfig(settings: Config, engines: Engines, sfn: StepFunctionsService): Config {
  return {
    ...settings,
    region: LOCAL_REGION,
    tableName: engines.tableName,
    endpoints: { dynamodb: engines.dynamodbEndpoint, sqs: engines.sqsEndpoint, stepFunctions: sfn.endpoint },
    queueUrls: Object.fromEntries(QUEUES.map((queue) => [queue.name, engines.queueUrls[queue.name]!])),
    stateMachineArns: Object.fromEntries(
      WORKFLOWS.map((workflow) => [workflow.name, sfn.stateMachineArns[workflow.name]!]),
    ),
  };
}

/**
 * A pending extraction may have crashed while its URL entries were being written: it is resumed
 * only when every entry is there (the workflow would otherwise extract a part of them).
 */
async function extractEntriesComplete(results: ExtractResultStore, execution: Execution): Promise<boolean> {
  if (GROUP_OF[execution.kind] !== 'extract' || execution.status !== 'pending') return true;
  return (await results.all(execution.id)).length === (execution.input.requested ?? 0);
}

/** Validated definitions, one hash a line in `<cacheDir>/validated-state-machines.txt`. */
function validationMemo(cacheDir: string): ValidationMemo {
  const file = join(cacheDir, 'validated-state-machines.txt');
  let known: Set<string>;
  try {
    known = new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
  } catch {
    known = new Set();
  }
  return {
    has: (key) => known.has(key),
    add(key) {
      if (known.has(key)) return;
      known.add(key);
      try {
        mkdirSync(cacheDir, { recursive: true });
        const temporary = `${file}.${process.pid}`;
        writeFileSync(temporary, `${[...known].slice(-100).join('\n')}\n`);
        renameSync(temporary, file);
      } catch {
        // Not remembered: the next start validates again.
      }
    },
  };
}
