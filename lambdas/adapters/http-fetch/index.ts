// The PageFetcher over got: manual redirects with every hop checked by the SSRF guard (inside each
// connection's DNS lookup, got's dnsLookup), robots.txt fetched once per origin and obeyed, per-host
// politeness through the host gate (a turn per attempt; a 429/503 Retry-After pauses the host for
// every worker sharing the gate), retries with backoff, timeouts, a decompressed-size cap,
// bot-wall and content-type checks. Options are plain values; the composition root maps config onto them.
//
// Redirects and retries are ours, not got's: every hop needs the robots check, the PDS_RESOLVE
// mapping and its own host's politeness turn, and a retry must not be spent on a challenge page. got's promise API (the one that retries status codes) reads the
// whole body before answering, and the size cap, the early content-type refusal and robots.txt's
// truncation need the stream.
//
// Status policy: 2xx pages resolve; 404/410 resolve too (status visible) so the engine can say
// the URL is gone rather than "fetch failed"; 401/403 and challenge pages -> 'bot_wall'; other
// 4xx, and 429/5xx after retries -> 'http_status' with the status.
import got from 'got';
import ipaddr from 'ipaddr.js';
import { FetchFailure, type FetchedPage, type FetchRequest, type PageFetcher } from '../../ports/fetcher';
import {
  ALLOW_ALL,
  DISALLOW_ALL,
  parseRobots,
  ROBOTS_MAX_BYTES,
  type RobotsRules,
} from '../../domain/extraction/robots';
import { normalizeUrl } from '../../domain/extraction/url';
import { looksLikeBotWall } from './bot-wall';
import { HostPaused, type HostGate, type HostPolicy } from '../../ports/host-gate';
import { processHostGate } from './host-gate';
import { acceptLanguageFor } from './locale';
import { createProxyAgents } from './proxy-agent';
import { backoffDelay, parseRetryAfter, sleep } from './retry';
import { BLOCKED_ADDRESS_CODE, createGuardedLookup, isBlockedIp } from './ssrf';

export { acceptLanguageFor } from './locale';
export { looksLikeBotWall } from './bot-wall';
export { isBlockedIp } from './ssrf';
export { parseRetryAfter, backoffDelay } from './retry';

export const DEFAULT_USER_AGENT = 'ProductDataService/1.0 (+https://product-data-service.example/bot)';
const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5';

export interface HttpFetcherOptions {
  /** Sent on every request; its product token (before '/') is matched against robots.txt groups. */
  userAgent?: string;
  /** PDS_RESOLVE: host -> "ip:port". That host and its www. form go there over plain HTTP. */
  resolve?: Record<string, string>;
  /** Minimum spacing between request starts per host (robots Crawl-delay wins when larger). Default 1000. */
  crawlDelayMs?: number;
  /** Cap on a robots.txt Crawl-delay, so one file cannot stall a job. Default 10 s. */
  maxCrawlDelayMs?: number;
  /** Requests in flight per host. Default 2. */
  perHostConcurrency?: number;
  /** Where turns on a host are taken: the table's gate in every service; default this process's own. */
  gate?: HostGate;
  /** Longest pause a Retry-After sets on a host for every worker. Default 15 min. */
  maxPauseMs?: number;
  /** DNS + TCP (+ TLS) per attempt. Default 10 s. */
  connectTimeoutMs?: number;
  /** Time to response headers and longest idle gap while reading. Default 15 s. */
  readTimeoutMs?: number;
  /** Whole attempt, connect to last byte. Default 45 s. */
  totalTimeoutMs?: number;
  /** Decompressed body cap. Default 5 MB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Extra attempts on 429, 5xx and network errors (not timeouts). Default 2. */
  retries?: number;
  /** First backoff step; doubles per attempt, jittered. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** A longer Retry-After is not waited for: the 429/503 is reported instead. Default 30 s. */
  maxRetryAfterMs?: number;
  /** country code -> HTTP proxy URL (CONNECT tunnels). */
  egressProxies?: Record<string, string>;
  /** Default true. */
  respectRobots?: boolean;
  /** How long a fetched robots.txt is trusted. Default 24 h. */
  robotsTtlMs?: number;
  /** How long a failed robots.txt fetch (5xx/unreachable -> disallow all) is cached. Default 60 s. */
  robotsErrorTtlMs?: number;
}

