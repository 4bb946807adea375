// Escalation to a browser: HTML first; a page is rendered only when its HTML yields no product
// and shows signs of being built by scripts (domain/extraction/client-rendered.ts), or when the
// caller asks (`render: always`). The rendered page goes through the same engine as fetched HTML:
// the engine's fetcher answers the page's URL with the rendered DOM (or the render's failure, so
// a page over its budget ends as the engine maps a timeout: `other`). Every record says how its
// page was read (`fetched_with`). A process with a browser renders in-process; one configured
// with a render function (PDS_RENDER_FUNCTION: the synchronous functions on AWS, which ship no
// browser) asks that function: the same port, two adapters.
import { encodeRendered, parseRenderRequest, type RenderDirectResponse } from '../adapters/render-invoke-wire';
import type { BatchExtractUrl } from '../domain/extract-jobs/steps';
import { clientRendering } from '../domain/extraction/client-rendered';
import { createExtractor } from '../domain/extraction/engine';
import { renderedProvenance } from '../domain/extraction/provenance';
import type { ExtractOptions, ExtractUrl, FetchedWith, UrlResult } from '../domain/extraction/types';
import type { Enricher } from '../ports/enricher';
import { FetchFailure, type FetchedPage, type PageFetcher } from '../ports/fetcher';
import type { PageRenderer } from '../ports/renderer';
import { capability } from './container';
import { fetcherOf } from './fetcher';

/**
 * A synchronous URL's whole extraction (HTML pass, then the render) ends within this: API
 * Gateway answers by 29 s, and the response still has records to write. The render is given
 * what is left of it.
 */
export const SYNC_URL_MS = 25_000;

/**
 * This process's browser, launched on the first page that needs it. The adapter is imported then,
 * not before: playwright-core and Chromium stay out of every bundle (lib/bundle.ts keeps them
 * external) and out of the init of every function that never renders; where they are not
 * installed (a function deployed without them) rendering fails as a network failure of that page.
 */
export const rendererOf = capability((base): LazyRenderer => {
  let loaded: Promise<PageRenderer & { close(): Promise<void> }> | undefined;
  const load = () => {
    loaded ??= import('../adapters/browser').then(({ createBrowserRenderer }) =>
      createBrowserRenderer({
        fetcher: fetcherOf(base),
        pageBudgetMs: base.config.renderBudgetMs,
        singleProcess: base.config.lambda,
      }),
    );
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };
  return {
    ready: () => load().then(() => undefined),
    async render(request) {
      let renderer: PageRenderer;
      try {
        renderer = await load();
      } catch (error) {
        throw new FetchFailure('network', `no browser in this process: ${(error as Error).message}`.slice(0, 300));
      }
      return renderer.render(request);
    },
    async close() {
      if (loaded) await (await loaded).close();
    },
  };
});

/**
 * The renderer of the synchronous path: the render function's, asked by Lambda Invoke, where one
 * is configured (a function that ships no browser); otherwise this process's browser.
 */
export const pageRendererOf = capability((base): PageRenderer & { ready?(): Promise<void> } => {
  const functionName = base.config.renderFunction;
  if (!functionName) return rendererOf(base);
  // Loaded on the first page to render: the Lambda client is a chunk of its own in the asset
  // (lib/bundle.ts), read by the few invocations that render, not at every cold start.
  let remote: Promise<PageRenderer> | undefined;
  return {
    async render(request) {
      remote ??= import('../adapters/render-invoke').then(({ invokeRendererFor }) =>
        invokeRendererFor({ ...base.config, renderFunction: functionName }, base.clients),
      );
      return (await remote).render(request);
    },
  };
});

