// What the extraction path needs from a browser: the page as its scripts leave it. The adapter
// (lambdas/adapters/browser) renders with Chromium; every request it makes goes through the
// fetcher's rules. Failures are FetchFailure, so the engine maps them like a fetch's.
import type { FetchedPage } from './fetcher';

export interface RenderRequest {
  url: string;
  countryCode?: string;
  /** The document already fetched (robots.txt passed): rendered without fetching it again. */
  document?: FetchedPage;
}

export interface PageRenderer {
  /** The rendered page (body: the DOM serialised after scripts settle), or rejects with FetchFailure. */
  render(request: RenderRequest): Promise<FetchedPage>;
}
