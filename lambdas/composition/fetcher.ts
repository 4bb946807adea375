// The page fetcher: got, the robots cache and per-host politeness, one instance per process. The
// host gate lives in the table, so every worker (each Lambda, each local process) shares a host's
// spacing, concurrency and Retry-After pauses; anything else that sends requests to shops (a
// browser's page requests) takes its turns from the same gate.
import { createHttpFetcher } from '../adapters/http-fetch';
import { dynamoHostGate } from '../adapters/dynamodb/host-gate';
import { capability } from './container';

/** A slot's lease outlives the fetcher's longest attempt (45 s, connect to last byte). */
const HOST_LEASE_MS = 60_000;

export const hostGateOf = capability(({ clients, config }) =>
  dynamoHostGate(clients.documents, config.tableName, { leaseMs: HOST_LEASE_MS }),
);

export const fetcherOf = capability((base) =>
  createHttpFetcher({
    resolve: base.config.resolve,
    crawlDelayMs: base.config.crawlDelayMs,
    egressProxies: base.config.egressProxies,
    gate: hostGateOf(base),
  }),
);