/** A page's subresource (script, XHR/fetch, stylesheet) as a browser asks for it. */
export interface ResourceRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer;
  countryCode?: string;
}

/** Any status and content type: the page's scripts judge the answer, as a browser's would. */
export interface FetchedResource {
  finalUrl: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface HttpFetcher extends PageFetcher {
  /**
   * A subresource of a page being rendered: the same address rules, PDS_RESOLVE mapping, redirect
   * checks, body cap and per-host concurrency as a page, without robots.txt (it governs the
   * document) and without the crawl delay between starts (a browser loads a page's parts at once).
   */
  resource(request: ResourceRequest): Promise<FetchedResource>;
  /** The robots.txt rules that apply to a URL's origin (fetched and cached like fetch() does). */
  robots(url: string): Promise<RobotsRules>;
  /** The product token matched against robots.txt groups. */
  readonly robotsToken: string;
}

interface Target {
  /** What the socket actually requests. */
  connectUrl: string;
  /** Set when connectUrl is a PDS_RESOLVE address: the logical Host. */
  hostHeader?: string;
}

interface RawResponse {
  url: URL;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

interface HopOptions {
  headers: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: Buffer;
  /** Spacing between request starts on the host; default the crawl delay. */
  spacingMs?: number;
  countryCode?: string;
  checkRobots: boolean;
  maxBytes: number;
  /** Read at most maxBytes and keep them instead of failing (robots.txt). */
  truncate: boolean;
  /** Content types a 2xx may have; others are refused before the body is read. */
  acceptable: (mime: string) => boolean;
}

interface RobotsEntry {
  rules: RobotsRules;
  /** Why the rules are what they are when not read from a file (for messages). */
  note: string | null;
  expiresAt: number;
}

const MAX_ROBOTS_CACHE = 1000;

export function createHttpFetcher(options: HttpFetcherOptions = {}): HttpFetcher {
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const robotsToken = userAgent.split('/')[0].trim() || userAgent;
  const crawlDelayMs = options.crawlDelayMs ?? 1000;
  const maxCrawlDelayMs = options.maxCrawlDelayMs ?? 10_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const readTimeoutMs = options.readTimeoutMs ?? 15_000;
  const totalTimeoutMs = options.totalTimeoutMs ?? 45_000;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const retries = Math.max(0, options.retries ?? 2);
  const retryBaseDelayMs = options.retryBaseDelayMs ?? 500;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const respectRobots = options.respectRobots ?? true;
  const robotsTtlMs = options.robotsTtlMs ?? 24 * 3600_000;
  const robotsErrorTtlMs = options.robotsErrorTtlMs ?? 60_000;

  const resolveMap = new Map(
    Object.entries(options.resolve ?? {}).map(([host, address]) => [host.toLowerCase(), address]),
  );
  const trustedIps = new Set(
    [...resolveMap.values()].map((address) => address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '')),
  );
  const guardedLookup = createGuardedLookup();
  const perHostConcurrency = Math.max(1, options.perHostConcurrency ?? 2);
  const gate = options.gate ?? processHostGate({ maxPauseWaitMs: maxRetryAfterMs });
  const maxPauseMs = options.maxPauseMs ?? 15 * 60_000;
  const proxyAgents = new Map(
    Object.entries(options.egressProxies ?? {}).map(([country, proxy]) => [
      country.toLowerCase(),
      createProxyAgents(proxy, trustedIps, connectTimeoutMs),
    ]),
  );
  const robotsCache = new Map<string, RobotsEntry>();
  const robotsInFlight = new Map<string, Promise<RobotsEntry>>();

