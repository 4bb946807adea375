// The agentic search capability from the container: the search engine, the synchronous
// extraction path (verification against live pages, a fresh stored record reused), the
// executions core and the workflow engine for v2.
import type { Container } from './container';
import { dynamoExtractResultStore } from '../adapters/dynamodb/extract-results';
import { createAgenticJobs, type AgenticJobs } from '../domain/agentic/jobs';
import { runAgenticSearch, type AgenticRequest, type AgenticResult, type VerifyUrls } from '../domain/agentic/search';
import type { ExtractOptions } from '../domain/extraction/types';
import { createOfflineEnricher } from '../domain/enrichment';
import { miniSearch, type MiniSearchRequest } from '../domain/agentic/mini';
import type { CatalogItem } from '../domain/search/api';

export const AGENTIC_WORKFLOW = 'agentic';

export interface Agentic {
  /** The mini searches (v1, v2): the best matches, enriched on the fly when asked. */
  mini(request: MiniSearchRequest): Promise<{ items: CatalogItem[]; total: number }>;
  /** v1: every step in one request. */
  run(request: AgenticRequest): Promise<AgenticResult>;
  /** v2: the execution and its state machine's steps. */
  jobs: AgenticJobs;
}

type Parts = Pick<
  Container,
  'config' | 'clients' | 'search' | 'executions' | 'workflows' | 'extractNow' | 'deadlineSeconds'
>;

export function createAgentic(container: Parts): Agentic {
  const verify: VerifyUrls = async (urls, { enrichment }) => {
    const options: ExtractOptions = {
      enableEnrichment: enrichment,
      enableReviews: false,
      enableImageTags: false,
      enableSimilarProducts: false,
      countryCode: 'us',
    };
    const maxAgeMs = container.config.agenticVerifyMaxAgeMs;
    // A window of 0 never reuses a record: skip reading the stored one.
    const { results } = await container.extractNow({ urls, options, maxAgeMs, forceExtraction: maxAgeMs === 0 });
    return results;
  };
  const jobs = createAgenticJobs({
    executions: container.executions,
    results: dynamoExtractResultStore(container.clients.documents, container.config.tableName),
    workflows: container.workflows,
    search: container.search,
    verify,
    workflowName: AGENTIC_WORKFLOW,
    deadlineSeconds: container.deadlineSeconds(AGENTIC_WORKFLOW),
  });
  const enricher = createOfflineEnricher();
  return {
    mini: (request) => miniSearch({ search: container.search, enricher }, request),
    run: (request) => runAgenticSearch({ search: container.search, verify }, request),
    jobs,
  };
}
