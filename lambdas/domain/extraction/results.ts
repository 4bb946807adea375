// The per-URL result rules, each in one place: final_url only when the landing URL differs from
// the URL a result answers, a result under a duplicate's own input URL, failures with the retry
// flag of their outcome's class, the fixed texts of malformed and unexpected failures (never a
// raw exception text: these messages reach customers), and grouping of duplicate inputs.
import { OUTCOME_CLASS, type Outcome, type UrlResult } from './types';

export const UNEXPECTED_FAILURE_MESSAGE = 'Extraction failed unexpectedly; the URL may be resubmitted';

/** Whether `landing` is another URL than `input` (compared parsed: scheme and host case, default ports). */
export function landedElsewhere(input: string, landing: string | null | undefined): landing is string {
  if (!landing) return false;
  try {
    return new URL(input).href !== new URL(landing).href;
  } catch {
    return input !== landing;
  }
}

/** `{ final_url }` when the landing URL differs from `input`, else nothing: spread into any result shape. */
export function finalUrlField(input: string, landing: string | null | undefined): { final_url?: string } {
  return landedElsewhere(input, landing) ? { final_url: landing } : {};
}

/** `result` as the answer for `input` (e.g. a duplicate's own spelling): its URL, and final_url only when it differs from it. */
export function resultFor(input: string, result: UrlResult): UrlResult {
  const { final_url, ...rest } = result;
  return { ...rest, url: input, ...finalUrlField(input, final_url) };
}

/** A failed or invalid result; `retry` follows the outcome's class (failed: true, invalid: false). */
export function failureResult(
  url: string,
  outcome: Exclude<Outcome, 'success'>,
  message: string,
  landing?: string | null,
): UrlResult {
  return {
    url,
    product: null,
    success: false,
    outcome,
    retry: OUTCOME_CLASS[outcome] === 'failed',
    message,
    ...finalUrlField(url, landing),
  };
}

/** An input that is no http(s) URL; `problem` is our own validation's words (parseHttpUrl). */
export const malformedResult = (input: string, problem: string): UrlResult =>
  failureResult(input, 'malformed_url', `Malformed URL: ${problem}`);

/** Anything that threw where a result was expected: `other`, retry true, a fixed text. */
export const unexpectedFailure = (url: string): UrlResult => failureResult(url, 'other', UNEXPECTED_FAILURE_MESSAGE);

/**
 * Inputs grouped by the first occurrence of their normalised URL (`dup_of` names it), in order
 * of first occurrence: each group is fetched once and every member gets the result.
 */
export function groupDuplicates<T extends { index: number; dup_of: number | null }>(entries: Iterable<T>): T[][] {
  const groups = new Map<number, T[]>();
  for (const entry of entries) {
    const key = entry.dup_of ?? entry.index;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, group]) => group);
}
