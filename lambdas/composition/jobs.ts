// Composition root of the extraction jobs (API use-cases, workflow steps, workers) and of the
// executions core. Built lazily once per cold start on top of the runtime and platform roots,
// and rebuilt when those are reset (local restarts, tests).
import { createExecutions, type Executions } from '../domain/executions/service';
import { createExtractJobs, type ExtractJobs } from '../domain/extract-jobs/jobs';
import { createExtractSteps, createLimiter, type ExtractSteps, type Limiter } from '../domain/extract-jobs/steps';
import { createProductCatalog, type ProductCatalog } from '../domain/products/catalog';
import { extractNow, type ExtractNowRequest, type ExtractNowResult } from '../domain/extract-jobs/sync';
import type { ExtractUrl } from '../domain/extraction/types';
import type { TaskCallbacks, WorkflowEngine } from '../ports/workflow';
import type { VendorStore } from '../ports/vendors';
import type { MessageSender } from '../adapters/sqs';
import type { AwsClients } from '../adapters/clients';
import type { Config } from '../config';
import { dynamoExecutionStore } from '../adapters/dynamodb/executions';
import { dynamoExtractResultStore } from '../adapters/dynamodb/extract-results';
import { dynamoProductStore } from '../adapters/dynamodb/products';
import { dynamoVendorStore } from '../adapters/dynamodb/vendors';
import { WORKFLOWS } from '../topology/workflows';
import { getRuntimeDeps, type RuntimeDeps } from './runtime';
import { createExtractUrlFromConfig } from './extraction';

export const EXTRACT_WORKFLOW = 'extract';
/** The execution item's deadline trails the state machine's own timeout, so the reaper only acts when the workflow died. */
export const DEADLINE_MARGIN_SECONDS = 300;

/** Fault injection for tests and benchmarks (Config.faults), never set in production. */
export type FaultSettings = Config['faults'];

let processSlots: Limiter | undefined;

/** The process's shared extraction slots, once a worker composition created them. */
export const processExtractSlots = (): Limiter | undefined => processSlots;

/** One limiter per process, so every worker composition (and runtime restart) shares it. */
function sharedExtractSlots(size: number | undefined): Limiter | undefined {
  if (size === undefined) return undefined;
  if (processSlots?.size !== size) processSlots = createLimiter(size);
  return processSlots;
}

export interface JobsDeps {
  executions: Executions;
  jobs: ExtractJobs;
  steps: ExtractSteps;
  catalog: ProductCatalog;
  taskCallbacks: TaskCallbacks;
  /** Sender to the extract work queue (for injected duplicate deliveries). */
  workQueue: () => MessageSender;
  faults: FaultSettings;
  /** The synchronous path (legacy /api/product and /api/products); needs the extraction engine. */
  extractNow(request: ExtractNowRequest): Promise<ExtractNowResult>;
}

export interface JobsParts {
  config: Config;
  clients: AwsClients;
  workflows: WorkflowEngine;
  taskCallbacks: TaskCallbacks;
  workQueue: () => MessageSender;
  /** Needed by the worker and the synchronous path; omitted where only API reads happen. */
  extractUrl?: ExtractUrl;
  vendors?: VendorStore;
  faults?: FaultSettings;
  /** URL extractions at once shared by all batches in this process; default per batch. */
  extractSlots?: Limiter;
  /** Overrides the execution deadline (tests of the reaper); default the workflow timeout + margin. */
  deadlineSeconds?: number;
}

export function createJobsDeps(parts: JobsParts): JobsDeps {
  const { documents } = parts.clients;
  const table = parts.config.tableName;
  const spec = WORKFLOWS.find((w) => w.name === EXTRACT_WORKFLOW)!;
  const executions = createExecutions({ store: dynamoExecutionStore(documents, table), workflows: parts.workflows });
  const results = dynamoExtractResultStore(documents, table);
  const catalog = createProductCatalog({ store: dynamoProductStore(documents, table), vendors: parts.vendors ?? dynamoVendorStore(documents, table) });
  return {
    executions,
    catalog,
    jobs: createExtractJobs({
      executions,
      results,
      workflows: parts.workflows,
      workflowName: EXTRACT_WORKFLOW,
      deadlineSeconds: parts.deadlineSeconds ?? spec.timeoutSeconds + DEADLINE_MARGIN_SECONDS,
    }),
    steps: createExtractSteps({ executions, results, extractUrl: parts.extractUrl, catalog, extractSlots: parts.extractSlots }),
    taskCallbacks: parts.taskCallbacks,
    workQueue: parts.workQueue,
    faults: parts.faults ?? { crashRate: 0, duplicateRate: 0 },
    extractNow(request) {
      if (!parts.extractUrl) throw new Error('extractNow needs the extraction engine: use getExtractingJobsDeps()');
      return extractNow(request, { extractUrl: parts.extractUrl, catalog });
    },
  };
}

const partsFrom = (runtime: RuntimeDeps, extractUrl?: ExtractUrl): JobsParts => ({
  config: runtime.config,
  clients: runtime.clients,
  workflows: runtime.workflows,
  taskCallbacks: runtime.taskCallbacks,
  workQueue: () => runtime.queue('extract-work'),
  extractUrl,
  faults: runtime.config.faults,
  extractSlots: extractUrl ? sharedExtractSlots(runtime.config.extractSlots) : undefined,
});

let cached: { runtime: RuntimeDeps; deps: JobsDeps } | undefined;

/** API handlers and the workflow's Lambda steps: everything but fetching. */
export function getJobsDeps(): JobsDeps {
  const runtime = getRuntimeDeps();
  if (cached?.runtime !== runtime) cached = { runtime, deps: createJobsDeps(partsFrom(runtime)) };
  return cached.deps;
}

let cachedExtracting: { runtime: RuntimeDeps; deps: JobsDeps } | undefined;

/** The extract worker and the synchronous /api/product(s) path: with the extraction engine. */
export function getExtractingJobsDeps(): JobsDeps {
  const runtime = getRuntimeDeps();
  if (cachedExtracting?.runtime !== runtime) {
    cachedExtracting = { runtime, deps: createJobsDeps(partsFrom(runtime, createExtractUrlFromConfig(runtime.config))) };
  }
  return cachedExtracting.deps;
}
