// The offline enricher as a lazy capability of its own (container.enricher): the mini searches
// enrich on the fly without loading the extraction engine, the fetcher or the sync path.
import type { Enricher } from '../ports/enricher';
import { createOfflineEnricher } from '../domain/enrichment';

export function createEnricher(): Enricher {
  return createOfflineEnricher();
}