  function targetFor(url: URL): Target {
    const host = url.hostname.toLowerCase();
    const mapped = resolveMap.get(host) ?? (host.startsWith('www.') ? resolveMap.get(host.slice(4)) : undefined);
    if (mapped) return { connectUrl: `http://${mapped}${url.pathname}${url.search}`, hostHeader: url.host };
    const literal = host.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(literal) && isBlockedIp(literal)) {
      throw new FetchFailure('blocked_address', `${url.host} is not a public address`, { finalUrl: url.href });
    }
    return { connectUrl: url.href };
  }

  function requestOnce(target: Target, url: URL, hop: HopOptions): Promise<RawResponse> {
    const agent = hop.countryCode ? proxyAgents.get(hop.countryCode.toLowerCase()) : undefined;
    const headers = target.hostHeader ? { ...hop.headers, host: target.hostHeader } : hop.headers;
    return new Promise((resolve, reject) => {
      let settled = false;
      let response: { statusCode: number; headers: RawResponse['headers'] } | null = null;
      const chunks: Buffer[] = [];
      let size = 0;
      const stream = got.stream(target.connectUrl, {
        method: hop.method ?? 'GET',
        body: hop.body,
        headers,
        followRedirect: false,
        throwHttpErrors: false,
        decompress: true,
        retry: { limit: 0 },
        dnsLookup: guardedLookup as never,
        agent: agent ? { http: agent.http, https: agent.https } : undefined,
        timeout: {
          lookup: connectTimeoutMs,
          connect: connectTimeoutMs,
          secureConnect: connectTimeoutMs,
          send: readTimeoutMs,
          response: readTimeoutMs,
          socket: readTimeoutMs,
          request: totalTimeoutMs,
        },
      });

      const finish = () => {
        if (settled) return;
        settled = true;
        if (!response)
          return reject(new FetchFailure('network', `no response from ${url.host}`, { finalUrl: url.href }));
        resolve({ url, status: response.statusCode, headers: response.headers, bytes: Buffer.concat(chunks) });
      };
      const fail = (failure: FetchFailure) => {
        if (settled) return;
        settled = true;
        stream.destroy();
        reject(failure);
      };

      stream.on('response', (res) => {
        response = res;
        const status = res.statusCode;
        const mime = mimeOf(res.headers['content-type']);
        if (status >= 200 && status < 300 && mime && !hop.acceptable(mime)) {
          return fail(
            new FetchFailure('non_html', `${url.href} is ${mime}, not a web page`, { status, finalUrl: url.href }),
          );
        }
        const declared = Number(res.headers['content-length']);
        if (!hop.truncate && declared > hop.maxBytes) {
          fail(
            new FetchFailure('too_large', `${url.href} is ${declared} bytes, over the ${hop.maxBytes} byte limit`, {
              status,
              finalUrl: url.href,
            }),
          );
        }
      });
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size <= hop.maxBytes) return void chunks.push(chunk);
        if (hop.truncate) {
          chunks.push(chunk.subarray(0, chunk.length - (size - hop.maxBytes)));
          finish();
          stream.destroy();
          return;
        }
        fail(
          new FetchFailure('too_large', `${url.href} exceeds the ${hop.maxBytes} byte limit`, {
            status: response?.statusCode,
            finalUrl: url.href,
          }),
        );
      });
      stream.on('end', finish);
      stream.on('error', (error: Error) => fail(failureFromError(error, url)));
    });
  }

  /** Waits for the host's turn; a host paused for longer than we wait is a failure of this URL. */
  async function turn(url: URL, policy: HostPolicy): Promise<() => void> {
    try {
      return await gate.acquire(url.hostname.toLowerCase(), policy);
    } catch (error) {
      if (error instanceof HostPaused)
        throw new FetchFailure('http_status', error.message, { status: 429, finalUrl: url.href });
      throw error;
    }
  }

  /** Every attempt takes its own turn on the host: a retry is a request like any other. */
  async function requestWithRetries(target: Target, url: URL, hop: HopOptions, policy: HostPolicy) {
    for (let attempt = 0; ; attempt++) {
      let raw: RawResponse;
      const release = await turn(url, policy);
      try {
        raw = await requestOnce(target, url, hop);
      } catch (error) {
        const failure = error instanceof FetchFailure ? error : failureFromError(error as Error, url);
        if (failure.kind !== 'network' || attempt >= retries) throw failure;
        release();
        await sleep(backoffDelay(attempt, retryBaseDelayMs, maxRetryAfterMs));
        continue;
      } finally {
        release();
      }
      const retriable = raw.status === 429 || raw.status >= 500;
      const asked = retriable ? parseRetryAfter(raw.headers['retry-after']) : null;
      // The host asked every client to wait: the pause holds for all workers sharing the gate.
      if (asked !== null && (raw.status === 429 || raw.status === 503))
        await gate.pause(url.hostname.toLowerCase(), Date.now() + Math.min(asked, maxPauseMs)).catch(() => undefined);
      if (!retriable || attempt >= retries || isChallenge(raw)) return raw;
      if (asked !== null && asked > maxRetryAfterMs) return raw; // not waiting that long: report it
      // A paused host's next turn comes after the pause; other failures back off first.
      if (asked === null || (raw.status !== 429 && raw.status !== 503))
        await sleep(asked ?? backoffDelay(attempt, retryBaseDelayMs, maxRetryAfterMs));
    }
  }

  /** Follows redirects by hand so every hop passes the URL, address and robots checks. */
  async function followHops(startUrl: string, firstHop: HopOptions): Promise<RawResponse> {
    let current = startUrl;
    let hop = firstHop;
    for (let hops = 0; ; hops++) {
      const url = new URL(current);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new FetchFailure('malformed_url', `redirected to unsupported scheme ${url.protocol}`, {
          finalUrl: url.href,
        });
      }
      const target = targetFor(url);
      let delayMs = hop.spacingMs ?? crawlDelayMs;
      if (hop.checkRobots && respectRobots) {
        const entry = await robotsEntry(url);
        if (!entry.rules.canFetch(url.href, robotsToken)) {
          const why = entry.note ?? `robots.txt of ${url.host} disallows ${url.pathname}`;
          throw new FetchFailure('robots_disallowed', why, { finalUrl: url.href });
        }
        const robotsDelay = entry.rules.crawlDelay(robotsToken);
        if (robotsDelay !== null) delayMs = Math.max(delayMs, Math.min(maxCrawlDelayMs, robotsDelay * 1000));
      }
      const raw = await requestWithRetries(target, url, hop, { spacingMs: delayMs, concurrency: perHostConcurrency });
      const location = raw.headers.location;
      if (raw.status >= 300 && raw.status < 400 && location) {
        if (hops >= maxRedirects) {
          throw new FetchFailure('too_many_redirects', `more than ${maxRedirects} redirects from ${startUrl}`, {
            status: raw.status,
            finalUrl: url.href,
          });
        }
        // A redirected POST goes on as a GET without its body (303, and what browsers do on 301/302).
        if (raw.status !== 307 && raw.status !== 308) hop = { ...hop, method: 'GET', body: undefined };
        try {
          current = new URL(String(Array.isArray(location) ? location[0] : location), url).href;
        } catch {
          throw new FetchFailure('malformed_url', `invalid redirect location from ${url.href}`, {
            status: raw.status,
            finalUrl: url.href,
          });
        }
        continue;
      }
      return raw;
    }
  }

  async function loadRobots(origin: string): Promise<RobotsEntry> {
    const now = Date.now();
    const allow = (note: string | null): RobotsEntry => ({ rules: ALLOW_ALL, note, expiresAt: now + robotsTtlMs });
    const disallow = (note: string): RobotsEntry => ({ rules: DISALLOW_ALL, note, expiresAt: now + robotsErrorTtlMs });
    let raw: RawResponse;
    try {
      raw = await followHops(`${origin}/robots.txt`, {
        headers: { 'user-agent': userAgent, accept: 'text/plain,*/*;q=0.5' },
        checkRobots: false,
        maxBytes: ROBOTS_MAX_BYTES,
        truncate: true,
        acceptable: () => true,
      });
    } catch (error) {
      // Our own failure (the host gate's table unreachable, say) says nothing about the store:
      // it fails this request and is not cached as the store's answer.
      if (!(error instanceof FetchFailure)) throw error;
      const failure = error;
      if (failure.kind === 'too_many_redirects') return allow(null); // Google: treat as 404
      if (failure.kind === 'dns' || failure.kind === 'blocked_address' || failure.kind === 'malformed_url')
        throw failure;
      return disallow(
        `robots.txt of ${new URL(origin).host} is unreachable (${failure.kind}); treated as disallow-all per Google's rules`,
      );
    }
    if (raw.status >= 200 && raw.status < 300) {
      return {
        rules: parseRobots(decodeBody(raw.bytes, raw.headers['content-type']), { baseUrl: raw.url.href }),
        note: null,
        expiresAt: now + robotsTtlMs,
      };
    }
    if (raw.status === 429 || raw.status >= 500) {
      return disallow(
        `robots.txt of ${new URL(origin).host} answered ${raw.status}; treated as disallow-all per Google's rules`,
      );
    }
    return allow(null); // 3xx without location, 4xx: no usable robots.txt, everything allowed
  }

  async function robotsEntry(url: URL): Promise<RobotsEntry> {
    const origin = url.origin;
    const cached = robotsCache.get(origin);
    if (cached && cached.expiresAt > Date.now()) return cached;
    let pending = robotsInFlight.get(origin);
    if (!pending) {
      pending = loadRobots(origin).finally(() => robotsInFlight.delete(origin));
      robotsInFlight.set(origin, pending);
    }
    const entry = await pending;
    if (robotsCache.size >= MAX_ROBOTS_CACHE) robotsCache.delete(robotsCache.keys().next().value as string);
    robotsCache.set(origin, entry);
    return entry;
  }

  async function fetchPage(request: FetchRequest): Promise<FetchedPage> {
    const normalized = normalizeUrl(request.url);
    if (!normalized.ok) throw new FetchFailure('malformed_url', `invalid URL: ${normalized.problem}`);
    const callerHeaders = Object.fromEntries(
      Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const accept = callerHeaders.accept ?? DEFAULT_ACCEPT;
    const headers: Record<string, string> = {
      'user-agent': userAgent,
      accept,
      'accept-language': acceptLanguageFor(request.countryCode),
      ...callerHeaders,
    };
    const raw = await followHops(normalized.url, {
      headers,
      countryCode: request.countryCode,
      checkRobots: !request.ignoreRobots,
      maxBytes,
      truncate: false,
      acceptable: (mime) => isHtmlMime(mime) || acceptsMime(accept, mime),
    });

    const finalUrl = raw.url.href;
    const status = raw.status;
    const contentType = String(raw.headers['content-type'] ?? '');
    const mime = mimeOf(contentType);
    const details = { status, finalUrl };
    if (status === 401 || status === 403)
      throw new FetchFailure('bot_wall', `${raw.url.host} refused access (${status})`, details);
    if (isChallenge(raw))
      throw new FetchFailure('bot_wall', `${raw.url.host} answered with an anti-bot challenge`, details);
    if (status !== 404 && status !== 410 && (status < 200 || status >= 300)) {
      throw new FetchFailure('http_status', `${finalUrl} answered HTTP ${status}`, details);
    }
    const textual = !mime || isTextMime(mime);
    const body = textual ? decodeBody(raw.bytes, contentType) : '';
    if (status >= 200 && status < 300 && (!mime || isHtmlMime(mime))) {
      if (!mime && !/^\s*</.test(body.slice(0, 1024)))
        throw new FetchFailure('non_html', `${finalUrl} is not a web page`, details);
      if (looksLikeBotWall(body, raw.headers))
        throw new FetchFailure('bot_wall', `${raw.url.host} served a captcha or bot check`, details);
    }
    const page: FetchedPage = { requestedUrl: request.url, finalUrl, status, headers: raw.headers, contentType, body };
    if (!textual) page.bodyBytes = new Uint8Array(raw.bytes);
    return page;
  }

  async function fetchResource(request: ResourceRequest): Promise<FetchedResource> {
    const normalized = new URL(request.url);
    const raw = await followHops(normalized.href, {
      headers: {
        ...request.headers,
        'user-agent': userAgent,
        'accept-language': acceptLanguageFor(request.countryCode),
      },
      method: request.method,
      body: request.body,
      countryCode: request.countryCode,
      checkRobots: false,
      spacingMs: 0,
      maxBytes,
      truncate: false,
      acceptable: () => true,
    });
    return { finalUrl: raw.url.href, status: raw.status, headers: raw.headers, body: raw.bytes };
  }

  return {
    fetch: fetchPage,
    resource: fetchResource,
    robotsToken,
    async robots(url: string) {
      if (!respectRobots) return ALLOW_ALL;
      return (await robotsEntry(new URL(url))).rules;
    },
  };
}

