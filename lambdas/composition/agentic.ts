// The agentic search capability from the container: the executions core and the workflow engine
// for v2, over what the composition root hands in lazily (container.ts): the search engine, the
// synchronous extraction path (verification against live pages, a fresh stored record reused) and
// the enricher. This module names none of them, so a function that only starts, reads, ranks or
// fails an agentic search never loads them (which member reaches what: MEMBER_CAPABILITIES in
// lambdas/topology/capabilities.ts).
import type { Container } from './container';
import { dynamoExtractResultStore } from '../adapters/dynamodb/extract-results';
import { createAgenticJobs, type AgenticJobs } from '../domain/agentic/jobs';
import { runAgenticSearch, type AgenticRequest, type AgenticResult, type VerifyUrls } from '../domain/agentic/search';
import type { ExtractOptions } from '../domain/extraction/types';
import { miniSearch, type MiniSearchRequest } from '../domain/agentic/mini';
import type { CatalogItem, ProductSearch } from '../domain/search/api';
import type { Enricher } from '../ports/enricher';

export const AGENTIC_WORKFLOW = 'agentic';

export interface Agentic {
  /** The mini searches (v1, v2): the best matches, enriched on the fly when asked. */
  mini(request: MiniSearchRequest): Promise<{ items: CatalogItem[]; total: number }>;
  /** v1: every step in one request. */
  run(request: AgenticRequest): Promise<AgenticResult>;
  /** v2: the execution and its state machine's steps. */
  jobs: AgenticJobs;
}

type Parts = Pick<Container, 'config' | 'clients' | 'executions' | 'workflows' | 'deadlineSeconds'>;

/** What the agentic search calls of the heavier capabilities, each loaded on its first call. */
export interface AgenticUses {
  search: ProductSearch;
  extractNow: Container['extractNow'];
  enricher: Enricher;
}

export function createAgentic(container: Parts, uses: AgenticUses): Agentic {
  const { search, enricher } = uses;
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
    const { results } = await uses.extractNow({ urls, options, maxAgeMs, forceExtraction: maxAgeMs === 0 });
    return results;
  };
  const jobs = createAgenticJobs({
    executions: container.executions,
    results: dynamoExtractResultStore(container.clients.documents, container.config.tableName),
    workflows: container.workflows,
    search,
    verify,
    workflowName: AGENTIC_WORKFLOW,
    deadlineSeconds: container.deadlineSeconds(AGENTIC_WORKFLOW),
  });
  return {
    mini: (request) => miniSearch({ search, enricher }, request),
    run: (request) => runAgenticSearch({ search, verify }, request),
    jobs,
  };
}
