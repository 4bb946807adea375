// v2 agentic search as an execution (agentic-{uuid}): start, status, and the steps of
// statemachines/agentic-search.asl.json (Understand query -> Retrieve candidates -> Verify
// candidates through SQS, in parallel -> Rank). The execution item is the only truth for status;
// each candidate's verification is one per-index entry moved pending -> done exactly once, so a
// redelivered message or a late worker after Rank changes nothing.
import { maskToFlags } from '../products/catalog';
import type { Executions } from '../executions/service';
import { durationMs, type Execution } from '../executions/model';
import { pagination, type Pagination } from '../executions/service';
import type { ProductRecord } from '../extraction/types';
import type { ProductSearch, ProfileSignals } from '../search/api';
import type { ExtractResultStore, UrlEntry } from '../../ports/extract-results';
import type { WorkflowEngine } from '../../ports/workflow';
import type { WebhookSpec } from '../webhooks/model';
import type { HardRules } from './rules';
import {
  AGENTIC_CREDITS,
  MAX_RESULTS,
  rankVerified,
  retrieve,
  understand,
  unverified,
  verdict,
  type Candidate,
  type VerifyUrls,
} from './search';

export const AGENTIC_FAILED_MESSAGE = 'The agentic search could not be completed; start a new one';

export interface AgenticJobsDeps {
  executions: Executions;
  /** Per-candidate entries (the extraction results store: one item per index). */
  results: ExtractResultStore;
  workflows: WorkflowEngine;
  /** Needed by understand and retrieve only. */
  search?: ProductSearch;
  /** Needed by verify only. */
  verify?: VerifyUrls;
  /** Workflow name in topology WORKFLOWS ('agentic'). */
  workflowName: string;
  deadlineSeconds: number;
}

export interface StartAgentic {
  org: string;
  query: string;
  profile?: Record<string, unknown>;
  pageSize: number;
  enrichment: boolean;
  /** Stored with the execution, before anything runs. */
  webhook?: WebhookSpec;
}

export type AgenticStep = 'pending' | 'understanding' | 'retrieving' | 'verifying' | 'ranking' | 'done';

export interface AgenticStatus {
  execution_id: string;
  status: Execution['status'];
  error: string | null;
  query: string;
  progress: {
    step: AgenticStep;
    candidates_total: number;
    candidates_verified: number;
    candidates_dropped: number;
    percent_complete: number;
  };
  start_date: string | null;
  stop_date: string | null;
  duration_ms: number | null;
  credits_used: number;
  /** When completed: the ranked, verified products (at most page_size). */
  results: { items: Array<{ url: string; product: ProductRecord }>; pagination: Pagination } | null;
}

/** What flows from state to state (small: the records themselves stay in the table). */
export interface PlanState {
  executionId: string;
  proceed: boolean;
  query: string;
  signals: ProfileSignals;
  rules: HardRules;
  pageSize: number;
  enrichment: boolean;
}

export interface VerifyMessage {
  executionId: string;
  candidate: Candidate;
  enrichment: boolean;
  rules: HardRules;
}

interface AgenticOptions {
  query: string;
  profileJson: string | null;
  pageSize: number;
  enrichment: boolean;
}

function optionsOf(execution: Execution): AgenticOptions {
  const o = execution.options;
  return {
    query: typeof o.query === 'string' ? o.query : '',
    profileJson: typeof o.customer_profile_json === 'string' ? o.customer_profile_json : null,
    pageSize: Math.min(MAX_RESULTS, Math.max(1, Number(o.page_size) || MAX_RESULTS)),
    enrichment: o.enable_enrichment === true,
  };
}

function stepOf(execution: Execution): AgenticStep {
  if (execution.status === 'pending') return 'pending';
  if (execution.status !== 'running') return 'done';
  if (!execution.input.understood) return 'understanding';
  if (execution.input.candidates === undefined) return 'retrieving';
  const done = (execution.counters.verified ?? 0) + (execution.counters.dropped ?? 0);
  return done < execution.input.candidates ? 'verifying' : 'ranking';
}

