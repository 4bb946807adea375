// The PageRenderer over Chromium from npm (@sparticuz/chromium, driven by playwright-core): the
// browser never reaches the network itself. Every request a page makes is intercepted and either
// answered by the fetcher (the document it already fetched under robots.txt; scripts, XHR/fetch
// and stylesheets through HttpFetcher.resource: the same address rules, PDS_RESOLVE, redirect
// checks, body cap and per-host concurrency) or refused: images, media and fonts (no product
// data; never dialled), websockets, navigations away from the page, frames, other methods.
// Behind the interception the browser's own proxy is a dead end (an in-process sink that counts
// what reaches it), so a request the interception missed still connects nowhere else.
//
// One browser per process, reused, restarted after `pagesPerBrowser` pages or when it dies. Each
// page has a time budget (load, then the network quiet for `settleMs`) and a V8 heap cap; a page
// over its budget ends as a timeout, a page over its heap crashes its renderer alone; a page the
// browser cannot even close (a script looping forever) takes that browser with it, and the next
// page gets a new one. Downloads, pop-ups, dialogs and permission prompts are refused.
import net from 'node:net';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { FetchFailure, type FetchedPage } from '../../ports/fetcher';
import type { PageRenderer, RenderRequest } from '../../ports/renderer';
import type { HttpFetcher } from '../http-fetch';

export interface BrowserRendererOptions {
  fetcher: HttpFetcher;
  /** Whole page: open, load, settle, read. Default 20 s. */
  pageBudgetMs?: number;
  /** The network quiet this long after load counts as settled. Default 500 ms. */
  settleMs?: number;
  /** V8 heap of a page's renderer. Default 256 MB. */
  pageHeapMb?: number;
  /** Bytes of subresources one page may load. Default 20 MB. */
  maxPageBytes?: number;
  /** Pages before the browser is replaced. Default 100. */
  pagesPerBrowser?: number;
  /** An idle browser is closed after this long (a long-lived process keeps no Chromium it does not use). Default 60 s. */
  idleCloseMs?: number;
  /** The browser's proxy (where a request escaping interception would go). Default: an in-process sink. */
  escapeProxy?: string;
  /**
   * Chromium as one process (Lambda, where its sandbox-free child processes hang at launch:
   * Sparticuz/chromium#80). The caller then renders one page at a time: several contexts in one
   * process crash together, and closing a page's context ends the process, so every page gets a
   * browser of its own (a launch is about half a second once Chromium is unpacked). Web security
   * stays on either way.
   */
  singleProcess?: boolean;
}

export interface RendererStats {
  /** Pages rendered (or attempted). */
  pages: number;
  /** Browsers launched. */
  launches: number;
  /** Requests of pages the fetcher refused (address rules and the like). */
  refused: number;
  /** Connections that reached the built-in sink proxy (0 when escapeProxy is given). */
  escaped: number;
}

export interface BrowserRenderer extends PageRenderer {
  stats(): RendererStats;
  close(): Promise<void>;
}

/**
 * Not for this browser: web security stays on, and every page (each in its own context) gets its
 * own renderer process, so a page looping forever cannot stall the pages beside it.
 */
const DROPPED_ARGS = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--disable-features=AudioServiceOutOfProcess,IsolateOrigins,site-per-process',
]);
const SKIPPED_TYPES = new Set(['image', 'media', 'font', 'websocket', 'eventsource', 'manifest', 'other']);
/** Response headers a fulfilled body must not carry (the fetcher has decoded it). */
const HOP_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

interface Instance {
  browser: Promise<Browser>;
  served: number;
  active: number;
  retired: boolean;
  idle?: NodeJS.Timeout;
}

const within = <T>(promise: Promise<T>, ms: number): Promise<boolean> =>
  Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
  ]);

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** What rendererIdle calls in the page (a browser global, not Node's). */
interface PageGlobals {
  requestIdleCallback(callback: () => void, options: { timeout: number }): void;
}

/**
 * Resolves when the page's renderer is idle (its queued tasks done), or after a second of a
 * renderer that never idles; at once for a page that closed. Bounded for a page stuck in a
 * script: the evaluation waits behind it until the page's budget closes the page.
 */
const rendererIdle = (page: Page): Promise<void> =>
  page
    .evaluate(
      () =>
        new Promise<void>((resolve) =>
          (globalThis as unknown as PageGlobals).requestIdleCallback(() => resolve(), { timeout: 1000 }),
        ),
    )
    .catch(() => undefined);

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name.toLowerCase())) continue;
    flat[name] = Array.isArray(value) ? value.join(name.toLowerCase() === 'set-cookie' ? '\n' : ', ') : value;
  }
  return flat;
}