function failureFromError(error: Error, url: URL): FetchFailure {
  if (error instanceof FetchFailure) return error;
  const code =
    (error as NodeJS.ErrnoException).code ?? (error as Error & { cause?: NodeJS.ErrnoException }).cause?.code;
  const details = { finalUrl: url.href };
  if (code === BLOCKED_ADDRESS_CODE)
    return new FetchFailure('blocked_address', `${url.host} resolves to a non-public address`, details);
  if (error.name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') {
    return new FetchFailure('timeout', `${url.host} timed out`, details);
  }
  if (
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'EAI_FAIL' ||
    code === 'ENODATA' ||
    code === 'EAI_NONAME'
  ) {
    return new FetchFailure('dns', `${url.hostname} could not be resolved`, details);
  }
  return new FetchFailure('network', `${url.host}: ${code ?? error.message}`.slice(0, 300), details);
}

/** Cloudflare-style challenges arrive as 403/429/503 with a marker header or body. */
function isChallenge(raw: RawResponse): boolean {
  if (String(raw.headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge') return true;
  if (raw.status !== 403 && raw.status !== 429 && raw.status !== 503) return false;
  const head = raw.bytes
    .subarray(0, 64 * 1024)
    .toString('latin1')
    .toLowerCase();
  return (
    head.includes('cf_chl_opt') ||
    head.includes('/cdn-cgi/challenge-platform/') ||
    head.includes('captcha-delivery.com')
  );
}

const mimeOf = (contentType: unknown) =>
  String(contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
const isHtmlMime = (mime: string) => mime === 'text/html' || mime === 'application/xhtml+xml';
const isTextMime = (mime: string) => mime.startsWith('text/') || /json|xml|javascript/.test(mime);

/** True when the caller's Accept header names this type explicitly (`*\/*` does not count). */
function acceptsMime(accept: string, mime: string): boolean {
  return accept.split(',').some((part) => {
    const type = part.split(';')[0].trim().toLowerCase();
    if (!type || type === '*/*') return false;
    if (type.endsWith('/*')) return mime.startsWith(type.slice(0, -1));
    // application/json also admits application/ld+json, application/vnd.api+json, ...
    return (
      type === mime ||
      (type === 'application/json' && mime.endsWith('+json')) ||
      (type.endsWith('/xml') && mime.endsWith('+xml'))
    );
  });
}

function decodeBody(bytes: Buffer, contentType: unknown): string {
  let charset = /charset=["']?([\w:-]+)/i.exec(String(contentType ?? ''))?.[1];
  if (!charset) charset = /<meta[^>]+charset=["']?([\w:-]+)/i.exec(bytes.subarray(0, 4096).toString('latin1'))?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