function percentOf(execution: Execution, step: AgenticStep): number {
  if (execution.status === 'completed') return 100;
  const total = execution.input.candidates ?? 0;
  const done = (execution.counters.verified ?? 0) + (execution.counters.dropped ?? 0);
  switch (step) {
    case 'pending':
    case 'understanding':
      return 0;
    case 'retrieving':
      return 10;
    case 'verifying':
      return total ? 20 + Math.floor((70 * Math.min(done, total)) / total) : 20;
    case 'ranking':
      return 90;
    case 'done':
      return execution.input.candidates === undefined ? 0 : 90;
  }
}

const entryCandidate = (entry: UrlEntry) => ({
  index: entry.index,
  url: entry.url ?? entry.input,
  result: entry.state === 'done' ? entry.result : null,
});

export type AgenticJobs = ReturnType<typeof createAgenticJobs>;

export function createAgenticJobs(deps: AgenticJobsDeps) {
  const { executions, results } = deps;
  const search = (): ProductSearch => {
    if (!deps.search) throw new Error('This agentic step needs the search index');
    return deps.search;
  };

  /** The execution if it is still running (a reaped one stops its steps). */
  async function running(executionId: string): Promise<Execution | null> {
    const execution = await executions.get(executionId);
    return execution?.status === 'running' ? execution : null;
  }

  async function recordVerdict(
    executionId: string,
    candidate: Candidate,
    result: ReturnType<typeof verdict>,
  ): Promise<boolean> {
    const recorded = await results.record(executionId, candidate.index, result);
    // Counted once per candidate whoever records it (worker, dead-letter consumer or Rank).
    if (recorded)
      await executions.addProgress(
        executionId,
        `verify-${candidate.index}`,
        result.success ? { verified: 1 } : { dropped: 1 },
      );
    return recorded;
  }

  return {
    async start(request: StartAgentic): Promise<{ execution_id: string; status: 'pending'; credits_used: number }> {
      const execution = await executions.create({
        org: request.org,
        kind: 'agentic',
        options: {
          query: request.query,
          // Kept as text: any JSON shape, never re-marshalled into attribute types.
          customer_profile_json: request.profile === undefined ? null : JSON.stringify(request.profile),
          page_size: request.pageSize,
          enable_enrichment: request.enrichment,
        },
        counters: { credits: AGENTIC_CREDITS },
        workflow: deps.workflowName,
        deadlineSeconds: deps.deadlineSeconds,
        webhook: request.webhook,
      });
      try {
        await deps.workflows.start(deps.workflowName, execution.id, { executionId: execution.id });
      } catch (error) {
        await executions.fail(execution.id, AGENTIC_FAILED_MESSAGE);
        throw error;
      }
      return { execution_id: execution.id, status: 'pending', credits_used: AGENTIC_CREDITS };
    },

    async status(request: { org: string; executionId: string }): Promise<AgenticStatus> {
      const execution = await executions.find(request.org, request.executionId, 'agentic');
      const options = optionsOf(execution);
      const step = stepOf(execution);
      let page: AgenticStatus['results'] = null;
      if (execution.status === 'completed') {
        const ranked = rankVerified((await results.all(execution.id)).map(entryCandidate), options.pageSize);
        const flags = { enrichment: options.enrichment, reviews: false, image_tags: false, similar_products: false };
        page = {
          items: ranked.map(({ url, product }) => ({ url, product: maskToFlags(product, flags) })),
          pagination: pagination(1, options.pageSize, ranked.length),
        };
      }
      return {
        execution_id: execution.id,
        status: execution.status,
        error: execution.error,
        query: options.query,
        progress: {
          step,
          candidates_total: execution.input.candidates ?? 0,
          candidates_verified: execution.counters.verified ?? 0,
          candidates_dropped: execution.counters.dropped ?? 0,
          percent_complete: percentOf(execution, step),
        },
        start_date: execution.start_date,
        stop_date: execution.stop_date,
        duration_ms: durationMs(execution, new Date()),
        credits_used: execution.counters.credits ?? AGENTIC_CREDITS,
        results: page,
      };
    },

    steps: {
      /** Understand query: pending -> running; the profile's signals and the query's hard rules. */
      async understand(event: { executionId: string }): Promise<PlanState> {
        const stopped = {
          executionId: event.executionId,
          proceed: false,
          query: '',
          signals: {},
          rules: { inStockOnly: false, avoid: [] },
          pageSize: 1,
          enrichment: false,
        };
        const execution = (await executions.markRunning(event.executionId)) ?? (await running(event.executionId));
        if (!execution) return stopped;
        const options = optionsOf(execution);
        const profile = options.profileJson ? (JSON.parse(options.profileJson) as unknown) : undefined;
        const plan = await understand(search(), options.query, profile);
        await executions.update(execution.id, ['running'], { input: { understood: 1, matches: plan.matches } });
        return {
          executionId: execution.id,
          proceed: true,
          query: plan.query,
          signals: plan.signals,
          rules: plan.rules,
          pageSize: options.pageSize,
          enrichment: options.enrichment,
        };
      },

      /** Retrieve candidates: the best page_size that pass the hard rules, written as pending entries. */
      async retrieve(
        state: PlanState,
      ): Promise<{ executionId: string; proceed: boolean; candidates: VerifyMessage[] }> {
        if (!(await running(state.executionId)))
          return { executionId: state.executionId, proceed: false, candidates: [] };
        const candidates = await retrieve(search(), state, state.pageSize);
        await results.putEntries(
          state.executionId,
          candidates.map((c) => ({
            index: c.index,
            input: c.url,
            url: c.url,
            dup_of: null,
            state: 'pending' as const,
            result: null,
          })),
        );
        await executions.update(state.executionId, ['running'], { input: { candidates: candidates.length } });
        return {
          executionId: state.executionId,
          proceed: candidates.length > 0,
          candidates: candidates.map((candidate) => ({
            executionId: state.executionId,
            candidate,
            enrichment: state.enrichment,
            rules: state.rules,
          })),
        };
      },

      /** Verify one candidate (the SQS worker): the live page, or a fresh stored record. */
      async verify(message: VerifyMessage): Promise<{ index: number; kept: boolean; recorded: boolean }> {
        const { executionId, candidate } = message;
        if (!(await running(executionId))) return { index: candidate.index, kept: false, recorded: false };
        if (!deps.verify) throw new Error('The verify step needs the extraction path');
        const [result] = await deps.verify([candidate.url], { enrichment: message.enrichment });
        const judged = verdict(candidate.url, result ?? unverified(candidate.url), message.rules);
        const recorded = await recordVerdict(executionId, candidate, judged);
        return { index: candidate.index, kept: judged.success, recorded };
      },

      /** A candidate whose verification was lost (dead letter, task timeout): dropped as unverified. */
      async abandon(
        message: Pick<VerifyMessage, 'executionId' | 'candidate'>,
      ): Promise<{ index: number; recorded: boolean }> {
        const recorded = await recordVerdict(
          message.executionId,
          message.candidate,
          verdict(message.candidate.url, unverified(message.candidate.url), { inStockOnly: false, avoid: [] }),
        );
        return { index: message.candidate.index, recorded };
      },

      /** Rank: closes every unfinished candidate, counts what is shown, completes the execution. */
      async rank(event: {
        executionId: string;
      }): Promise<{ executionId: string; returned: number; completed: boolean }> {
        const execution = await running(event.executionId);
        if (!execution) return { executionId: event.executionId, returned: 0, completed: false };
        const options = optionsOf(execution);
        for (const entry of await results.all(execution.id)) {
          if (entry.state === 'pending')
            await recordVerdict(
              execution.id,
              { index: entry.index, url: entry.input },
              verdict(entry.input, unverified(entry.input), { inStockOnly: false, avoid: [] }),
            );
        }
        const entries = await results.all(execution.id);
        const ranked = rankVerified(entries.map(entryCandidate), options.pageSize);
        const verified = entries.filter((e) => e.result?.success).length;
        const completed = await executions.complete(execution.id, {
          input: { candidates: entries.length },
          counters: { verified, dropped: entries.length - verified, returned: ranked.length },
        });
        return { executionId: execution.id, returned: ranked.length, completed: completed !== null };
      },

      /** Record failure: a step failed after its retries. */
      async fail(event: { executionId: string }): Promise<{ executionId: string }> {
        await executions.fail(event.executionId, AGENTIC_FAILED_MESSAGE);
        return { executionId: event.executionId };
      },
    },
  };
}