export function createBrowserRenderer(options: BrowserRendererOptions): BrowserRenderer {
  const { fetcher } = options;
  const budgetMs = options.pageBudgetMs ?? 20_000;
  const settleMs = options.settleMs ?? 500;
  const heapMb = options.pageHeapMb ?? 256;
  const maxPageBytes = options.maxPageBytes ?? 20 * 1024 * 1024;
  // One process ends with its page's context (closing it closes the browser): a browser a page.
  const pagesPerBrowser = options.singleProcess ? 1 : (options.pagesPerBrowser ?? 100);
  const idleCloseMs = options.idleCloseMs ?? 60_000;
  const stats: RendererStats = { pages: 0, launches: 0, refused: 0, escaped: 0 };
  let sink: Promise<{ server: net.Server; address: string }> | undefined;
  let instance: Instance | null = null;
  const instances = new Set<Instance>();

  function sinkProxy(): Promise<string> {
    if (options.escapeProxy) return Promise.resolve(options.escapeProxy);
    sink ??= new Promise((resolve, reject) => {
      const server = net.createServer((socket) => {
        stats.escaped++;
        socket.destroy();
      });
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        resolve({ server, address: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` });
      });
    });
    return sink.then((s) => s.address);
  }

  async function launch(): Promise<Browser> {
    stats.launches++;
    // Loaded at the first launch, not with this module: a bundle that holds this adapter keeps
    // both packages external (lib/bundle.ts), and only a process that renders needs them.
    const { default: chromium } = await import('@sparticuz/chromium');
    const { chromium: playwright } = await import('playwright-core');
    const args = chromium.args
      .filter((arg) => !DROPPED_ARGS.has(arg) && (options.singleProcess || arg !== '--single-process'))
      .concat([
        `--js-flags=--max-old-space-size=${heapMb}`,
        ...(options.singleProcess ? [] : ['--site-per-process']),
        // A page's timers run at full speed (a headless page can count as hidden): a page that
        // polls forever must look busy, not settle between throttled ticks.
        '--disable-background-timer-throttling',
        '--disable-renderer-backgrounding',
        '--disable-backgrounding-occluded-windows',
        '--disable-background-networking',
        '--dns-prefetch-disable',
        '--no-first-run',
        '--mute-audio',
        '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      ]);
    return playwright.launch({
      executablePath: await chromium.executablePath(),
      args,
      headless: true,
      proxy: { server: await sinkProxy() },
      timeout: 30_000,
    });
  }

  function closeInstance(inst: Instance): void {
    instances.delete(inst);
    inst.browser.then((browser) => within(browser.close(), 5000)).catch(() => undefined);
  }

  function retire(inst: Instance | null): void {
    if (!inst || (inst.retired && !instances.has(inst))) return;
    inst.retired = true;
    if (instance === inst) instance = null;
    if (inst.active === 0) closeInstance(inst);
  }

  function acquire(): Instance {
    if (!instance || instance.retired || instance.served >= pagesPerBrowser) {
      retire(instance);
      const inst: Instance = { browser: launch(), served: 0, active: 0, retired: false };
      inst.browser.then(
        (browser) => browser.on('disconnected', () => retire(inst)),
        () => retire(inst),
      );
      instances.add(inst);
      instance = inst;
    }
    clearTimeout(instance.idle);
    instance.served++;
    instance.active++;
    return instance;
  }

  function release(inst: Instance): void {
    inst.active--;
    if (inst.active > 0) return;
    if (inst.retired) {
      closeInstance(inst);
      return;
    }
    inst.idle = setTimeout(() => inst.active === 0 && retire(inst), idleCloseMs);
    inst.idle.unref();
  }

  /** Answers one intercepted request: the document from memory, the page's parts through the fetcher. */
  function router(page: () => Page | undefined, document: FetchedPage, countryCode: string | undefined) {
    let documentServed = false;
    let bytes = 0;
    return async (route: Route) => {
      const request = route.request();
      try {
        if (request.isNavigationRequest()) {
          if (documentServed || request.frame() !== page()?.mainFrame()) return await route.abort('blockedbyclient');
          documentServed = true;
          return await route.fulfill({
            status: 200,
            headers: { 'content-type': document.contentType || 'text/html; charset=utf-8' },
            body: document.body,
          });
        }
        const method = request.method();
        if (
          SKIPPED_TYPES.has(request.resourceType()) ||
          (method !== 'GET' && method !== 'POST') ||
          bytes > maxPageBytes
        )
          return await route.abort('blockedbyclient');
        const headers = request.headers();
        const answer = await fetcher.resource({
          url: request.url(),
          method,
          headers: Object.fromEntries(
            ['accept', 'content-type', 'origin', 'referer'].filter((h) => headers[h]).map((h) => [h, headers[h]]),
          ),
          body: request.postDataBuffer() ?? undefined,
          countryCode,
        });
        bytes += answer.body.length;
        if (bytes > maxPageBytes) return await route.abort('blockedbyclient');
        await route.fulfill({ status: answer.status, headers: flatHeaders(answer.headers), body: answer.body });
      } catch (error) {
        if (error instanceof FetchFailure) {
          if (error.kind === 'blocked_address' || error.kind === 'malformed_url') stats.refused++;
          await route.abort(error.kind === 'blocked_address' ? 'addressunreachable' : 'failed').catch(() => undefined);
        }
        // Otherwise the page or its context closed meanwhile: nothing to answer.
      }
    };
  }

  /**
   * Resolves once no request has been in flight for settleMs and the page's renderer has since
   * been idle with nothing new requested. The network alone is not enough: a renderer short of
   * CPU may still hold a finished response's handler (the one that renders the product, or asks
   * for more) in its queue; the idle callback runs only after that work.
   */
  async function settled(page: Page): Promise<void> {
    let inFlight = 0;
    let requests = 0;
    let quietSince = Date.now();
    page.on('request', () => {
      inFlight++;
      requests++;
    });
    const ended = () => {
      inFlight = Math.max(0, inFlight - 1);
      if (inFlight === 0) quietSince = Date.now();
    };
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    // Bounded by the page's budget (the caller races it): a page that never settles ends there.
    while (!page.isClosed()) {
      if (inFlight === 0 && Date.now() - quietSince >= settleMs) {
        const before = requests;
        await rendererIdle(page);
        if (inFlight === 0 && requests === before) return;
      } else await pause(50);
    }
  }

  async function renderIn(
    browser: Browser,
    document: FetchedPage,
    request: RenderRequest,
    limitMs: number,
    opened: (context: BrowserContext) => void,
  ): Promise<string> {
    const context = await browser.newContext({
      serviceWorkers: 'block',
      acceptDownloads: false,
      permissions: [],
      viewport: { width: 1280, height: 900 },
    });
    opened(context);
    let page: Page | undefined;
    await context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: 'not allowed' }));
    await context.route(
      '**/*',
      router(() => page, document, request.countryCode),
    );
    context.on('page', (other) => {
      if (page && other !== page) other.close().catch(() => undefined);
    });
    page = await context.newPage();
    page.on('dialog', (dialog) => dialog.dismiss().catch(() => undefined));
    page.on('download', (download) => download.cancel().catch(() => undefined));
    const crashed = new Promise<never>((_, reject) =>
      page!.on('crash', () =>
        reject(new FetchFailure('too_large', 'the page crashed its renderer (over its memory budget)')),
      ),
    );
    const quiet = settled(page);
    const load = async () => {
      await page!.goto(document.finalUrl, { waitUntil: 'load', timeout: limitMs });
      await quiet;
      return page!.content();
    };
    return Promise.race([load(), crashed]);
  }

  async function render(request: RenderRequest): Promise<FetchedPage> {
    const document = request.document ?? (await fetcher.fetch({ url: request.url, countryCode: request.countryCode }));
    if (document.status >= 300 || !/html/i.test(document.contentType || 'text/html')) return document;
    stats.pages++;
    const inst = acquire();
    let context: BrowserContext | undefined;
    let browser: Browser;
    try {
      // A launch is the process's, not the page's: the page's budget starts once it has a browser.
      browser = await inst.browser;
    } catch (error) {
      release(inst);
      throw new FetchFailure('network', `the browser did not start: ${(error as Error).message}`.slice(0, 300), {
        finalUrl: document.finalUrl,
      });
    }
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    // The page's budget, or less when the caller's deadline (a synchronous request's) comes first.
    const limitMs = Math.max(1, Math.min(budgetMs, (request.deadline ?? Number.POSITIVE_INFINITY) - Date.now()));
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(
          new FetchFailure('timeout', `the page did not settle within ${limitMs} ms`, { finalUrl: document.finalUrl }),
        );
      }, limitMs);
    });
    try {
      const body = await Promise.race([
        renderIn(browser, document, request, limitMs, (opened) => {
          context = opened;
          if (timedOut) opened.close().catch(() => undefined);
        }),
        budget,
      ]);
      return { ...document, status: 200, contentType: 'text/html; charset=utf-8', body };
    } catch (error) {
      if (error instanceof FetchFailure) throw error;
      // A browser that would not launch or died under the page: not this page's fault alone.
      retire(inst);
      throw new FetchFailure('network', `the browser failed: ${(error as Error).message}`.slice(0, 300), {
        finalUrl: document.finalUrl,
      });
    } finally {
      clearTimeout(timer);
      // A context that will not close is a renderer stuck in a script: that browser goes.
      if (context && !(await within(context.close(), 2000))) retire(inst);
      release(inst);
    }
  }

  return {
    render,
    stats: () => ({ ...stats }),
    async close() {
      for (const inst of [...instances]) {
        inst.retired = true;
        closeInstance(inst);
        await within(
          inst.browser.then((browser) => browser.close()),
          5000,
        );
      }
      instance = null;
      if (sink) (await sink).server.close();
    },
  };
}
