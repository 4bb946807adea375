// `pds`: the Product Data Service from a terminal or a script, over the typed client (client/).
//   pds extract <file|urls...>   v2 extraction of URLs (a file holds one URL a line, or a JSON array)
//   pds crawl <vendor>           v2 crawl of a store
//   pds search "<query>"         v2 agentic search (live-verified), or --mini for the catalog search
//   pds wait <execution-id>      follow an execution started with --no-wait
//   pds webhooks secret|deliveries   the webhook signing secret, an execution's delivery log
//   pds keys ...                 API keys (bin/keys.ts: create, list, revoke, rate-limit)
// Long work shows a live progress bar from the status operation when stdout is a terminal, plain
// progress lines on stderr otherwise, and ends with a summary table; --json prints only JSON on
// stdout. Exit codes: see EXIT (and `pds --help`).
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import {
  createPdsClient,
  PdsApiError,
  PdsTimeoutError,
  PdsUnreachableError,
  type Kind,
  type PdsClient,
  type PerUrlResult,
  type PollIntervals,
  type V2AgenticStatus,
  type V2CrawlStatus,
  type V2ExtractStatus,
  type WaitProgress,
  unwrap,
} from '../client';

export const EXIT = {
  ok: 0,
  someUrlsFailed: 1,
  usage: 2,
  auth: 3,
  jobFailed: 4,
  timeout: 5,
  unreachable: 6,
  serviceError: 7,
  interrupted: 130,
} as const;

const EXIT_HELP = `
Environment: PDS_BASE_URL (default http://127.0.0.1:3000), PDS_API_KEY.
Exit codes:
  0  done: every URL succeeded, the crawl or search completed (or started, with --no-wait)
  1  the extraction completed but some URLs did not succeed (see the summary)
  2  usage error: bad arguments, or the service refused the input (400, 404 unknown execution)
  3  authentication: no API key, or the service refused it (401 invalid, 403 missing scope)
  4  the execution failed or was cancelled
  5  the maximum wait (--timeout) passed; the execution goes on (pds wait <id>)
  6  the service could not be reached
  7  the service answered with an unexpected error (5xx, 429 after retries)
  130 interrupted (Ctrl-C) while waiting; the execution goes on (pds wait <id>)`;

class UsageError extends Error {}

/** Where a run writes and what environment it reads: the process's by default; a test runs many in one process. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

/** The one place the CLI reads its environment. */
function environment(env: CliIo['env']) {
  return { baseUrl: env.PDS_BASE_URL, apiKey: env.PDS_API_KEY };
}

interface CommonOptions {
  baseUrl: string;
  apiKey?: string;
  json?: boolean;
  wait: boolean;
  timeout: number;
  pollInterval?: number;
  quiet?: boolean;
}

const seconds = (what: string, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > max)
    throw new InvalidArgumentError(`${what} must be a number of seconds above 0 and at most ${max}`);
  return n;
};

const positiveInt = (what: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new InvalidArgumentError(`${what} must be 1..1000000`);
  return n;
};

function withCommonOptions(command: Command, cliIo: CliIo): Command {
  const env = environment(cliIo.env);
  return (
    command
      .addOption(
        new Option('--base-url <url>', 'service base URL (env PDS_BASE_URL)').default(
          env.baseUrl ?? 'http://127.0.0.1:3000',
        ),
      )
      // No default shown: help output must never print a key taken from the environment.
      .addOption(new Option('--api-key <key>', 'API key (env PDS_API_KEY)'))
      .option('--json', 'print only machine-readable JSON on stdout')
      .option('--no-wait', 'print the execution id and return without waiting')
      .option('--timeout <seconds>', 'maximum wait', seconds('--timeout', 7 * 24 * 3600), 3600)
      .option(
        '--poll-interval <seconds>',
        "fixed polling interval (default: the spec's, 5-10 s extractions, 10-30 s crawls)",
        seconds('--poll-interval', 3600),
      )
      .option('--quiet', 'no progress output')
  );
}

const WEBHOOK_EVENTS = ['started', 'progress', 'completed', 'failed'];

/** Options of the commands that start an execution: Idempotency-Key and webhook. */
function withStartOptions(command: Command): Command {
  return command
    .option(
      '--idempotency-key <key>',
      'send this Idempotency-Key: running the same command again within 24 h returns the first execution (default: a fresh key per run, so the client may retry the start safely)',
    )
    .option('--webhook <url>', 'signed webhook deliveries for this execution to this URL')
    .option(
      '--webhook-events <events>',
      `comma-separated subset of ${WEBHOOK_EVENTS.join(',')} (default all)`,
      (value: string) => {
        const events = value.split(',').map((e) => e.trim());
        const unknown = events.filter((e) => !WEBHOOK_EVENTS.includes(e));
        if (!events.length || unknown.length)
          throw new InvalidArgumentError(
            `unknown webhook event(s) ${unknown.join(', ')}; use ${WEBHOOK_EVENTS.join(', ')}`,
          );
        return events;
      },
    );
}

