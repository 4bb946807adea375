// The offline enricher alone (the mini searches enrich on the fly without the extraction engine).
import { createOfflineEnricher } from '../domain/enrichment';
import { capability } from './container';

export const enricherOf = capability(() => createOfflineEnricher());
