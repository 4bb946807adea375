// The page fetcher: got, the robots cache and per-host politeness, one instance per process.
import { createHttpFetcher } from '../adapters/http-fetch';
import { capability } from './container';

export const fetcherOf = capability(({ config }) =>
  createHttpFetcher({
    resolve: config.resolve,
    crawlDelayMs: config.crawlDelayMs,
    egressProxies: config.egressProxies,
  }),
);
