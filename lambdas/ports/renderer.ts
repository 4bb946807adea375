// What the extraction path needs from a browser: the page as its scripts leave it. Two adapters:
// lambdas/adapters/browser renders with Chromium in this process (every request it makes goes
// through the fetcher's rules); lambdas/adapters/render-invoke.ts asks the render function, for
// processes that ship no browser. Failures are FetchFailure, so the engine maps them like a fetch's.
import type { FetchedPage } from './fetcher';

export interface RenderRequest {
  url: string;
  countryCode?: string;
  /** The document already fetched (robots.txt passed): rendered without fetching it again. */
  document?: FetchedPage;
  /** Epoch ms by which the caller needs the page (a synchronous request's budget); a renderer past it fails as a timeout. */
  deadline?: number;
}

export interface PageRenderer {
  /** The rendered page (body: the DOM serialised after scripts settle), or rejects with FetchFailure. */
  render(request: RenderRequest): Promise<FetchedPage>;
}
