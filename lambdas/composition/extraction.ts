// Wires the extraction engine from configuration: the got-based fetcher (PDS_RESOLVE, politeness
// delay, egress proxies) and the offline enricher. One fetcher per config, so the robots.txt
// cache and per-host politeness are shared by every extraction in the process.
import { createHttpFetcher } from '../adapters/http-fetch';
import type { Config } from '../config';
import { createOfflineEnricher } from '../domain/enrichment';
import { createExtractor } from '../domain/extraction/engine';
import type { ExtractUrl } from '../domain/extraction/types';

const byConfig = new WeakMap<Config, ExtractUrl>();

export function createExtractUrlFromConfig(config: Config): ExtractUrl {
  const existing = byConfig.get(config);
  if (existing) return existing;
  const fetcher = createHttpFetcher({
    resolve: config.resolve,
    crawlDelayMs: config.crawlDelayMs,
    egressProxies: config.egressProxies,
  });
  const extract = createExtractor({ fetcher, enricher: createOfflineEnricher() });
  byConfig.set(config, extract);
  return extract;
}