/** The webhook body field and Idempotency-Key header a start sends. */
function startExtras(flags: Record<string, any>) {
  if (flags.webhookEvents && !flags.webhook) throw new UsageError('--webhook-events needs --webhook <url>');
  return {
    body: flags.webhook
      ? { webhook: { url: flags.webhook, ...(flags.webhookEvents ? { events: flags.webhookEvents } : {}) } }
      : {},
    headers: flags.idempotencyKey ? { 'Idempotency-Key': String(flags.idempotencyKey) } : {},
  };
}

function clientFor(options: CommonOptions, env: CliIo['env']): PdsClient {
  try {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`--base-url must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  const apiKey = options.apiKey ?? environment(env).apiKey;
  if (!apiKey) throw new AuthMissing('an API key is needed: --api-key KEY or PDS_API_KEY');
  return createPdsClient({ baseUrl: options.baseUrl, apiKey });
}

class AuthMissing extends Error {}

function intervalsFor(options: CommonOptions): Partial<PollIntervals> | undefined {
  if (!options.pollInterval) return undefined;
  const fixed = { minMs: options.pollInterval * 1000, maxMs: options.pollInterval * 1000 };
  return { extract: fixed, extractWaitingOnCrawl: fixed, crawl: fixed, agentic: fixed };
}

// ---------------------------------------------------------------------------------------------
// Output

interface Output {
  json: boolean;
  tty: boolean;
  out(text: string): void;
  err(text: string): void;
}

function output(json: boolean, cliIo: CliIo): Output {
  return {
    json,
    tty: Boolean(cliIo.stdout.isTTY),
    out: (text) => cliIo.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => cliIo.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}

function table(head: string[], tty: boolean): Table.Table {
  return new Table({ head, style: tty ? {} : { head: [], border: [] }, wordWrap: true });
}

const UNITS: Record<Kind, string> = { extract: 'URLs', crawl: 'listings', agentic: 'candidates' };

function formatEta(secondsLeft: number): string {
  if (!Number.isFinite(secondsLeft) || secondsLeft < 0) return '-';
  if (secondsLeft < 60) return `${Math.ceil(secondsLeft)}s`;
  const m = Math.floor(secondsLeft / 60);
  return m < 60 ? `${m}m${String(Math.round(secondsLeft % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${m % 60}m`;
}

/** Rate (per second) and ETA from one progress read. */
function rateOf(p: WaitProgress): { rate: string; eta: string } {
  const elapsed = p.elapsedMs / 1000;
  const perSecond = elapsed > 0 ? p.processed / elapsed : 0;
  const rate = perSecond >= 10 ? perSecond.toFixed(0) : perSecond.toFixed(1);
  const eta =
    p.status === 'completed' || p.status === 'failed'
      ? '0s'
      : p.total !== null && perSecond > 0
        ? formatEta((p.total - p.processed) / perSecond)
        : '-';
  return { rate, eta };
}

/** One line of progress, for logs and pipes. */
export function progressLine(p: WaitProgress): string {
  const { rate, eta } = rateOf(p);
  const unit = UNITS[p.kind];
  const parts = [`pds: ${p.executionId} ${p.status}`];
  if (p.kind === 'crawl') {
    const total = p.stepsTotal || 4;
    if (p.step) parts.push(`step ${Math.min((p.stepsDone ?? 0) + 1, total)}/${total} ${p.step}`);
    parts.push(`${p.processed} ${unit} found`, `${rate} ${unit}/s`);
    return parts.join(', ');
  }
  if (p.waitingFor) parts.push(`waiting for crawl ${p.waitingFor}`);
  if (p.kind === 'agentic' && p.step) parts.push(`step ${p.step}`);
  const percent = p.total ? ` (${Math.floor((100 * p.processed) / p.total)}%)` : '';
  parts.push(`${p.processed}/${p.total ?? '?'} ${unit}${percent}`, `${rate} ${unit}/s`, `ETA ${eta}`);
  return parts.join(', ');
}

interface Reporter {
  update(p: WaitProgress): void;
  stop(): void;
}

/** A cli-progress bar when stdout is a terminal; plain lines on stderr otherwise; nothing with --quiet. */
function reporter(kind: Kind, io: Output, quiet: boolean): Reporter {
  if (quiet) return { update() {}, stop() {} };
  if (io.tty && !io.json) {
    const format =
      kind === 'crawl'
        ? 'crawl   {bar} step {value}/{total} {step} | {processed} listings | {rate} listings/s | {status}'
        : `${kind === 'extract' ? 'extract' : 'search '} {bar} {value}/{total} ${UNITS[kind]} | {rate}/s | ETA {remaining} | {status}{step}`;
    const bar = new cliProgress.SingleBar(
      { format, hideCursor: true, stopOnComplete: false, clearOnComplete: false, etaBuffer: 20 },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        const { rate, eta } = rateOf(p);
        const value = kind === 'crawl' ? (p.stepsDone ?? 0) : p.processed;
        const total = kind === 'crawl' ? p.stepsTotal || 4 : Math.max(p.total ?? 0, 1);
        const payload = {
          rate,
          remaining: eta,
          processed: p.processed,
          status: p.waitingFor ? `waiting for ${p.waitingFor}` : p.status,
          step: kind === 'crawl' ? (p.step ?? '') : p.step ? ` (${p.step})` : '',
        };
        if (!started) {
          bar.start(total, value, payload);
          started = true;
        } else {
          bar.setTotal(total);
          bar.update(value, payload);
        }
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = '';
  return {
    update(p) {
      const key = [p.status, p.processed, p.total, p.step, p.waitingFor].join('|');
      if (key === last) return;
      last = key;
      io.err(progressLine(p));
    },
    stop() {},
  };
}

// ---------------------------------------------------------------------------------------------
// Inputs

/** URLs per extraction (the service's limit); a longer input runs as several extractions. */
const BATCH_SIZE = 1000;
const MAX_URLS = 50 * BATCH_SIZE;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const FILE_LIKE = /\.(txt|json|csv|lst|list)$/i;

/** The URLs of `inputs`: each is a file (one URL a line, or a JSON array), `-` (stdin) or a URL. */
export function readUrlInputs(inputs: string[], readStdin: () => string = () => readFileSync(0, 'utf8')): string[] {
  const urls: string[] = [];
  for (const input of inputs) {
    if (input === '-') {
      urls.push(...parseUrlList(readStdin(), 'stdin'));
      continue;
    }
    let isFile = false;
    if (!URL_LIKE.test(input)) {
      try {
        isFile = statSync(input).isFile();
      } catch {
        isFile = false;
      }
    }
    if (isFile) urls.push(...parseUrlList(readFileSync(input, 'utf8'), input));
    else if (!URL_LIKE.test(input) && FILE_LIKE.test(input)) throw new UsageError(`no such file: ${input}`);
    else urls.push(input);
  }
  if (!urls.length) throw new UsageError('no URLs given (a file was empty?)');
  if (urls.length > MAX_URLS)
    throw new UsageError(`${urls.length} URLs: at most ${MAX_URLS} per run; split the input into several runs`);
  return urls;
}

function parseUrlList(text: string, where: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new UsageError(`${where}: not valid JSON (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed) || !parsed.every((u) => typeof u === 'string'))
      throw new UsageError(`${where}: a JSON input must be an array of URL strings`);
    return parsed as string[];
  }
  return trimmed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

// ---------------------------------------------------------------------------------------------
// Commands

interface Run {
  client: PdsClient;
  io: Output;
  options: CommonOptions;
  signal: AbortSignal;
}

async function follow<K extends Kind>(run: Run, kind: K, executionId: string) {
  const report = reporter(kind, run.io, Boolean(run.options.quiet));
  try {
    return await run.client.waitFor(executionId, {
      kind,
      timeoutMs: run.options.timeout * 1000,
      intervals: intervalsFor(run.options),
      onProgress: (p) => report.update(p),
      signal: run.signal,
    });
  } finally {
    report.stop();
  }
}

/**
 * Follows several extractions at once (an input longer than one extraction) with one progress
 * display over their sums; the first error stops every wait.
 */
async function followExtractions(run: Run, ids: string[]): Promise<V2ExtractStatus[]> {
  if (ids.length === 1) return [await follow(run, 'extract', ids[0]!)];
  const report = reporter('extract', run.io, Boolean(run.options.quiet));
  const stop = new AbortController();
  const signal = AbortSignal.any([run.signal, stop.signal]);
  const latest = new Map<string, WaitProgress>();
  const label = `${ids.length} extractions`;
  const combined = (): WaitProgress => {
    const all = ids.map((id) => latest.get(id));
    const known = all.filter((p): p is WaitProgress => p !== undefined);
    const finished = known.filter((p) => p.status === 'completed' || p.status === 'failed');
    return {
      executionId: label,
      kind: 'extract',
      status:
        finished.length === ids.length
          ? finished.some((p) => p.status === 'failed')
            ? 'failed'
            : 'completed'
          : known.some((p) => p.status !== 'pending')
            ? 'running'
            : 'pending',
      processed: known.reduce((sum, p) => sum + p.processed, 0),
      total: all.every((p) => p?.total !== null && p?.total !== undefined)
        ? known.reduce((sum, p) => sum + (p.total ?? 0), 0)
        : null,
      polls: known.reduce((sum, p) => sum + p.polls, 0),
      elapsedMs: Math.max(0, ...known.map((p) => p.elapsedMs)),
      body: null,
    };
  };
  try {
    return await Promise.all(
      ids.map((id) =>
        run.client
          .waitFor(id, {
            kind: 'extract',
            timeoutMs: run.options.timeout * 1000,
            intervals: intervalsFor(run.options),
            onProgress: (p) => {
              latest.set(id, p);
              report.update(combined());
            },
            signal,
          })
          .catch((error) => {
            stop.abort(error);
            throw error instanceof PdsTimeoutError
              ? new PdsTimeoutError(ids.join(' '), run.options.timeout * 1000, null)
              : error;
          }),
      ),
    );
  } finally {
    report.stop();
  }
}

function started(run: Run, body: { execution_id: string }, kind: Kind): number {
  if (run.io.json) run.io.out(JSON.stringify(body));
  else {
    run.io.out(`started ${body.execution_id} (${kind})`);
    run.io.out(`follow it with: pds wait ${body.execution_id}`);
  }
  return EXIT.ok;
}

const OUTCOMES = ['success', 'non_product_url', 'malformed_url', 'automated_access_not_permitted', 'other'] as const;

type ExtractResultCounts = V2ExtractStatus['meta']['result'];

/** The result counts of several extractions added up. */
function sumResults(results: ExtractResultCounts[]): ExtractResultCounts {
  const byReason = (maps: Array<Record<string, number | undefined>>) => {
    const out: Record<string, number> = {};
    for (const map of maps) for (const [k, v] of Object.entries(map)) out[k] = (out[k] ?? 0) + (v ?? 0);
    return out;
  };
  const sum = (field: keyof ExtractResultCounts) => results.reduce((n, r) => n + (r[field] as number), 0);
  return {
    products_requested: sum('products_requested'),
    products_successful: sum('products_successful'),
    products_failed: sum('products_failed'),
    products_failed_by_reason: byReason(results.map((r) => r.products_failed_by_reason)),
    products_invalid: sum('products_invalid'),
    products_invalid_by_reason: byReason(results.map((r) => r.products_invalid_by_reason)),
    products_pending: sum('products_pending'),
  } as ExtractResultCounts;
}

async function finishExtract(run: Run, statuses: V2ExtractStatus[]): Promise<number> {
  const results: PerUrlResult[] = [];
  for (const status of statuses)
    for await (const page of run.client.extractResults(status.execution_id, { pageSize: 100, maxPages: 20 }))
      results.push(...page);
  const r = sumResults(statuses.map((s) => s.meta.result));
  const failed = statuses.find((s) => s.status === 'failed');
  const state = failed ? 'failed' : 'completed';
  const error = failed?.error ?? null;
  const credits = statuses.reduce((n, s) => n + s.meta.credits_used, 0);
  const durations = statuses.map((s) => s.meta.duration_ms);
  const duration = durations.some((d) => d === null) ? null : Math.max(...(durations as number[]));
  const ids = statuses.map((s) => s.execution_id);
  const code = failed ? EXIT.jobFailed : r.products_successful === r.products_requested ? EXIT.ok : EXIT.someUrlsFailed;
  if (run.io.json) {
    run.io.out(
      JSON.stringify({
        ...(ids.length === 1 ? { execution_id: ids[0] } : {}),
        execution_ids: ids,
        status: state,
        error,
        credits_used: credits,
        duration_ms: duration,
        result: r,
        results,
        exit_code: code,
      }),
    );
    return code;
  }
  const counts = new Map<string, number>(OUTCOMES.map((o) => [o, 0]));
  for (const result of results) counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
  const summary = table(['outcome', 'URLs'], run.io.tty);
  for (const [outcome, n] of counts) summary.push([outcome, n]);
  if (r.products_pending) summary.push(['pending (unfinished)', r.products_pending]);
  summary.push(['total', r.products_requested]);
  run.io.out(summary.toString());
  const failures = results.map((result, i) => ({ result, i })).filter(({ result }) => !result.success);
  if (failures.length) {
    const shown = failures.slice(0, 50);
    const detail = table(['#', 'URL', 'outcome', 'retry', 'message'], run.io.tty);
    for (const { result, i } of shown)
      detail.push([
        i,
        result.url.slice(0, 80),
        result.outcome,
        result.retry ? 'yes' : 'no',
        result.message.slice(0, 80),
      ]);
    run.io.out(detail.toString());
    if (failures.length > shown.length) run.io.out(`... and ${failures.length - shown.length} more (--json for all)`);
  }
  const seconds = duration === null ? '' : ` in ${(duration / 1000).toFixed(1)} s`;
  const what = ids.length === 1 ? ids[0] : `${ids.length} extractions (${ids.join(', ')})`;
  run.io.out(
    `${what} ${state}${seconds}: ${r.products_successful}/${r.products_requested} URLs succeeded, ${credits} credits${error ? ` (${error})` : ''}`,
  );
  return code;
}

function finishCrawl(run: Run, status: V2CrawlStatus): number {
  const code = status.status === 'completed' ? EXIT.ok : EXIT.jobFailed;
  if (run.io.json) {
    run.io.out(JSON.stringify({ ...status, exit_code: code }));
    return code;
  }
  const steps = table(['step', 'status'], run.io.tty);
  for (const step of status.meta.steps) steps.push([step.name, step.status]);
  run.io.out(steps.toString());
  const totals = table(['vendor', 'listings', 'collections', 'duration'], run.io.tty);
  totals.push([
    status.meta.vendor,
    status.meta.result.listings_total,
    status.meta.result.collections_total,
    status.meta.duration_ms === null ? '-' : `${(status.meta.duration_ms / 1000).toFixed(1)} s`,
  ]);
  run.io.out(totals.toString());
  run.io.out(`${status.execution_id} ${status.status}${status.error ? `: ${status.error}` : ''}`);
  return code;
}

interface SearchRow {
  url: string;
  product: {
    title?: string | null;
    price?: { current_value?: number | null; currency?: string | null } | null;
    vendor?: string | null;
    images?: unknown[];
  };
}

function priceText(price: SearchRow['product']['price']): string {
  if (!price || price.current_value === null || price.current_value === undefined) return '-';
  return `${price.current_value} ${price.currency ?? ''}`.trim();
}

function finishSearch(
  run: Run,
  query: string,
  rows: SearchRow[],
  code: number,
  extra: Record<string, unknown>,
): number {
  if (run.io.json) {
    run.io.out(JSON.stringify({ query, ...extra, data: rows, exit_code: code }));
    return code;
  }
  const t = table(['#', 'title', 'price', 'vendor', 'URL'], run.io.tty);
  rows.forEach((row, i) => {
    const vendor = row.product.vendor ?? (URL.canParse(row.url) ? new URL(row.url).hostname : '-');
    t.push([i + 1, (row.product.title ?? '').slice(0, 60), priceText(row.product.price), vendor, row.url.slice(0, 70)]);
  });
  run.io.out(rows.length ? t.toString() : `no results for "${query}"`);
  if (extra.error) run.io.out(`search failed: ${extra.error}`);
  return code;
}

async function extractCommand(run: Run, inputs: string[], flags: Record<string, any>): Promise<number> {
  if (flags.vendor && inputs.length) throw new UsageError('give URLs or --vendor, not both');
  if (!flags.vendor && !inputs.length) throw new UsageError('give a file, URLs or --vendor');
  const options = {
    enable_enrichment: Boolean(flags.enrichment),
    enable_reviews: Boolean(flags.reviews),
    enable_image_tags: Boolean(flags.imageTags),
    enable_similar_products: Boolean(flags.similarProducts),
    ...(flags.country ? { country_code: flags.country } : {}),
  };
  const extras = startExtras(flags);
  const urls = flags.vendor ? [] : readUrlInputs(inputs);
  const size = flags.batchSize ?? BATCH_SIZE;
  const bodies = flags.vendor
    ? [
        {
          vendor: flags.vendor as string,
          ...(flags.maxProducts ? { max_products: flags.maxProducts } : {}),
          ...options,
        },
      ]
    : Array.from({ length: Math.ceil(urls.length / size) }, (_, i) => ({
        urls: urls.slice(i * size, (i + 1) * size),
        ...options,
      }));
  const accepted: Array<{ execution_id: string; status: 'pending'; meta: Record<string, unknown> }> = [];
  for (const [i, body] of bodies.entries()) {
    // One key per extraction of the run: the same command again answers the same extractions.
    const key = extras.headers['Idempotency-Key'];
    const headers = key ? { 'Idempotency-Key': bodies.length === 1 ? key : `${key}:${i + 1}` } : {};
    const start = await run.client.api.POST('/v2/extract', { body: { ...body, ...extras.body }, headers });
    const invalid = (
      start.error as { invalid_urls?: Array<{ index: number; url: string; problem: string }> } | undefined
    )?.invalid_urls;
    if (start.response.status === 400 && invalid) {
      const refused = invalid.map((entry) => ({ ...entry, index: entry.index + i * size }));
      const already = accepted.map((a) => a.execution_id);
      if (run.io.json)
        run.io.out(
          JSON.stringify({ error: { ...start.error, invalid_urls: refused }, started: already, exit_code: EXIT.usage }),
        );
      else {
        run.io.err(
          `pds: the service refused ${refused.length} URL(s); ${already.length ? `already started: ${already.join(' ')}` : 'nothing was started'}:`,
        );
        const t = table(['#', 'URL', 'problem'], run.io.tty);
        for (const entry of refused.slice(0, 50)) t.push([entry.index, String(entry.url).slice(0, 80), entry.problem]);
        run.io.err(t.toString());
        if (refused.length > 50) run.io.err(`... and ${refused.length - 50} more (--json for all)`);
      }
      return EXIT.usage;
    }
    accepted.push(unwrap(start, 'POST /v2/extract'));
  }
  const ids = accepted.map((a) => a.execution_id);
  if (!run.options.wait) {
    if (accepted.length === 1) return started(run, accepted[0]!, 'extract');
    if (run.io.json) run.io.out(JSON.stringify({ executions: accepted }));
    else {
      run.io.out(`started ${ids.length} extractions of at most ${size} URLs: ${ids.join(' ')}`);
      run.io.out(`follow them with: pds wait ${ids.join(' ')}`);
    }
    return EXIT.ok;
  }
  if (!run.io.json && !run.options.quiet) run.io.err(`pds: started ${ids.join(' ')}`);
  return finishExtract(run, await followExtractions(run, ids));
}

async function crawlCommand(run: Run, vendor: string, flags: Record<string, any>): Promise<number> {
  const extras = startExtras(flags);
  const body = {
    vendor,
    ...(flags.maxListings ? { max_listings: flags.maxListings } : {}),
    ...(flags.country ? { country_code: flags.country } : {}),
    ...extras.body,
  };
  const accepted = unwrap(await run.client.api.POST('/v2/crawl', { body, headers: extras.headers }), 'POST /v2/crawl');
  if (!run.options.wait) return started(run, accepted, 'crawl');
  if (!run.io.json && !run.options.quiet) run.io.err(`pds: started ${accepted.execution_id}`);
  return finishCrawl(run, await follow(run, 'crawl', accepted.execution_id));
}

async function searchCommand(run: Run, query: string, flags: Record<string, any>): Promise<number> {
  if (!query.trim()) throw new UsageError('the query is empty');
  const extras = startExtras(flags);
  if (flags.mini && (flags.webhook || flags.idempotencyKey))
    throw new UsageError('--mini answers at once: --webhook and --idempotency-key apply to the agentic search only');
  if (flags.mini) {
    const found = unwrap(
      await run.client.api.POST('/v2/agentic-search-mini', {
        body: { query, page_size: flags.limit ?? 10, enable_enrichment: Boolean(flags.enrichment) },
      }),
      'POST /v2/agentic-search-mini',
    );
    return finishSearch(run, query, found.data as SearchRow[], EXIT.ok, {});
  }
  const accepted = unwrap(
    await run.client.api.POST('/v2/agentic-search', {
      body: {
        query,
        page_size: Math.min(flags.limit ?? 8, 8),
        enable_enrichment: Boolean(flags.enrichment),
        ...extras.body,
      },
      headers: extras.headers,
    }),
    'POST /v2/agentic-search',
  );
  if (!run.options.wait) return started(run, accepted, 'agentic');
  return finishAgentic(run, await follow(run, 'agentic', accepted.execution_id));
}

function finishAgentic(run: Run, status: V2AgenticStatus): number {
  const code = status.status === 'completed' ? EXIT.ok : EXIT.jobFailed;
  return finishSearch(run, status.meta.query, (status.data ?? []) as SearchRow[], code, {
    execution_id: status.execution_id,
    status: status.status,
    error: status.error,
    credits_used: status.meta.credits_used,
  });
}

async function webhookSecretCommand(run: Run, flags: Record<string, any>): Promise<number> {
  const secret = flags.rotate
    ? unwrap(await run.client.api.POST('/v2/webhooks/secret'), 'POST /v2/webhooks/secret')
    : unwrap(await run.client.api.GET('/v2/webhooks/secret'), 'GET /v2/webhooks/secret');
  if (run.io.json) run.io.out(JSON.stringify(secret));
  else {
    run.io.out(`secret:     ${secret.secret}`);
    run.io.out(`created_at: ${secret.created_at}`);
    run.io.err(
      'Receivers check X-PDS-Signature: v1=<hex HMAC-SHA256 of "{X-PDS-Timestamp}.{raw body}"> under this secret.',
    );
  }
  return EXIT.ok;
}

async function webhookDeliveriesCommand(run: Run, executionId: string): Promise<number> {
  const log = unwrap(
    await run.client.api.GET('/v2/webhooks/deliveries', { params: { query: { execution_id: executionId } } }),
    'GET /v2/webhooks/deliveries',
  );
  if (run.io.json) {
    run.io.out(JSON.stringify(log));
    return EXIT.ok;
  }
  if (!log.data.length) {
    run.io.out(`no webhook deliveries for ${executionId}`);
    return EXIT.ok;
  }
  const t = table(
    ['event', 'state', 'attempts', 'last status', 'last error', 'next attempt', 'delivery id'],
    run.io.tty,
  );
  for (const d of log.data) {
    const last = d.attempts.at(-1);
    t.push([
      d.event,
      d.state,
      d.attempts.length,
      last?.status_code ?? '-',
      (last?.error ?? '').slice(0, 40),
      d.next_attempt_at ?? '-',
      d.delivery_id,
    ]);
  }
  run.io.out(t.toString());
  return EXIT.ok;
}

async function waitCommand(run: Run, executionIds: string[]): Promise<number> {
  const [executionId] = executionIds;
  if (executionIds.length > 1 || executionId!.startsWith('extract-')) {
    const other = executionIds.find((id) => !id.startsWith('extract-'));
    if (other) throw new UsageError(`several ids are followed together only for extractions (extract-...): ${other}`);
    return finishExtract(run, await followExtractions(run, executionIds));
  }
  if (executionId!.startsWith('crawl-')) return finishCrawl(run, await follow(run, 'crawl', executionId!));
  if (executionId!.startsWith('agentic-')) return finishAgentic(run, await follow(run, 'agentic', executionId!));
  throw new UsageError(`${executionId} is not a v2 execution id (extract-..., crawl-... or agentic-...)`);
}

// ---------------------------------------------------------------------------------------------
// Program

/** `pds feed` and `pds changes`: what the service keeps of a vendor, as a feed and as its changes. */
function addFeedCommands(
  program: Command,
  runAction: (options: CommonOptions, action: (run: Run) => Promise<number>) => Promise<void>,
  common: (command: Command) => Command,
): void {
  common(
    program
      .command('feed')
      .description(
        "a vendor's products as a Google Merchant Center feed: one RSS 2.0 document of every page (--json: items and refused items); refused items with their reasons on stderr",
      )
      .argument('<vendor>', 'hostname or any URL of the store')
      .option('--country <code>', 'target country: records extracted for it (default us)')
      .option('--page-size <n>', 'product records per request (1..500, default 500)', positiveInt('--page-size'))
      .option('--out <file>', 'write the feed to this file instead of stdout'),
  ).action((vendor: string, flags: CommonOptions & Record<string, any>) =>
    runAction(flags, async (run) => (await import('./feed-command')).feedCommand(run.client, run.io, vendor, flags)),
  );

  common(
    program
      .command('changes')
      .description(
        'price, compare-at price, availability and listing changes of the vendors your organization extracted or crawled, oldest first (--json: one object per line); the cursor to resume from on stderr',
      )
      .option('--vendor <vendor>', 'one vendor (hostname or any URL of the store)')
      .option('--since <time>', 'only changes seen at or after this ISO 8601 time')
      .option(
        '--types <list>',
        'comma-separated: price, compare_at_price, availability, listing_added, listing_removed',
      )
      .option('--cursor <cursor>', 'resume after a previous run')
      .option('--follow', 'keep reading new changes every 5 s'),
  ).action((flags: CommonOptions & Record<string, any>) =>
    runAction(flags, async (run) => (await import('./changes-command')).changesCommand(run.client, run.io, flags)),
  );
}

function buildProgram(
  runAction: (options: CommonOptions, action: (run: Run) => Promise<number>) => Promise<void>,
  cliIo: CliIo,
) {
  const common = (command: Command) => withCommonOptions(command, cliIo);
  const program = new Command('pds')
    .description('Product Data Service from the command line: extractions, crawls, searches and API keys.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => cliIo.stdout.write(text), writeErr: (text) => cliIo.stderr.write(text) })
    .showHelpAfterError('(pds --help for usage)')
    .addHelpText('after', EXIT_HELP);

  common(
    withStartOptions(
      program
        .command('extract')
        .description('extract product URLs (v2); each argument is a URL, a file (one URL a line or a JSON array) or -')
        .argument('[inputs...]', `URLs, files, or - for stdin; more than ${BATCH_SIZE} URLs run as several extractions`)
        .option('--vendor <vendor>', "vendor mode: extract the store's listings (crawling it first when needed)")
        .option('--max-products <n>', 'vendor mode: at most this many products', positiveInt('--max-products'))
        .option('--enrichment', 'enable enrichment (+1 credit per product)')
        .option('--reviews', 'enable reviews')
        .option('--image-tags', 'enable image tags')
        .option('--similar-products', 'enable similar products')
        .option('--country <code>', 'country code (default us)')
        .addOption(
          new Option('--batch-size <n>', `URLs per extraction (1..${BATCH_SIZE}; tests)`)
            .argParser((value) => {
              const n = positiveInt('--batch-size')(value);
              if (n > BATCH_SIZE) throw new InvalidArgumentError(`--batch-size must be at most ${BATCH_SIZE}`);
              return n;
            })
            .hideHelp(),
        ),
    ),
  ).action((inputs: string[], flags: CommonOptions & Record<string, any>) =>
    runAction(flags, (run) => extractCommand(run, inputs, flags)),
  );

  common(
    withStartOptions(
      program
        .command('crawl')
        .description("crawl a store's catalog (v2) and report its four steps")
        .argument('<vendor>', 'hostname or any URL of the store')
        .option('--max-listings <n>', 'stop after this many listings', positiveInt('--max-listings'))
        .option('--country <code>', 'country code'),
    ),
  ).action((vendor: string, flags: CommonOptions & Record<string, any>) =>
    runAction(flags, (run) => crawlCommand(run, vendor, flags)),
  );

  common(
    withStartOptions(
      program
        .command('search')
        .description('search products (v2 agentic search: candidates verified on their live pages)')
        .argument('<query>', 'what to look for, e.g. "red running shoes under 100"')
        .option('--mini', 'the instant catalog search (/v2/agentic-search-mini) instead')
        .option('--limit <n>', 'results wanted (agentic at most 8, mini at most 10)', positiveInt('--limit'))
        .option('--enrichment', 'enable enrichment'),
    ),
  ).action((query: string, flags: CommonOptions & Record<string, any>) =>
    runAction(flags, (run) => searchCommand(run, query, flags)),
  );

  common(
    program
      .command('wait')
      .description(
        'follow an execution (extract-..., crawl-..., agentic-...) to its end and summarise it; several extraction ids are followed together',
      )
      .argument('<execution-id...>'),
  ).action((executionIds: string[], flags: CommonOptions) => runAction(flags, (run) => waitCommand(run, executionIds)));

  addFeedCommands(program, runAction, common);

  const webhooks = program.command('webhooks').description("the organization's webhook secret and delivery logs");
  common(
    webhooks
      .command('secret')
      .description('print the signing secret of webhook deliveries (created on first use)')
      .option('--rotate', 'replace it with a new one (every later attempt is signed with the new one)'),
  ).action((flags: CommonOptions & Record<string, any>) => runAction(flags, (run) => webhookSecretCommand(run, flags)));
  common(
    webhooks
      .command('deliveries')
      .description("an execution's webhook deliveries and their attempts")
      .argument('<execution-id>'),
  ).action((executionId: string, flags: CommonOptions) =>
    runAction(flags, (run) => webhookDeliveriesCommand(run, executionId)),
  );

  program
    .command('keys')
    .description(
      'API keys: create --org ORG [--scopes a,b] | list [--org ORG] | revoke <id> | rate-limit (pds keys --help)',
    )
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]');
  return program;
}

function describeError(error: unknown): { code: number; message: string; status?: number; body?: unknown } {
  if (error instanceof UsageError) return { code: EXIT.usage, message: error.message };
  if (error instanceof AuthMissing) return { code: EXIT.auth, message: error.message };
  if (error instanceof PdsUnreachableError) return { code: EXIT.unreachable, message: error.message };
  if (error instanceof PdsTimeoutError)
    return { code: EXIT.timeout, message: `${error.message}; it goes on: pds wait ${error.executionId}` };
  if (error instanceof PdsApiError) {
    const code =
      error.status === 401 || error.status === 403
        ? EXIT.auth
        : [400, 404, 409, 413, 415].includes(error.status)
          ? EXIT.usage
          : EXIT.serviceError;
    return { code, message: error.message, status: error.status, body: error.body };
  }
  return { code: EXIT.serviceError, message: (error as Error)?.stack ?? String(error) };
}

export async function main(argv: string[], cliIo: CliIo = processIo()): Promise<number> {
  if (argv[0] === 'keys') {
    const { runKeys } = await import('./keys');
    return runKeys(argv.slice(1), {
      out: (text) => cliIo.stdout.write(`${text}\n`),
      err: (text) => cliIo.stderr.write(`${text}\n`),
      env: cliIo.env,
    });
  }
  let exitCode: number = EXIT.ok;
  let json = false;
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort(new Error('interrupted'));
  const program = buildProgram(async (options, action) => {
    json = Boolean(options.json);
    const io = output(json, cliIo);
    try {
      process.once('SIGINT', onSigint);
      // The client (base URL and key checks) only when a command gets past its own argument checks.
      let client: PdsClient | undefined;
      const run = {
        io,
        options,
        signal: interrupt.signal,
        get client() {
          client ??= clientFor(options, cliIo.env);
          return client;
        },
      };
      exitCode = await action(run);
    } catch (error) {
      if (interrupt.signal.aborted) {
        io.err('pds: stopped waiting; the execution goes on (pds wait <id>)');
        exitCode = EXIT.interrupted;
        return;
      }
      const described = describeError(error);
      exitCode = described.code;
      io.err(`pds: ${described.message}`);
      if (json)
        io.out(
          JSON.stringify({
            error: {
              message: described.message,
              ...(described.status ? { status: described.status, body: described.body } : {}),
            },
            exit_code: described.code,
          }),
        );
    } finally {
      process.off('SIGINT', onSigint);
    }
  }, cliIo);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
      if (error.code === 'commander.help') return EXIT.ok;
      // Scripts asking for JSON get it for a usage error too (commander wrote the message to stderr).
      if (argv.includes('--json'))
        cliIo.stdout.write(
          `${JSON.stringify({ error: { message: error.message.replace(/^error: /, '') }, exit_code: EXIT.usage })}\n`,
        );
      return EXIT.usage;
    }
    throw error;
  }
  return exitCode;
}

// `tsx bin/pds.ts ...` (npm run pds); `npx pds` goes through bin/pds.mjs, which calls main itself.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
