// The base of every function's composition: config, clock, clients, metrics and the cheap stores
// the request pipeline itself needs. It is built from a Config once per cold start (Lambda) or
// once per local process (`npm start`, tests), and reaches every handler as `ctx.deps` and every
// worker as its second argument.
//
// Everything else is a capability: lambdas/composition/<capability>.ts exports an accessor
// (`crawlOf(deps)`) that builds it over this base on first use, once per base. Handlers and
// workers import the accessors they call, so esbuild's import graph decides what each function
// ships: a route that never reaches the extraction engine does not import it.
//
// Adding a capability: its use-cases in lambdas/domain/<capability>/, and its accessor in
// lambdas/composition/<capability>.ts: `export const fooOf = capability((base) => createFoo(...))`.
import { loadConfig, type Config } from '../config';
import { createClients, destroyClients, type AwsClients } from '../adapters/clients';
import { dynamoAccountStore } from '../adapters/dynamodb/accounts';
import { dynamoUsageStore } from '../adapters/dynamodb/usage';
import { dynamoRateLimitStore } from '../adapters/dynamodb/ratelimit';
import { dynamoVendorStore } from '../adapters/dynamodb/vendors';
import { createSqsSender, type MessageSender } from '../adapters/sqs';
import type { AccountStore } from '../ports/accounts';
import type { UsageStore } from '../ports/usage';
import type { RateLimitStore } from '../ports/ratelimit';
import type { VendorStore } from '../ports/vendors';
import type { MetricsRecorder } from '../ports/metrics';
import { emfMetrics, tallyMetrics } from '../adapters/metrics';
import { logger, setLogLevel } from '../observability/logger';
import { withKeyCache } from '../domain/accounts/cache';
import { createUsageMeter, withMeterFlush, type UsageMeter } from '../domain/usage/meter';
import { withVendorListCache } from '../domain/vendors/list-cache';
import { WORKFLOWS } from '../topology/workflows';
import { createIdempotentStarts, type IdempotentStarts } from './idempotency';

/** The one source of time for use-cases that need "now"; tests pass a fake one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The execution item's deadline trails the state machine's own timeout, so the reaper only acts when the workflow died. */
export const DEADLINE_MARGIN_SECONDS = 300;

export interface ContainerOptions {
  clock?: Clock;
  /** Prebuilt clients (e.g. shared with the local runtime); default built from the config. */
  clients?: AwsClients;
  /** Overrides every workflow's execution deadline (tests of the reaper). */
  deadlineSeconds?: number;
}

export interface Container {
  readonly config: Config;
  readonly clock: Clock;
  readonly clients: AwsClients;
  readonly metrics: MetricsRecorder;

  readonly accounts: AccountStore;
  readonly usage: UsageStore;
  /** Counts authenticated calls, coalescing concurrent ones into one write per counter. */
  readonly meter: UsageMeter;
  readonly rateLimits: RateLimitStore;
  readonly vendors: VendorStore;
  /** Start operations with an Idempotency-Key (Powertools idempotency, records in the table): the pipeline's. */
  readonly idempotency: IdempotentStarts;

  /** Sender to a queue by logical name (topology/queues.ts). */
  queue(name: string): MessageSender;
  /** An execution's deadline in seconds for a workflow of topology/workflows.ts. */
  deadlineSeconds(workflow: string): number;

  /** Closes the clients (local restarts, tests). */
  dispose(): void;
}

/**
 * A capability's accessor: `build` runs on the first call for a base and its value is kept for
 * that base (one per process on Lambda; tests that build several containers keep theirs apart).
 * A build that throws is tried again on the next call.
 */
export function capability<T>(build: (base: Container) => T): (base: Container) => T {
  const built = new WeakMap<Container, T>();
  return (base) => {
    if (!built.has(base)) built.set(base, build(base));
    return built.get(base) as T;
  };
}

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const clients = options.clients ?? createClients(config);
  const { documents } = clients;
  const table = config.tableName;
  const senders = new Map<string, MessageSender>();
  setLogLevel(config.logLevel);

  const usageStore = dynamoUsageStore(documents, table);
  // Usage counts: group commit, and write-behind in a long-lived process (config.usageWriteBehindMs);
  // usage read here first stores every count recorded here.
  const meter = createUsageMeter((...args) => usageStore.add(...args), {
    writeBehindMs: config.usageWriteBehindMs,
    onLost: (error, calls) =>
      logger.warn('usage counts lost after repeated write failures', {
        calls,
        error: error instanceof Error ? error.message : String(error),
      }),
  });

  return {
    config,
    clock: options.clock ?? systemClock,
    clients,
    metrics: config.metrics === 'emf' ? emfMetrics() : tallyMetrics(),
    // Per-process caches, each with its staleness bound stated where it is defined.
    accounts: withKeyCache(dynamoAccountStore(documents, table)),
    usage: withMeterFlush(usageStore, meter),
    meter,
    rateLimits: dynamoRateLimitStore(documents, table, { leases: config.rateLimitLeases }),
    vendors: withVendorListCache(dynamoVendorStore(documents, table)),
    // Powertools dates records by the system clock, so the store does too (not a test clock).
    idempotency: createIdempotentStarts(documents, table),
    queue(name) {
      let sender = senders.get(name);
      if (!sender) {
        const url = config.queueUrls[name];
        if (!url) throw new Error(`No URL configured for queue "${name}"`);
        sender = createSqsSender(clients.sqs, url);
        senders.set(name, sender);
      }
      return sender;
    },
    deadlineSeconds(workflow) {
      if (options.deadlineSeconds !== undefined) return options.deadlineSeconds;
      const spec = WORKFLOWS.find((w) => w.name === workflow);
      if (!spec) throw new Error(`No workflow "${workflow}" in lambdas/topology/workflows.ts`);
      return spec.timeoutSeconds + DEADLINE_MARGIN_SECONDS;
    },
    dispose() {
      destroyClients(clients);
    },
  };
}

let processContainer: Container | undefined;

/** This process's container: built from the environment on first use (a Lambda cold start). */
export function getContainer(): Container {
  processContainer ??= createContainer(loadConfig());
  return processContainer;
}

/** The local runtime and tests install the container they built from their own Config. */
export function installContainer(container: Container | undefined): void {
  if (processContainer && processContainer !== container) processContainer.dispose();
  processContainer = container;
}