/** A renderer loaded on first use: `ready` rejects where this process has no browser. */
interface LazyRenderer extends PageRenderer {
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** A fetcher that remembers the first page it fetched: the document the HTML pass read. */
function recording(fetcher: PageFetcher): PageFetcher & { document?: FetchedPage } {
  const seen: PageFetcher & { document?: FetchedPage } = {
    async fetch(request) {
      const page = await fetcher.fetch(request);
      seen.document ??= page;
      return page;
    },
  };
  return seen;
}

/** A fetcher whose first fetch is the rendered page (or its failure); the rest (platform probes) go to the network. */
function rendered(outcome: Promise<FetchedPage>, fetcher: PageFetcher): PageFetcher {
  let served = false;
  return {
    fetch(request) {
      if (served) return fetcher.fetch(request);
      served = true;
      return outcome;
    },
  };
}

/** Whether the HTML pass failed in a way a browser can change: a page was read, it had no product, it is built by scripts. */
function needsBrowser(result: UrlResult, document: FetchedPage | undefined): boolean {
  if (result.success || !document || document.status >= 300) return false;
  if (result.outcome !== 'non_product_url' && result.outcome !== 'other') return false;
  return clientRendering(document.body).clientRendered;
}

function stamped(result: UrlResult, fetchedWith: FetchedWith): UrlResult {
  if (!result.product) return result;
  const { provenance } = result.product;
  // What a rendered page's text says was read from what the browser rendered.
  const seen = provenance && fetchedWith === 'browser' ? { provenance: renderedProvenance(provenance) } : {};
  return { ...result, product: { ...result.product, fetched_with: fetchedWith, ...seen } };
}

export interface EscalationDeps {
  fetcher: PageFetcher;
  enricher: Enricher;
  /** Undefined, or not ready: this process renders nothing (every result is the HTML pass's). */
  renderer?: PageRenderer & { ready?(): Promise<void> };
  /** A URL's whole extraction ends within this (SYNC_URL_MS): the render gets what the HTML pass left. */
  withinMs?: number;
}

/** The HTML pass alone, and a `needs` test the callers that hand pages elsewhere use. */
function htmlPass(deps: EscalationDeps) {
  return async (url: string, options: ExtractOptions): Promise<{ result: UrlResult; document?: FetchedPage }> => {
    const fetcher = recording(deps.fetcher);
    const result = await createExtractor({ fetcher, enricher: deps.enricher })(url, options);
    return { result: stamped(result, 'http'), document: fetcher.document };
  };
}

/** The browser pass: the page rendered (from the HTML pass's document when there is one) and read by the engine. */
function browserPass(deps: EscalationDeps & { renderer: PageRenderer }) {
  return async (
    url: string,
    options: ExtractOptions,
    document?: FetchedPage,
    deadline?: number,
  ): Promise<UrlResult> => {
    const page = deps.renderer.render({ url, countryCode: options.countryCode, document, deadline });
    page.catch(() => undefined);
    const extract = createExtractor({ fetcher: rendered(page, deps.fetcher), enricher: deps.enricher });
    return stamped(await extract(url, options), 'browser');
  };
}

/**
 * The extract worker's pass where rendering is the render worker's (its queue is configured): the
 * HTML pass's result, or null for a page that needs a browser (the same test as in-process
 * escalation, or `render: always`), which the batch hands on instead of rendering here.
 */
export function handingOnExtractor(deps: Omit<EscalationDeps, 'renderer'>): BatchExtractUrl {
  const html = htmlPass(deps);
  return async (url, options) => {
    const mode = options.render ?? 'auto';
    if (mode === 'always') return null;
    const { result, document } = await html(url, options);
    return mode !== 'never' && needsBrowser(result, document) ? null : result;
  };
}

/** The render worker's pass: the page rendered by this process's browser (it fetches the document itself, robots.txt first). */
export function renderingExtractor(deps: EscalationDeps & { renderer: PageRenderer }): ExtractUrl {
  const browser = browserPass(deps);
  return (url, options) => browser(url, options);
}

/** HTML first, the browser when the page needs it or the caller asks. */
export function escalatingExtractor(deps: EscalationDeps): ExtractUrl {
  const html = htmlPass(deps);
  const browser = deps.renderer ? browserPass({ ...deps, renderer: deps.renderer }) : undefined;
  const usable = () =>
    (deps.renderer?.ready?.() ?? Promise.resolve()).then(
      () => true,
      () => false,
    );
  return async (url, options) => {
    const deadline = deps.withinMs === undefined ? undefined : Date.now() + deps.withinMs;
    const mode = options.render ?? 'auto';
    if (browser && mode === 'always' && (await usable())) return browser(url, options, undefined, deadline);
    const { result, document } = await html(url, options);
    if (!browser || mode === 'never' || !needsBrowser(result, document)) return result;
    if (!(await usable())) return result;
    return browser(url, options, document, deadline);
  };
}

/**
 * The render function's direct entry (workers/render-direct.ts): one URL rendered by this
 * process's browser (the document fetched here, robots.txt first), answered in the wire format
 * of adapters/render-invoke-wire.ts: the page, or the FetchFailure it ended with.
 */
export const directRenderingOf = capability((base) => async (event: unknown): Promise<RenderDirectResponse> => {
  const request = parseRenderRequest(event);
  if (!request)
    return encodeRendered({
      error: new FetchFailure('malformed_url', 'expected {"url": "...", "countryCode"?: "xx"}'),
    });
  try {
    return encodeRendered({ page: await rendererOf(base).render(request) });
  } catch (error) {
    return encodeRendered({ error });
  }
});
