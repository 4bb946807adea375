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
import { createContainer, installContainer } from '../composition/container';
import { bootstrapKeys, ensureDevelopmentKey } from '../domain/accounts/service';
import { createClients } from '../adapters/clients';
import { startEngines, type Engines } from './engines';
import { startStepFunctionsService, type StepFunctionsService } from './stepfunctions/server';
import { validateDefinitions, type ValidationMemo } from './stepfunctions/executions';
import { prepareMachine } from './stepfunctions/definitions';
import { startSqsPollers, type SqsPollers } from './sqs-poller';
import { WORKERS_DIR } from './workers';
import { startSchedule } from './schedules';
import { resumeUnfinished } from '../domain/executions/resume';
import { GROUP_OF, type Execution } from '../domain/executions/model';
import type { ExtractResultStore } from '../ports/extract-results';
import { dynamoExecutionStore } from '../adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../adapters/dynamodb/extract-results';
import { takeEarlyStart } from './early-start';
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
  // bin/local.ts claims the directory and starts dynalite before the modules load; else below.
  const early = takeEarlyStart(dataDir);
  let settings: Config;
  try {
    const port = options.port ?? 3000;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port must be 0..65535, got ${port}`);
    // Fail on bad settings (PDS_RATE_LIMIT, PDS_RESOLVE, ...) before anything starts.
    settings = loadConfig({ ...process.env, ...options.env });
  } catch (error) {
    if (early) {
      await early.stop();
      releaseDataDir(dataDir);
    }
    throw error;
  }
  const port = options.port ?? 3000;
  if (!early) claimDataDir(dataDir);
  const cleanups: Array<() => Promise<void> | void> = [() => releaseDataDir(dataDir)];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log(`stop: ${(error as Error).message}`);
      }
    }
  };

  const phases: Record<string, number> = {};
  let phaseStart = Date.now();
  const phase = (name: string) => {
    const now = Date.now();
    phases[name] = now - phaseStart;
    phaseStart = now;
  };
  const validated = options.cacheDir ? validationMemo(options.cacheDir) : undefined;
  try {
    // Definitions not yet remembered as valid (a first start) are validated while the engines start
    // (their threads leave this one waiting); validation needs their shape, not the real queue URLs.
    const validating = validated
      ? validateDefinitions(
          WORKFLOWS.map((spec) => prepareMachine({ spec }, PLACEHOLDER_QUEUE_URLS, LOCAL_REGION)),
          validated,
        )
      : Promise.resolve();
    validating.catch(() => undefined); // awaited below, after the engines
    const engines: Engines = await startEngines({
      dataDir: dynamodbPath(dataDir),
      dynalite: early?.dynalite,
      sqs: early?.sqs,
    });
    phase('engines');
    await validating;
    phase('validation');
    cleanups.push(() => engines.stop());
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

    // Search keeps its index snapshot under the data directory, beside the embedded DynamoDB.
    let config: Config = { ...localConfig(settings, engines, sfn), dataDir };
    const container = createContainer(config);
    installContainer(container);
    cleanups.push(() => installContainer(undefined));
    // Usage counts written behind responses are stored before the engines stop (runs after the
    // HTTP server closed and the pollers stopped: cleanups run in reverse).
    cleanups.push(() => container.meter.flush());
    phase('container');

    for (const queue of QUEUES) {
      for (const worker of [queue.worker, queue.dlqWorker].filter(Boolean) as string[]) {
        if (!['.ts', '.js'].some((ext) => existsSync(join(WORKERS_DIR, worker + ext)))) {
          log(
            `warning: queue ${queue.name}: worker lambdas/workers/${worker} not found; its messages will be retried until it exists`,
          );
        }
      }
    }
    const pollers: SqsPollers = await startSqsPollers({
      sqs: pollerClients.sqs,
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

    // Executions a previous run on this data dir left unfinished (its state machines lived in its
    // memory): started again from their first step, or failed at once when they cannot be. Done
    // before ready, beside the HTTP server's start and the keys (independent of each other).
    const resuming = resumeUnfinished({
      store: dynamoExecutionStore(container.clients.documents, config.tableName),
      executions: container.executions,
      workflows: container.workflows,
      restartable: Object.fromEntries(
        WORKFLOWS.filter((w) => w.resume).map((w) => [w.name, (id: string) => ({ [w.resume!.inputField]: id })]),
      ),
      canResume: (execution) =>
        extractEntriesComplete(dynamoExtractResultStore(container.clients.documents, config.tableName), execution),
    });
    const httpStarting = import('./http-server').then(({ startHttpServer }) =>
      startHttpServer({ port, host: options.host ?? '127.0.0.1' }),
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
    // Webhook attempts a previous run left queued (its queues lived in its memory) are queued again.
    const redeliveries = container.webhooks.resumeUnsettled().catch((error: Error) => {
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
    phase('resume+http+keys');

    const redelivering = await redeliveries;
    if (redelivering) log(`${redelivering} unsettled webhook deliver${redelivering === 1 ? 'y' : 'ies'} queued again`);

    // As the CDK stack schedules them (the reaper fails executions past their deadline); their
    // first runs come right after ready.
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
    writeRuntimeFile(dataDir, {
      pid: process.pid,
      pidStart: ownStartTicks(),
      url: http.url,
      dynamodbEndpoint: engines.dynamodbEndpoint,
      tableName: engines.tableName,
      sqsEndpoint: engines.sqsEndpoint,
      stepFunctionsEndpoint: sfn.endpoint,
      startedAt: new Date().toISOString(),
    });

    return {
      url: http.url,
      port: http.port,
      dataDir,
      tableName: engines.tableName,
      dynamodbEndpoint: engines.dynamodbEndpoint,
      sqsEndpoint: engines.sqsEndpoint,
      stepFunctionsEndpoint: sfn.endpoint,
      queueUrls: engines.queueUrls,
      stateMachineArns: sfn.stateMachineArns,
      developmentKey,
      bootstrappedKeyIds,
      resumed: restart.resumed,
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
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
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
