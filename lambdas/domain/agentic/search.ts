// Agentic search, step by step: understand the query and the customer profile, retrieve
// candidates through ProductSearch, verify the top ones against the live product page, rank what
// survived. v1 runs the steps in one request (runAgenticSearch); v2 runs each as a state of the
// agentic-search state machine (jobs.ts), with the same functions.
import type { ProductRecord, UrlResult } from '../extraction/types';
import type { CatalogItem, ProductSearch, ProfileSignals, SearchFilters, UnderstoodQuery } from '../search/api';
import { interpretProfile } from './profile';
import { hardRules, rejection, ruleBroken, type HardRules } from './rules';

/** DECISIONS: agentic search (v1 and v2) costs 5 credits. */
export const AGENTIC_CREDITS = 5;
/** DECISIONS: a mini search costs 1 credit, +1 with enrichment. */
export const miniSearchCredits = (enrichment: boolean): number => 1 + (enrichment ? 1 : 0);
/** Mini searches answer the best 10. */
export const MINI_RESULTS = 10;
/** v1 answers up to 8 products; v2's page_size is 1..8. */
export const MAX_RESULTS = 8;
/** Candidates read from the index before the hard rules thin them out. */
export const CANDIDATE_POOL = 24;

/** Verifies product URLs against their live pages (a fresh stored record may answer). One result per URL, in order. */
export type VerifyUrls = (urls: readonly string[], options: { enrichment: boolean }) => Promise<UrlResult[]>;

export interface AgenticPlan {
  query: string;
  signals: ProfileSignals;
  rules: HardRules;
  understood: UnderstoodQuery;
  /** Matches the index holds for the understood query (before the profile's hard rules). */
  matches: number;
}

export interface Candidate {
  /** Rank among the candidates (0 = best). */
  index: number;
  url: string;
}

/** Filters the engine applies exactly: the profile's in-stock rule is one of them. */
const profileFilters = (signals: ProfileSignals): SearchFilters | undefined =>
  signals.inStockOnly ? { isAvailable: true } : undefined;

/** Step 1: what the query and the profile ask for. */
export async function understand(search: ProductSearch, query: string, profile: unknown): Promise<AgenticPlan> {
  const signals = interpretProfile(profile);
  const response = await search.search({
    query,
    mode: 'understand',
    filters: profileFilters(signals),
    profile: signals,
    offset: 0,
    limit: 1,
  });
  return {
    query,
    signals,
    rules: hardRules(signals, response.understood),
    understood: response.understood,
    matches: response.total,
  };
}

/** Step 2: the best `limit` candidates that pass the hard rules on the data the catalog holds. */
export async function retrieve(
  search: ProductSearch,
  plan: Pick<AgenticPlan, 'query' | 'signals' | 'rules'>,
  limit: number,
): Promise<Candidate[]> {
  const response = await search.search({
    query: plan.query,
    mode: 'understand',
    filters: profileFilters(plan.signals),
    profile: plan.signals,
    offset: 0,
    limit: Math.max(CANDIDATE_POOL, limit),
  });
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const hit of response.hits) {
    if (candidates.length >= limit) break;
    const item: CatalogItem = hit.item;
    if (seen.has(item.url) || ruleBroken(item.product, plan.rules)) continue;
    seen.add(item.url);
    candidates.push({ index: candidates.length, url: item.url });
  }
  return candidates;
}

/**
 * Step 3, per candidate: the verification's result as it is stored. A page that failed, lacks a
 * title, price or image, or now breaks a hard rule becomes an unsuccessful result saying why.
 */
export function verdict(candidateUrl: string, result: UrlResult, rules: HardRules): UrlResult {
  const reason = result.success
    ? rejection(result.product, rules)
    : result.message || `the product page could not be read (${result.outcome})`;
  if (!reason) return { ...result, url: candidateUrl };
  return {
    url: candidateUrl,
    product: null,
    success: false,
    outcome: result.success ? 'other' : result.outcome,
    retry: result.success ? false : result.retry,
    message: `Dropped: ${reason}`,
  };
}

/** A candidate whose verification never reported (lost message, timeout). */
export const unverified = (url: string): UrlResult => ({
  url,
  product: null,
  success: false,
  outcome: 'other',
  retry: true,
  message: 'the product page could not be verified in time',
});

export interface VerifiedCandidate {
  index: number;
  url: string;
  result: UrlResult | null;
}

/**
 * Step 4: the verified candidates in their ranked order (the engine's ranking with the profile's
 * boosts), one per product, at most `limit`. Pure over stored data, so a status read shows
 * exactly what the Rank step counted.
 */
export function rankVerified(
  candidates: readonly VerifiedCandidate[],
  limit: number,
): Array<{ url: string; product: ProductRecord }> {
  const seen = new Set<string>();
  const out: Array<{ url: string; product: ProductRecord }> = [];
  for (const candidate of [...candidates].sort((a, b) => a.index - b.index)) {
    const { result } = candidate;
    if (!result?.success || !result.product) continue;
    const identity = result.final_url ?? result.product.url ?? candidate.url;
    if (seen.has(identity) || seen.has(candidate.url)) continue;
    seen.add(identity);
    seen.add(candidate.url);
    out.push({ url: candidate.url, product: result.product });
    if (out.length >= limit) break;
  }
  return out;
}

export interface AgenticRequest {
  query: string;
  /** Milliseconds verification may take before unverified candidates are dropped (default VERIFY_BUDGET_MS). */
  verifyBudgetMs?: number;
  profile?: unknown;
  limit?: number;
  enrichment: boolean;
}

export interface AgenticResult {
  products: Array<{ url: string; product: ProductRecord }>;
  candidates: number;
  dropped: number;
  credits: number;
}

/**
 * v1 answers inside one HTTP request (API Gateway gives up at 30 s): a candidate whose page has
 * not been verified within this budget is dropped like one that failed.
 */
export const VERIFY_BUDGET_MS = 20_000;

/** Each candidate verified on its own, all at once; null for one still unverified at the deadline. */
async function verifyWithin(
  verify: VerifyUrls,
  urls: readonly string[],
  enrichment: boolean,
  budgetMs: number,
): Promise<Array<UrlResult | null>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), budgetMs);
  });
  try {
    return await Promise.all(
      urls.map((url) =>
        Promise.race([
          verify([url], { enrichment }).then(
            ([result]) => result ?? null,
            () => null,
          ),
          deadline,
        ]),
      ),
    );
  } finally {
    clearTimeout(timer);
  }
}

/** v1: every step in this request. */
export async function runAgenticSearch(
  deps: { search: ProductSearch; verify: VerifyUrls },
  request: AgenticRequest,
): Promise<AgenticResult> {
  const limit = Math.min(MAX_RESULTS, Math.max(1, request.limit ?? MAX_RESULTS));
  const plan = await understand(deps.search, request.query, request.profile);
  const candidates = await retrieve(deps.search, plan, limit);
  const results = await verifyWithin(
    deps.verify,
    candidates.map((c) => c.url),
    request.enrichment,
    request.verifyBudgetMs ?? VERIFY_BUDGET_MS,
  );
  const verified = candidates.map((candidate, i) => ({
    ...candidate,
    result: verdict(candidate.url, results[i] ?? unverified(candidate.url), plan.rules),
  }));
  const products = rankVerified(verified, limit);
  return {
    products,
    candidates: candidates.length,
    dropped: candidates.length - products.length,
    credits: AGENTIC_CREDITS,
  };
}
