// The page fetcher: got, the robots cache and per-host politeness, one instance per process. The
// host gate lives in the table, so every worker (each Lambda, each local process) shares a host's
// spacing, concurrency and Retry-After pauses; anything else that sends requests to shops (a
// browser's page requests) takes its turns from the same gate.
import { createHttpFetcher } from '../adapters/http-fetch';
import { dynamoHostGate } from '../adapters/dynamodb/host-gate';
import { capability } from './container';

export const hostGateOf = capability(({ clients, config }) =>
  dynamoHostGate(clients.documents, config.tableName, { leaseMs: config.hostLeaseMs }),
);

export const fetcherOf = capability((base) =>
  createHttpFetcher({
    resolve: base.config.resolve,
    crawlDelayMs: base.config.crawlDelayMs,
    egressProxies: base.config.egressProxies,
    gate: hostGateOf(base),
  }),
);
